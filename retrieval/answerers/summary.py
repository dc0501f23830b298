"""Whole-document questions ("总结", "概括第四章", "overview") answered from the documents' summary trees.

Reading never writes: a document in scope with no tree gets a ``summarise`` job in the queue (the
background summariser builds it, ``summary.on_index``), and the question is answered from what
exists — the other documents' trees, else retrieval. The metadata says which trees were missing
and whether they were queued. With a model, the tree's nodes go to it as materials (instead of
retrieved chunks); without one, the tree's own summaries are the answer, cited by section and pages.
"""

from __future__ import annotations

from indexing.jobs import KIND_SUMMARISE
from indexing.summary import SummaryContext, summary_materials
from prompts.assembler import split_sentences
from retrieval.answer_texts import based_on, summary_note
from retrieval.answering import Answer, notice_for
from retrieval.citations import citation_from_metadata
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.placing import SUMMARY_ROUTE
from retrieval.scope import Scope


class SummaryTree:
    """The summary trees of the documents in scope (declines when none has one: retrieval answers)."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or ctx.route != SUMMARY_ROUTE or not ctx.scope.doc_ids:
            return None
        summary = self._trees(knowledge, ctx)
        if summary is None or not summary.materials:
            return None
        ctx.meta["summary"] = {**ctx.meta.get("summary", {}), "named_sections": summary.named,
                               "extractive": summary.extractive, "tokens": summary.tokens}
        if ctx.failure is not None:
            return self._extractive(ctx, summary)
        ctx.extra.extend(summary.materials)
        scope = ctx.scope
        ctx.scope = Scope(scope.method, scope.doc_ids, scope.superseded, scope.matched, scope.unknown, retrieval=False)
        return None

    @staticmethod
    def _trees(knowledge: Knowledge, ctx: QuestionContext) -> SummaryContext | None:
        """The stored trees' materials; the documents without a tree are queued for the summariser."""
        store = knowledge.summaries()
        summary = summary_materials(store, ctx.standalone, ctx.scope.doc_ids, ctx.budget) if store else None
        missing = summary.missing if summary is not None else list(ctx.scope.doc_ids)
        if missing:
            ctx.meta["summary"] = {"missing": missing, "queued": queue_trees(knowledge, ctx, missing)}
        return summary

    @staticmethod
    def _extractive(ctx: QuestionContext, summary: SummaryContext) -> Answer:
        """No model: the tree's own summaries, cited by section and pages."""
        citations = []
        for n, material in enumerate(summary.materials, start=1):
            quote = next((s.strip() for s in split_sentences(material.text) if s.strip()), "")
            citations.append(citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")),
                                                    material.meta, quote))
        notes = summary_note(ctx.meta.get("summary", {}), ctx.catalog, ctx.language)
        text = "\n".join([*notes, summary.answer, based_on(ctx.scope, ctx.catalog, ctx.language)]).strip()
        assert ctx.failure is not None
        notice = notice_for(ctx.failure.reason, ctx.language, suffix="summary_suffix")
        metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog), "failure": {"kind": ctx.failure.reason}}
        return ctx.reply(text, citations, "extractive", notice, metadata)


def queue_trees(knowledge: Knowledge, ctx: QuestionContext, doc_ids: list[str]) -> bool:
    """Queue a ``summarise`` job for each document (unless its path has a live job: an index job queues its
    own summary); False when trees are not built in the background (``summary.on_index = "off"``)."""
    if knowledge.settings.summary.on_index == "off":
        return False
    jobs = knowledge.kb.jobs
    for doc_id in doc_ids:
        entry = ctx.catalog.get(doc_id)
        if entry is None:
            continue
        with jobs.registry.transaction():
            if jobs.live_for(entry.path) is None:
                jobs.enqueue_in_tx(entry.path, KIND_SUMMARISE, doc_id, False, "question")
    return True


__all__ = ["SummaryTree", "queue_trees"]
