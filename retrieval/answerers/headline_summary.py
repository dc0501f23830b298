"""Business-overview and financial-performance summaries of a report ("概括…经营情况", "总结…财务表现",
"经营情况讨论与分析讲了什么", "Summarize … financial performance"): the report's headline figures first, from its
facts, with units and pages (``retrieval.reports.headline``), then the prose of its operations section (一、概述,
经营情况讨论与分析, Results of Operations; ``retrieval.section_prose``), each sentence cited.

Why before the summary tree: the tree's extractive summary of such a section is mostly table text and misses the
headline figures a reader looks for first. With a model, the headline figures go to it as one more material (the
summary tree then adds its sections) and this answerer declines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from indexing.summary import summary_materials
from officeqa.words import phrase_table
from prompts.assembler import Material
from retrieval.answer_texts import based_on
from retrieval.answerers.handover import complete_or_hand_over, one_ask
from retrieval.answerers.report_in_scope import first_report
from retrieval.answering import Answer, material_from_hit
from retrieval.citations import Citation, citation_from_metadata
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.reports.answerer import ReportCache
from retrieval.reports.facts import Report
from retrieval.reports.headline import Headline, headline_figures
from retrieval.section_prose import section_sentences

__all__ = ["HeadlineSummary", "asks_overview"]

_SUMMARISE = re.compile(
    r"概括|总结|概述|简述|归纳|介绍|讲了什么|说了什么|表现如何|表现怎么样|情况如何|怎么样|summari[sz]e|overview|"
    r"\bdescribe\b|\breview\b|how\s+did\s+.+\s+(?:perform|do)\b",
    re.IGNORECASE,
)
_PERFORMANCE = re.compile(
    r"经营情况|经营状况|经营成果|经营业绩|财务表现|财务状况|财务指标|财务数据|业绩|"
    r"financial\s+(?:performance|results|highlights)|results\s+of\s+operations|operating\s+results|"
    r"business\s+performance|\bperform",
    re.IGNORECASE,
)
#: "Summarize X's 2022 results", "... the 2022 year", "... year to 30 June 2022": the year a report covers, as a
#: whole. Read only with a model (its materials gain the year's figures and review); without one, the summary
#: tree's own answer to such a question holds more of its points than the headline figures do.
_YEAR = re.compile(r"\bresults\b|\b(?:19|20)\d\d\s+year\b|\byear\s+(?:to|ended|ending)\b", re.IGNORECASE)
_AMOUNT = re.compile(r"多少|几[个项家年]|金额|比例|占比|增长率|how\s+much|how\s+many|\bpercent|\bratio\b",
                     re.IGNORECASE)


def asks_overview(question: str) -> bool:
    """A request to summarise how the business or its finances did, not for one amount."""
    return bool(_SUMMARISE.search(question) and _PERFORMANCE.search(question)) and not _AMOUNT.search(question)


def asks_year(question: str) -> bool:
    """An overview, or a request to summarise the year or its results (what a model is given the review for)."""
    return asks_overview(question) or (
        bool(_SUMMARISE.search(question) and _YEAR.search(question)) and not _AMOUNT.search(question))


@cache
def _operations_titles() -> tuple[str, ...]:
    """The titles an operations section is printed under (``report_sections.txt``, key ``operations``)."""
    return tuple(phrase_table("report_sections").get("title", {}).get("operations", ()))


class HeadlineSummary:
    """Headline figures and the operations section's prose of the report in scope, or declines."""

    def __init__(self) -> None:
        self.cache = ReportCache()

    def answer(self, ctx: QuestionContext) -> Answer | None:
        """The extractive summary; with a model, the figures added to its materials and None."""
        knowledge = knowledge_of(ctx)
        asked = asks_overview(ctx.standalone) or (ctx.failure is None and asks_year(ctx.standalone))
        if knowledge is None or not ctx.catalog or not asked:
            return None
        found = first_report(self.cache, knowledge, ctx)
        if found is None:
            return None
        scope, doc_id, report = found
        english = ctx.language == "en"
        figures = headline_figures(report, english)
        if ctx.failure is None:  # a model writes the summary: the figures and the year's prose are materials
            prose = _prose_materials(ctx, knowledge, doc_id)
            if figures or prose:
                ctx.scope = scope
                ctx.extra.extend([_material(doc_id, report, figures, english)] if figures else [])
                ctx.extra.extend(prose)
            return None
        if not figures:
            return None
        ctx.scope = scope
        answer = self._extractive(ctx, knowledge, doc_id, report, figures)
        return complete_or_hand_over(ctx, answer, one_ask(ctx.standalone), "headline_summary")

    @staticmethod
    def _extractive(ctx: QuestionContext, knowledge: Knowledge, doc_id: str, report: Report,
                    figures: list[Headline]) -> Answer:
        english = ctx.language == "en"
        lines = [_heading(report, english)]
        citations: list[Citation] = []
        for n, figure in enumerate(figures, start=1):
            cited = figure.cited
            citations.append(Citation(file=cited.path, page=cited.page, n=n, doc_id=doc_id, document=cited.name,
                                      quote=cited.quote))
            lines.append(f"- {figure.line} [{n}]")
        prose = _prose(ctx, knowledge, doc_id, len(citations), citations)
        if prose:
            lines += ["", "What the report says about the year:" if english else "报告对经营情况的说明：", *prose]
        lines.append(based_on(ctx.scope, ctx.catalog, ctx.language))
        metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog),
                    "headline_summary": {"figures": len(figures), "sentences": len(prose)}}
        return ctx.reply("\n".join(lines).strip(), citations, "extractive", metadata=metadata)


