"""A report's headline figures: what a reader expects first in "概括…经营情况", "总结…财务表现", "Summarize … financial
performance": revenue, net profit attributable to shareholders, operating cash flow, earnings per share, total and
net assets (Adjusted EBITDA in English reports), each with its unit and page, and its change against the prior
year as the same row prints it (else computed from the prior year's figure in that row).

Why through the figure answerer: each headline figure is a figure question about the report's own year ("2019年营业
收入是多少？"); asking it that way reuses the metric synonyms, the key-data table preference, consolidated over
parent-company tables and the unit reading, so a summary never states a figure the figure path would not.
A figure printed without a unit (a statement in thousands whose caption was not read) is left out: a bare
"81,708" beside figures in millions misleads.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from retrieval.reports.answer import answer_from_facts
from retrieval.reports.facts import Fact, Report
from retrieval.reports.pick import Cited
from retrieval.reports.render import format_amount, with_unit

__all__ = ["Headline", "headline_figures"]

_ZH = ("营业收入", "归属于上市公司股东的净利润", "经营活动产生的现金流量净额", "基本每股收益", "总资产",
       "归属于上市公司股东的净资产")
_EN = ("revenue", "net income", "Adjusted EBITDA", "cash flows from operating activities",
       "basic earnings per share", "total assets")
_PER_SHARE = ("每股", "per share")


@dataclass(frozen=True, slots=True)
class Headline:
    """One headline figure as a sentence, and where it is printed."""

    line: str
    cited: Cited


def headline_figures(report: Report, english: bool) -> list[Headline]:
    """The report's headline figures for its own year, in reading order; empty when its facts give none."""
    found: list[Headline] = []
    for metric in _EN if english else _ZH:
        fact, cited = _figure(report, metric, english)
        if fact is None or cited is None:
            continue
        if not fact.unit and not any(word in fact.label.lower() for word in _PER_SHARE):
            continue
        line = _line(fact, _change(report, fact, english), english)
        if all(h.line != line for h in found):
            found.append(Headline(line, cited))
    return found


def _figure(report: Report, metric: str, english: bool) -> tuple[Fact | None, Cited | None]:
    """The fact the figure answerer gives for ``metric`` in the report's year, and its citation."""
    if report.year is None:
        return None, None
    question = f"What was {metric} in fiscal {report.year}?" if english else f"{report.year}年{metric}是多少？"
    result = answer_from_facts(question, [report], "en" if english else "zh", scoped=True)
    if result is None or result.kind != "figure" or result.value is None or not result.citations:
        return None, None
    cited = result.citations[0]
    value = Decimal(result.value)
    fact = next((f for f in report.facts if f.value == value and f.page == cited.page and not _side(f)), None)
    return fact, cited


def _side(fact: Fact) -> bool:
    """A change or share column: never the figure itself."""
    return fact.period is not None and (fact.period.change or fact.period.share)


def _change(report: Report, fact: Fact, english: bool) -> str:
    """Against the prior year: the printed change column of the row (a percentage), else computed from the
    prior year's figure in the row when both are positive, else that figure; empty when the row has none."""
    row = [f for f in report.facts if f.table == fact.table and f.key == fact.key and f.page == fact.page]
    printed = next((f for f in row if f.period is not None and f.period.change and f.text.endswith("%")), None)
    if printed is not None:
        return f"change {printed.text}" if english else f"比上年增减 {printed.text}"
    year = fact.year(report.year)
    prior = next((f for f in row if not _side(f) and year is not None and f.year(report.year) == year - 1), None)
    if prior is None:
        return ""
    shown = with_unit(prior.text, prior.unit, english)
    if fact.value > 0 and prior.value > 0:
        rate = (fact.value / prior.value - 1) * 100
        if english:
            return f"{'up' if rate >= 0 else 'down'} {format_amount(abs(rate))}% from {shown} the year before"
        return f"比上年（{shown}）增减 {format_amount(rate)}%"
    return f"the year before {shown}" if english else f"上年 {shown}"


def _line(fact: Fact, change: str, english: bool) -> str:
    shown = with_unit(fact.text, fact.unit, english)
    period = f" ({fact.column.strip()})" if english and fact.column.strip() else ""
    if english:
        return f"{fact.label}{period}: {shown}" + (f", {change}" if change else "")
    column = f"（{fact.column.strip()}）" if fact.column.strip() else ""
    return f"{fact.label}{column}：{shown}" + (f"，{change}" if change else "")
