"""Whole-document questions ("总结", "概括第四章", "overview") answered from the documents' summary trees; and a
report question on a topic ("有哪些风险", "发展战略是什么", "main risk factors") from the tree's sections on it
(``retrieval.report_sections``), not only its root: a report's root summary says little about its risks.

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
from retrieval.report_sections import asks_open, section_titles, topic_words
from retrieval.scope import Scope
from retrieval.section_quotes import section_chunks, section_quotes


class SummaryTree:
    """The summary trees of the documents in scope (declines when none has one: retrieval answers)."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None:
            return None
        titles = _topic_titles(ctx)
        if ctx.route != SUMMARY_ROUTE and not titles:
            return None
        scope = report_scope(knowledge, ctx) if ctx.route != SUMMARY_ROUTE else ctx.scope
        if not scope.doc_ids:
            return None
        summary = self._trees(knowledge, ctx, scope.doc_ids, titles)
        if summary is None or not summary.materials or (ctx.route != SUMMARY_ROUTE and not summary.topic):
            return None  # a topic the reports have no section on: retrieval answers (in the scope it was given)
        ctx.scope = scope
        ctx.meta["summary"] = {**ctx.meta.get("summary", {}), "named_sections": summary.named,
                               "extractive": summary.extractive, "tokens": summary.tokens}
        if summary.topic:
            ctx.meta["summary"]["topic_sections"] = summary.topic
            ctx.meta["route"] = {**ctx.meta.get("route", {}), "route": SUMMARY_ROUTE, "reason": "report topic"}
        if ctx.failure is not None:
            return self._extractive(ctx, knowledge, summary)
        ctx.extra.extend(summary.materials)
        if summary.topic_chunks:  # the sections' own items beside their summaries
            ctx.extra.extend(section_chunks(knowledge, summary.topic_chunks, topic_words(ctx.standalone)))
        scope = ctx.scope
        ctx.scope = Scope(scope.method, scope.doc_ids, scope.superseded, scope.matched, scope.unknown, retrieval=False)
        return None

    @staticmethod
    def _trees(knowledge: Knowledge, ctx: QuestionContext, doc_ids: list[str],
               titles: list[str]) -> SummaryContext | None:
        """The stored trees' materials; the documents without a tree are queued for the summariser."""
        store = knowledge.summaries()
        summary = summary_materials(store, ctx.standalone, doc_ids, ctx.budget, sections=titles) if store else None
        missing = summary.missing if summary is not None else list(doc_ids)
        if missing:
            ctx.meta["summary"] = {"missing": missing, "queued": queue_trees(knowledge, ctx, missing)}
        return summary

    @staticmethod
    def _extractive(ctx: QuestionContext, knowledge: Knowledge, summary: SummaryContext) -> Answer:
        """No model: the tree's own summaries, cited by section and pages; for a report topic, then the sentences
        of those sections that answer the question."""
        citations = []
        for n, material in enumerate(summary.materials, start=1):
            quote = next((s.strip() for s in split_sentences(material.text) if s.strip()), "")
            citations.append(citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")),
                                                    material.meta, quote))
        lines, quoted = section_quotes(knowledge, summary.topic_chunks, topic_words(ctx.standalone), len(citations))
        if lines:
            lines.insert(0, "\n章节原文摘录：" if ctx.language == "zh" else "\nFrom the sections' own text:")
            citations.extend(quoted)
        notes = summary_note(ctx.meta.get("summary", {}), ctx.catalog, ctx.language)
        text = "\n".join([*notes, summary.answer, *lines, based_on(ctx.scope, ctx.catalog, ctx.language)]).strip()
        assert ctx.failure is not None
        notice = notice_for(ctx.failure.reason, ctx.language, suffix="summary_suffix")
        metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog), "failure": {"kind": ctx.failure.reason}}
        return ctx.reply(text, citations, "extractive", notice, metadata)


def _is_report(ctx: QuestionContext, doc_id: str) -> bool:
    entry = ctx.catalog.get(doc_id)
    subject = entry.profile.subject if entry is not None else None
    return bool(subject and subject.kind)


def _topic_titles(ctx: QuestionContext) -> list[str]:
    """Section titles for a report-topic question (an open one, about reports), else none."""
    if not asks_open(ctx.standalone) or not any(_is_report(ctx, d) for d in ctx.catalog):
        return []
    return section_titles(ctx.standalone)


def report_scope(knowledge: Knowledge, ctx: QuestionContext) -> Scope:
    """The reports among the documents in scope; with none named, the top retrieved document when it is a report."""
    scope = ctx.scope
    if scope.method in ("named", "explicit"):
        reports = [d for d in scope.doc_ids if _is_report(ctx, d)]
        return Scope(scope.method, reports, scope.superseded, scope.matched, scope.unknown, retrieval=scope.retrieval)
    retrieved = knowledge.retrieved_scope(ctx.standalone, ctx.mode, ctx.catalog)
    return Scope("retrieved", [d for d in retrieved.doc_ids if _is_report(ctx, d)])


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


__all__ = ["SummaryTree", "queue_trees", "report_scope"]
