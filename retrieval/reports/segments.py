"""A report's revenue by segment, product or region for its own year, from the facts of its composition table
(营业收入构成 分行业 / 分产品 / 分地区; "revenue by segment"): each row's amount with its unit, its share of revenue
and its change against the prior year as printed, grouped as the table groups them, with pages.

Why from the facts: a question such as "营业收入按产品和地区是如何构成的" or "医药和染料两个板块的收入情况如何" is
answered by a table's rows, which a section's extractive summary does not list; the facts hold every row exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.reports.facts import Fact, Report
from retrieval.reports.render import with_unit

__all__ = ["SegmentRow", "asks_segments", "segment_rows"]

_ASK = re.compile(r"分行业|分产品|分地区|按行业|按产品|按地区|板块|业务线|产品线|构成|by\s+(?:segment|product|region)|"
                  r"segments?\b|product\s+lines?|business\s+lines?", re.IGNORECASE)
_REVENUE = re.compile(r"收入|营收|销售额|revenue|net\s+sales|\bsales\b", re.IGNORECASE)
_AMOUNT = re.compile(r"多少|金额是|how\s+much|how\s+many", re.IGNORECASE)
_TABLE = re.compile(r"营业收入构成|收入构成|revenue\s+by|segment\s+(?:revenue|information|results)", re.IGNORECASE)
#: Question word -> the group header words it selects ("分产品", "分地区", "分行业").
_GROUPS = {"产品": "产品", "product": "产品", "地区": "地区", "region": "地区", "行业": "行业", "板块": "行业",
           "segment": "行业"}


@dataclass(frozen=True, slots=True)
class SegmentRow:
    """One row of the composition table for the report's year."""

    group: str
    amount: Fact
    share: Fact | None
    change: Fact | None

    def line(self, english: bool) -> str:
        shown = with_unit(self.amount.text, self.amount.unit, english)
        extra = [f"share {self.share.text}" if english else f"占营业收入 {self.share.text}"] if self.share else []
        if self.change is not None:
            extra.append(f"change {self.change.text}" if english else f"同比增减 {self.change.text}")
        group = f"{self.group} · " if self.group else ""
        detail = (f" ({'; '.join(extra)})" if english else f"（{'；'.join(extra)}）") if extra else ""
        return f"{group}{self.amount.label}{': ' if english else '：'}{shown}{detail}"


def asks_segments(question: str) -> bool:
    """A question about revenue by segment, product or region, not for one amount."""
    return bool(_ASK.search(question) and _REVENUE.search(question)) and not _AMOUNT.search(question)


def segment_rows(report: Report, question: str) -> list[SegmentRow]:
    """The composition table's rows for the report's year, of the groups the question names (all when none)."""
    facts = [f for f in report.facts if _TABLE.search(f"{f.caption} {f.section}")]
    if not facts or report.year is None:
        return []
    table = max({f.table for f in facts}, key=lambda t: sum(f.table == t for f in facts))
    own = [f for f in facts if f.table == table]
    amounts = [f for f in own if f.period is not None and not (f.period.change or f.period.share)
               and f.year(report.year) == report.year and f.parent]
    wanted = {group for word, group in _GROUPS.items() if word in question.lower()}
    named = {f.parent for f in amounts if f.label in question}
    rows = []
    for fact in amounts:
        group = fact.parent or ""
        if wanted and not any(w in group for w in wanted) and group not in named:
            continue
        rows.append(SegmentRow(group, fact, _beside(own, fact, share=True, year=report.year),
                               _beside(own, fact, share=False, year=None)))
    return rows


def _beside(facts: list[Fact], amount: Fact, share: bool, year: int | None) -> Fact | None:
    """The share (in the amount's year) or the change column of the amount's row."""
    for fact in facts:
        if fact.key != amount.key or fact.parent != amount.parent or fact.period is None:
            continue
        if share and fact.period.share and not fact.period.change and fact.year(year) == amount.year(year):
            return fact
        if not share and fact.period.change:
            return fact
    return None
