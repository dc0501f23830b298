"""Figure answers that decline to state a figure: an amount asked in a currency the report does not give it in (or
does not name), and the check that a question's words are printed near each other before "not in this report"
is said. Apart from ``answer`` so that module stays one job: finding and stating the figure."""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrieval.reports.facts import Fact, Report
from retrieval.reports.pick import ReportAnswer, cite
from retrieval.reports.question import Ask
from retrieval.reports.render import with_unit

__all__ = ["currency_refusal", "near"]

_PER_SHARE = re.compile(r"per\s*(?:common\s*|ordinary\s*)?share|每股|\beps\b", re.IGNORECASE)


def currency_refusal(report: Report, fact: Fact, ask: Ask, english: bool) -> ReportAnswer | None:
    """An amount asked in a currency the report does not give it in, or a report that does not say its
    currency: the printed figure is named as such, never passed off as the asked currency."""
    if ask.currency is None or fact.unit == "%":
        return None
    shown = with_unit(fact.text, fact.unit, english)
    page = f"page {fact.page}" if english else f"第 {fact.page} 页"
    if fact.currency == ask.currency:
        if fact.unit is not None or _PER_SHARE.search(fact.label) or abs(fact.value) < 1000:
            return None
        text = (  # "$ 20,445" in a statement whose caption says no unit: thousands or not cannot be told
            f"{report.name} prints {fact.label} as {shown} ({page}) without saying in which unit (thousands, "
            f"millions), so it is not given as an amount in {ask.currency}."
            if english
            else f"{report.name} 列示{fact.label}为 {shown}（{page}），但未说明单位，无法作为 {ask.currency} 金额给出。"
        )
        return ReportAnswer(text, "unit_unknown", "en" if english else "zh", [cite(report, fact)])
    if fact.currency is not None:
        text = (
            f"Not found in {ask.currency}: {report.name} gives {fact.label} in {fact.currency} ({shown}, {page})."
            if english
            else f"未找到以 {ask.currency} 计的数据：{report.name} 的{fact.label}以 {fact.currency} 列示"
            f"（{shown}，{page}）。"
        )
        kind = "not_in_report"
    else:
        text = (
            f"{report.name} prints {fact.label} as {shown} ({page}) but does not say in which currency, so it is not "
            f"given as {ask.currency}."
            if english
            else f"{report.name} 列示{fact.label}为 {shown}（{page}），但未说明币种，无法作为 {ask.currency} 给出。"
        )
        kind = "currency_unknown"
    return ReportAnswer(text, kind, "en" if english else "zh", [cite(report, fact)])


def near(text: str, words: Sequence[str], span: int = 160) -> bool:
    """Whether the text prints every word within ``span`` characters of each other, in any order: "how much
    cash did the group use in operating activities" is covered by "Net cash used in operating activities" of
    the group's cash-flow statement, which a phrase search for "cash group operating" missed."""
    rarest = min(words, key=text.count)
    for match in re.finditer(re.escape(rarest), text):
        window = text[max(0, match.start() - span) : match.end() + span]
        if all(w in window for w in words):
            return True
    return False