def _heading(report: Report, english: bool) -> str:
    """The line above the figures: the report, its year, and that they are quoted as printed."""
    year = f" {report.year}" if report.year else ""
    if english:
        return f"Headline figures of {report.name}{year} (as printed, with pages):"
    return f"{report.name}{year} 年主要财务数据（按报告原文，含页码）："


def _prose(ctx: QuestionContext, knowledge: Knowledge, doc_id: str, offset: int,
           citations: list[Citation]) -> list[str]:
    """The operations sections' sentences as lines, one citation per chunk (appended to ``citations``)."""
    store = knowledge.summaries()
    if store is None:
        return []
    summary = summary_materials(store, ctx.standalone, [doc_id], ctx.budget or 4096, sections=_operations_titles())
    numbers: dict[str, int] = {}
    lines: list[str] = []
    for sentence, chunk_id, meta in section_sentences(knowledge, summary.topic_chunks):
        if chunk_id not in numbers:
            numbers[chunk_id] = offset + len(numbers) + 1
            citations.append(citation_from_metadata(numbers[chunk_id], chunk_id, doc_id, meta, sentence))
        lines.append(f"- {sentence} [{numbers[chunk_id]}]")
    return lines


def _prose_materials(ctx: QuestionContext, knowledge: Knowledge, doc_id: str) -> list[Material]:
    """For a model: the chunks of the report's operations sections (review of the year, MD&A overview), where a
    summary's own figures and events are told; the tree's root summary of a report is mostly its cover."""
    store = knowledge.summaries()
    if store is None:
        return []
    summary = summary_materials(store, ctx.standalone, [doc_id], ctx.budget or 4096, sections=_operations_titles())
    ids = list(dict.fromkeys(summary.topic_chunks))[:_PROSE_CHUNKS]
    fetched = knowledge.kb.fetch(ids) if ids else {}
    return [material_from_hit(_Chunk(c, doc_id, *fetched[c])) for c in ids if c in fetched]


#: Chunks of the operations sections handed to a model (the assembler's budget still decides what fits).
_PROSE_CHUNKS = 6


@dataclass(frozen=True, slots=True)
class _Chunk:
    """A stored chunk as a search hit (what a material is made from)."""

    chunk_id: str
    doc_id: str
    text: str
    metadata: Mapping[str, Any]
    score: float = 1.0


def _material(doc_id: str, report: Report, figures: list[Headline], english: bool) -> Material:
    """The figures as one model material, each with its page, cited as the report's facts."""
    pages = sorted({f.cited.page for f in figures if f.cited.page is not None})
    text = "\n".join([_heading(report, english), *(f"- {f.line} (p. {f.cited.page})" for f in figures)])
    meta = {"doc_id": doc_id, "path": report.path, "page": pages[0] if pages else None, "kind": "report_facts"}
    return Material(text, f"{report.name} · p. {', '.join(map(str, pages))}", 1.0, f"facts:{doc_id}", report.name,
                    meta=meta)
