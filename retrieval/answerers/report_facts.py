"""Figure, computed and not-in-report questions about reports, answered from the facts stored at indexing
(``retrieval/reports``), with no model: the printed figure with its unit, page and quoted row; a ratio or
growth rate with its formula and inputs; "not in this report" with the periods it covers.

Which reports: the documents the question names or the caller gave; otherwise every indexed report (the
newest version of each), of which only those whose company the question names are used: a question that
names no company is not taken to be about a report (a knowledge base holds other files too).
Summary-route questions are left to the summary tree.
"""

from __future__ import annotations

from retrieval.answerers.handover import complete_or_hand_over, one_ask
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.named_facts.share_class import asks_class_code
from retrieval.placing import SUMMARY_ROUTE
from retrieval.reports.answerer import ReportCache, answer_with_facts
from retrieval.reports.candidates import disagreeing


class ReportFacts:
    """Answers from the stored report facts of the documents in scope, or declines."""

    def __init__(self) -> None:
        self.cache = ReportCache()

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or not ctx.catalog or ctx.route == SUMMARY_ROUTE or asks_class_code(ctx.standalone):
            return None  # a share class's code is a named fact (the named-facts answerer checks the class)
        scoped = bool(ctx.scope.doc_ids) and ctx.scope.method in ("named", "explicit")
        if scoped:
            doc_ids = [d for d in ctx.scope.doc_ids if d in ctx.catalog]
        else:
            doc_ids = [d for d in ctx.catalog if d not in knowledge.superseded]
        documents = {d: ctx.catalog[d].path for d in doc_ids}
        # the scope goes with the answer as with every other answerer's (which documents, and why)
        metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog)}
        answer = answer_with_facts(knowledge.kb, self.cache, ctx.question, ctx.standalone, ctx.language, documents,
                                   metadata=metadata, shown=knowledge.paths.shown, scoped=scoped)
        if answer is None:
            return None
        # one figure, one computation or one "not in this report": a question asking more is handed over, and so
        # is a figure the facts were unsure of (a synonym's row outside the statements)
        resolution = one_ask(ctx.standalone)
        resolution.unsure.extend(answer.metadata.get("report_facts", {}).get("unsure", []))
        if self._contradicted(ctx, knowledge, answer):
            resolution.unsure.append("tables")  # another table prints the metric for the period otherwise
        return complete_or_hand_over(ctx, answer, resolution, "report_facts")

    def _contradicted(self, ctx: QuestionContext, knowledge: Knowledge, answer: Answer) -> bool:
        value = answer.metadata.get("report_facts", {}).get("value")
        cited = answer.citations[0] if len(answer.citations) == 1 else None
        if value is None or cited is None or cited.doc_id not in ctx.catalog:
            return False
        found = self.cache.reports(knowledge.kb, [(cited.doc_id, ctx.catalog[cited.doc_id].path)],
                                   shown=knowledge.paths.shown)
        return bool(found) and disagreeing(ctx.standalone, found[0], str(value), cited.page) is not None


__all__ = ["ReportFacts"]
