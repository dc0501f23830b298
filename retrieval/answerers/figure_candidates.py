"""With a model: a figure question about a named company's report that no rule settled gets that report's
candidate rows as a material, ahead of the retrieved chunks: the stored facts' rows (row, period column, value
and unit as printed, table, page), then the printed lines holding a number and the metric's words (statement
pages first); this answerer never answers.

Why here, after the report-facts and named-facts answerers: when they answered completely the walk has ended;
when they declined or handed over, the model answers, and retrieval alone often misses the statement page that
prints the figure (``retrieval.reports.candidates`` and ``retrieval.reports.text_rows`` say why). Without a
model nothing is added: the extractive fallback quotes retrieved sentences, and candidate rows shown there would
read as an answer.
"""

from __future__ import annotations

from prompts.assembler import Material
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.named_facts.question import wanted_fields
from retrieval.placing import SUMMARY_ROUTE
from retrieval.reports.answer import asks_for_figure
from retrieval.reports.answerer import ReportCache
from retrieval.reports.candidates import candidate_rows, group_label, named_reports, page_groups, question_terms
from retrieval.reports.entities import aliases
from retrieval.reports.facts import Report
from retrieval.reports.text_rows import text_rows

__all__ = ["FigureCandidates"]

#: The share of the materials' budget the candidate rows of all reports may take: the retrieved chunks keep
#: the rest (the figure's own sentence, a note the rows do not cover).
SHARE = 0.25
#: At most this many reports' rows (a question comparing two companies names two).
MAX_REPORTS = 2
#: Printed lines per report, after the facts' rows.
MAX_LINES = 8


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
        targets = self._targets(ctx, knowledge)
        room = max(ctx.budget, 0) * SHARE / max(len(targets), 1)
        for doc_id, report in targets:
            ctx.extra.extend(self._materials(ctx, knowledge, doc_id, report, room))
        return None

    def _targets(self, ctx: QuestionContext, knowledge: Knowledge) -> list[tuple[str, Report | None]]:
        """The documents the question is about, with their report facts when they have any: those of a named or
        given scope, else the reports whose company the question names (never a document merely retrieved: its
        rows would be another company's)."""
        scoped = ctx.scope.method in ("named", "explicit")
        candidates = ctx.scope.doc_ids if scoped else [d for d in ctx.catalog if d not in knowledge.superseded]
        doc_ids = [d for d in candidates if _is_report(ctx, d)]
        pairs = [(d, ctx.catalog[d].path) for d in doc_ids]
        reports = {r.path: r for r in self.cache.reports(knowledge.kb, pairs, shown=knowledge.paths.shown)}
        if scoped and len(doc_ids) <= MAX_REPORTS:
            return [(d, reports.get(path)) for d, path in pairs]
        named = {r.path for r in named_reports(ctx.standalone, list(reports.values()))}
        found: list[tuple[str, Report | None]] = [(d, reports[path]) for d, path in pairs if path in named]
        return found[:MAX_REPORTS]

    @staticmethod
    def _materials(
        ctx: QuestionContext, knowledge: Knowledge, doc_id: str, report: Report | None, room: float
    ) -> list[Material]:
        """One material per page holding candidate lines, best page first, all together within ``room``."""
        entry = ctx.catalog[doc_id]
        subject = entry.profile.subject
        names = aliases(report) if report is not None else []
        names += [n for n in (ctx.scope.matched.get(doc_id), subject.entity if subject else "", entry.title) if n]
        rows = candidate_rows(ctx.standalone, report) if report is not None else []
        parsed = knowledge.kb.documents.get(doc_id)
        words, grams = question_terms(ctx.standalone, names)
        lines = text_rows(parsed.blocks, words, grams, MAX_LINES) if parsed is not None else []
        shown = report.name if report is not None else knowledge.paths.shown(entry.path)
        english = ctx.language == "en"
        groups = page_groups(rows, lines, english, lambda t: ctx.tools.count(t) <= room)
        found = []
        for group in groups:
            meta = {"doc_id": doc_id, "path": entry.path, "page": group.page, "kind": "report_facts"}
            label = group_label(shown, group, english)
            found.append(
                Material("\n".join(group.lines), label, 1.0, f"candidates:{doc_id}:{group.page}", shown, meta=meta)
            )
        return found


def _is_report(ctx: QuestionContext, doc_id: str) -> bool:
    """A document whose profile names a company and a report kind (a notice or a handbook holds no statements)."""
    entry = ctx.catalog.get(doc_id)
    subject = entry.profile.subject if entry is not None else None
    return bool(subject and subject.kind)
