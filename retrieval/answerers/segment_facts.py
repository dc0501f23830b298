"""Revenue by segment, product or region ("营业收入按产品和地区是如何构成的", "医药和染料两个板块的收入情况如何"):
the rows of the report's composition table for its year, from its facts (``retrieval.reports.segments``), each with
its share and change and cited with its page. With a model, the rows are one more of its materials and this
answerer declines; a report without such a table leaves the question to the summary tree and retrieval.
"""

from __future__ import annotations

from prompts.assembler import Material
from retrieval.answer_texts import based_on
from retrieval.answerers.handover import complete_or_hand_over, one_ask
from retrieval.answerers.report_in_scope import first_report
from retrieval.answering import Answer
from retrieval.citations import Citation
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.reports.answerer import ReportCache
from retrieval.reports.facts import Report
from retrieval.reports.segments import SegmentRow, asks_segments, segment_rows

__all__ = ["SegmentFacts"]


class SegmentFacts:
    """The composition table's rows of the report in scope, or declines."""

    def __init__(self) -> None:
        self.cache = ReportCache()

    def answer(self, ctx: QuestionContext) -> Answer | None:
        """The rows, one citation per page; with a model, the rows added to its materials and None."""
        knowledge = knowledge_of(ctx)
        if knowledge is None or not ctx.catalog or not asks_segments(ctx.standalone):
            return None
        found = first_report(self.cache, knowledge, ctx)
        if found is None:
            return None
        scope, doc_id, report = found
        rows = segment_rows(report, ctx.standalone)
        if not rows:
            return None
        english = ctx.language == "en"
        ctx.scope = scope
        lines = [_heading(report, rows, english)]
        pages = sorted({r.amount.page for r in rows if r.amount.page is not None})
        numbers = {page: n for n, page in enumerate(pages, start=1)}
        lines += [f"- {r.line(english)} [{numbers[r.amount.page]}]" if r.amount.page in numbers else
                  f"- {r.line(english)}" for r in rows]
        if ctx.failure is None:  # a model writes the answer: the rows are one more of its materials
            ctx.extra.append(Material("\n".join(lines), f"{report.name} · p. {', '.join(map(str, pages))}", 1.0,
                                      f"segments:{doc_id}", report.name,
                                      meta={"doc_id": doc_id, "path": report.path,
                                            "page": pages[0] if pages else None}))
            return None
        citations = [Citation(file=report.path, page=page, n=n, doc_id=doc_id,
                              document=report.name, quote=_quote(rows, page)) for page, n in numbers.items()]
        lines.append(based_on(ctx.scope, ctx.catalog, ctx.language))
        metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog), "segment_facts": {"rows": len(rows)}}
        answer = ctx.reply("\n".join(lines).strip(), citations, "extractive", metadata=metadata)
        return complete_or_hand_over(ctx, answer, one_ask(ctx.standalone), "segment_facts")


def _heading(report: Report, rows: list[SegmentRow], english: bool) -> str:
    """The line above the rows: the report, its year and the table's caption as printed."""
    caption = rows[0].amount.caption.strip()
    year = f" {report.year}" if report.year else ""
    if english:
        return f"Revenue composition of {report.name}{year} ({caption}, as printed):"
    return f"{report.name}{year} 年{caption or '营业收入构成'}（按报告原文）："


def _quote(rows: list[SegmentRow], page: int) -> str:
    """The first printed row on ``page``: the citation's quote."""
    return next((r.amount.row for r in rows if r.amount.page == page and r.amount.row), "")
