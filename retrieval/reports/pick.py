"""Choosing among facts: the column a question names, the period it asks, the table to prefer, and what
a matched row leaves unexplained (shared by figure and computed answers)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from retrieval.reports.facts import Fact, Report
from retrieval.reports.lookup import column_term, role_rank, table_rank
from retrieval.reports.question import Ask

__all__ = ["Cited", "ReportAnswer", "cite", "column_filter", "for_year", "rank", "residual", "target_year"]

_STOP_ZH = (
    "年报中",
    "年报里",
    "年报",
    "报告中",
    "报告里",
    "年度报告",
    "哪一年",
    "哪年",
    "最高",
    "最低",
    "四个季度",
    "季度",
    "之和",
    "加总",
    "总和",
    "经追溯调整后",  # the restated column: preferred by for_year whenever a table prints both
    "追溯调整后",
    "调整后",
    "根据合并利润表",
    "根据",
    "合并利润表",
    "合并资产负债表",
    "合并",
    "截至报告期末",
    "截至",
    "截止",
    "报告期末",
    "报告期内",
    "报告期",
    "期末",
    "年末",
    "年底",
    "年初",
    "期初",
    "全年",
    "年度",
    "是多少",
    "为多少",
    "多少",
    "是什么",
    "是",
    "为",
    "的",
    "年",
    "度",
    "末",
    "公司",
    "产品",
    "行业",
    "业务",
    "板块",
    "分部",
    "实现",
    "情况",
    "请问",
    "合计",
    "总计",
    "数量",
    "金额",
    "人数",
    "人",
    "元",
    "股",
    "万元",
    "亿元",
    "百万元",
    "占",
    "比例",
    "比重",
    "了",
    "该",
    "其",
    "本",
    "上",
    "同比",
    "实际",
    "单独",
    "与",
    "相比",
    "较",
    "增长",
    "变化",
    "变动",
    "百分比",
    "约",
    "共",
    "有",
    "在职员工",
    "员工",
    "吨",
)
_STOP_EN = {
    "what",
    "was",
    "were",
    "is",
    "are",
    "the",
    "of",
    "in",
    "for",
    "at",
    "did",
    "how",
    "much",
    "many",
    "fiscal",
    "year",
    "total",
    "approximately",
    "does",
    "do",
    "have",
    "has",
    "company",
    "companys",
    "s",
    "its",
    "their",
    "during",
    "on",
    "to",
    "and",
    "or",
    "a",
    "an",
    "by",
    "from",
    "as",
    "per",
    "share",
    "reported",
    "report",
    "annual",
    "amount",
    "value",
    "figure",
    "december",
    "31",
    "end",
    "ended",
    "using",
    "table",
    "consolidated",
    "statements",
    "statement",
    "results",
    "operations",
    "results-of-operations",
    "over",
    "minus",
    "ratio",
    "spend",
    "spent",
    "which",
    "highest",
    "lowest",
    "change",
    "growth",
    "grow",
    "grew",
    "percent",
    "percentage",
    "million",
    "millions",
    "thousands",
    "billion",
    "c",
    "us",
    "usd",
    "cad",
    "net",
    "basic",
    "diluted",
    "segment",
    "loss",
    "income",
    "earnings",
    "about",
    "with",
    "what's",
    # the Enterprise RAG Challenge's phrasing of "the latest figure the report gives"
    "according",
    "within",
    "last",
    "latest",
    "period",
    "listed",
    "yearend",
    # "the Group" is what UK and Australian reports call the consolidated company; a balance's "carrying value" is
    # the amount the statement prints
    "group",
    "groups",
    "carrying",
    "parent",  # "the parent company's": the table to prefer (Ask.parent_company), not a metric word
    "entity",
    # the period words of "in the fourth quarter", "full-year 2022": read by read_question, not metric words
    "quarter",
    "first",
    "second",
    "third",
    "fourth",
    "full",
}


@dataclass(frozen=True, slots=True)
class Cited:
    """A source of the answer: the document, its page, the quoted table row with its caption."""

    path: str
    name: str
    page: int | None
    quote: str


@dataclass(slots=True)
class ReportAnswer:
    """An answer from report facts: its text, what kind of answer it is, and its sources."""

    text: str
    kind: str  # "figure" | "computed" | "not_in_report" | "currency_unknown" | "unit_unknown"
    language: str
    citations: list[Cited] = field(default_factory=list)
    value: str | None = None  # a figure answer's printed value (exact decimal) and its unit, for callers
    unit: str | None = None
    unsure: list[str] = field(default_factory=list)  # what the answer is not sure of ("statement"): handed over


def residual(question_key: str, covered: Sequence[str], english: bool, text: str = "") -> str:
    """What the question asks beyond the matched row: non-empty means the row may not answer it.

    ``text`` (English questions): the question with entity names removed but its spaces kept, so words
    can be told apart."""
    if english:
        keys = [c for c in covered if c]
        words = [
            w
            for w in re.findall(r"[a-z]+", text.lower())
            if w not in _STOP_EN and len(w) > 1 and not any(w in c for c in keys)
        ]
        return " ".join(words) if sum(len(w) for w in words) >= 4 else ""
    rest = question_key
    for part in sorted(covered, key=len, reverse=True):
        if part:
            rest = rest.replace(part, "")
    for stop in sorted(_STOP_ZH, key=len, reverse=True):
        rest = rest.replace(stop, "")
    rest = re.sub(r"[0-9]+", "", rest)
    return rest if len(rest) >= 2 else ""


def cite(report: Report, fact: Fact) -> Cited:
    caption = fact.caption or fact.section
    quote = f"{caption}: {fact.row}" if caption else fact.row
    return Cited(report.path, report.name, fact.page, quote)


def column_filter(facts: Sequence[Fact], question_key: str, ask: Ask) -> list[Fact]:
    """Facts under the column the question names (a share, a metric column), else the plain amount columns."""
    kept = [f for f in facts if f.period is None or not f.period.change]
    named = [f for f in kept if len(column_term(f.column)) >= 2 and column_term(f.column) in question_key]
    if named and not any(f.period is not None and f.period.share for f in named):
        # an amount column of a table whose caption names the asked metric ("营业收入构成") is named as well
        named += [
            f
            for f in kept
            if len(column_term(f.column)) < 2
            and not (f.period is not None and f.period.share)
            and any(column_term(n.column) in f.context_key for n in named)
        ]
    if named:
        return named
    plain = [f for f in kept if not (f.period is not None and f.period.share) and len(column_term(f.column)) < 2]
    return plain or [f for f in kept if not (f.period is not None and f.period.share)]


def target_year(ask: Ask, report: Report) -> int | None:
    if ask.years:
        return ask.years[-1]
    if report.year is not None and ask.prior:
        return report.year - 1
    return report.year


def for_year(facts: Sequence[Fact], year: int | None, report: Report, ask: Ask) -> list[Fact]:
    """The facts of the asked year, read from their columns' headers only.

    A column whose header names no period is used only in a table none of whose columns names one (a
    single-period table, such as the subsidiaries' figures): beside read columns its period is a guess from
    its position, and a change column between two years shifts positions. An annual question never takes a
    part-year column (a quarter, a half, nine months); a restated column is preferred to the one as first
    reported. In a table with no period columns, a row's values under headers that name nothing ("", "£'000")
    are used only when the row has one: with several, which is the year's cannot be told (a note number
    printed in a column of its own reads like a figure)."""
    periodic = _tables_with_periods(report)
    unnamed = Counter((f.table, f.row) for f in facts if f.period is None and len(column_term(f.column)) < 2)
    usable = [
        f
        for f in facts
        if f.period is not None
        or (f.table not in periodic and (len(column_term(f.column)) >= 2 or unnamed[(f.table, f.row)] == 1))
    ]
    matching = [
        f
        for f in usable
        if f.year(report.year) == year
        and (ask.quarter is None or (f.period is not None and f.period.quarter == ask.quarter))
    ]
    if ask.quarter is None:
        matching = [f for f in matching if f.period is None or not (f.period.quarter or f.period.partial)]
    if any(f.period is not None and f.period.restated == "after" for f in matching):
        matching = [f for f in matching if f.period is None or f.period.restated != "before"]
    if ask.year_end:
        return _prefer(matching, [f for f in matching if f.period is not None and f.period.point == "end"])
    return _prefer(matching, [f for f in matching if f.period is None or f.period.point is None])


def _prefer(matching: list[Fact], preferred: list[Fact]) -> list[Fact]:
    """The facts of the kind of column asked (a balance at year end, a flow over the year), and the others only
    from a better kind of table: "total assets in 2023" is the balance sheet's December 31, 2023 column, not a
    segment note's "2023" column that happens to be a flow column."""
    if not preferred:
        return matching
    best = min(role_rank(f) for f in preferred)
    kept = {id(f) for f in preferred}
    return [*preferred, *(f for f in matching if id(f) not in kept and role_rank(f) < best)]


def _tables_with_periods(report: Report) -> frozenset[int]:
    """The tables with at least one column whose header names a year or the report's own / prior period."""
    return frozenset(
        f.table
        for f in report.facts
        if f.period is not None and (f.period.year is not None or f.period.relative is not None)
    )


def rank(facts: Sequence[Fact], question_key: str, ask: Ask) -> list[Fact]:
    return sorted(facts, key=lambda f: table_rank(f, question_key, ask.parent_company))
