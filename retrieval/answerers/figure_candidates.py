"""With a model: a figure question about a named company's report that no rule settled gets that report's
candidate rows (row, period column, value and unit as printed, table, page) as a material, ahead of the
retrieved chunks; this answerer never answers.

Why here, after the report-facts and named-facts answerers: when they answered completely the walk has ended;
when they declined or handed over, the model answers, and retrieval alone often misses the statement page that
prints the figure (``retrieval.reports.candidates`` says why). Without a model nothing is added: the extractive
fallback quotes retrieved sentences, and candidate rows shown there would read as an answer.
"""

from __future__ import annotations

from prompts.assembler import Material
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.named_facts.question import wanted_fields
from retrieval.placing import SUMMARY_ROUTE
from retrieval.reports.answer import asks_for_figure
from retrieval.reports.answerer import ReportCache
from retrieval.reports.candidates import candidate_rows, named_reports, render_rows
from retrieval.reports.facts import Report

__all__ = ["FigureCandidates"]

#: The share of the materials' budget the candidate rows of all reports may take: the retrieved chunks keep
#: the rest (the figure's own sentence, a note the rows do not cover).
SHARE = 0.25
#: At most this many reports' rows (a question comparing two companies names two).
MAX_REPORTS = 2


class FigureCandidates:
    """Adds the candidate rows of the reports a figure question names to the model's materials; never answers."""

    def __init__(self) -> None:
        self.cache = ReportCache()

    def answer(self, ctx: QuestionContext) -> None:
        knowledge = knowledge_of(ctx)
        if ctx.failure is not None or ctx.tools.generator is None or knowledge is None or not ctx.catalog:
            return None
        question = ctx.standalone
        if ctx.route == SUMMARY_ROUTE or not asks_for_figure(question) or wanted_fields(question):
            return None  # a named fact (auditor, CEO) is no row of a table
        reports = self._reports(ctx, knowledge)
        room = max(ctx.budget, 0) * SHARE / max(len(reports), 1)
        english = ctx.language == "en"
        for doc_id, report in reports:
            rows = candidate_rows(question, report)
            text = render_rows(report, rows, english, lambda t: ctx.tools.count(t) <= room) if rows else ""
            if text:
                ctx.extra.append(_material(doc_id, report, text, [r.page for r in rows]))
        return None

    def _reports(self, ctx: QuestionContext, knowledge: Knowledge) -> list[tuple[str, Report]]:
        """The reports the question is about: those in a named or given scope, else those whose company the
        question names (never a report merely retrieved: its rows would be another company's)."""
        if ctx.scope.method in ("named", "explicit"):
            doc_ids = [d for d in ctx.scope.doc_ids if d in ctx.catalog]
        else:
            doc_ids = [d for d in ctx.catalog if d not in knowledge.superseded]
        pairs = [(d, ctx.catalog[d].path) for d in doc_ids]
        reports = self.cache.reports(knowledge.kb, pairs, shown=knowledge.paths.shown)
        ids = {path: doc_id for doc_id, path in pairs}
        if ctx.scope.method not in ("named", "explicit") or len(reports) > MAX_REPORTS:
            reports = named_reports(ctx.standalone, reports)
        return [(ids[r.path], r) for r in reports[:MAX_REPORTS] if r.path in ids]


def _material(doc_id: str, report: Report, text: str, pages: list[int | None]) -> Material:
    """One material citing the report's first candidate page (the model's [n] resolves to it)."""
    shown = sorted({p for p in pages if p is not None})
    meta = {"doc_id": doc_id, "path": report.path, "page": shown[0] if shown else None, "kind": "report_facts"}
    label = f"{report.name} · p. {', '.join(map(str, shown[:6]))}" if shown else report.name
    return Material(text, label, 1.0, f"candidates:facts:{doc_id}", report.name, meta=meta)
