"""Metrics the report does not print, computed exactly from its facts with the formula and every input shown:
毛利率 / gross margin, 净利率 / net margin, 资产负债率 / liabilities to assets, 费用率, 同比增长 / YoY change,
which year was highest or lowest, the sum of the four quarters.

Why inputs from one table where possible: revenue and cost of sales from the same income statement (and
the same column) are the pair the ratio means; mixing the key-data table with a segment table is how a
"right-looking" ratio goes wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from indexing.reports.labels import label_key
from retrieval.reports.facts import Fact, Report
from retrieval.reports.lookup import best_matches, group_words, names_table, role_rank
from retrieval.reports.metrics import canonical_of
from retrieval.reports.pick import ReportAnswer, cite, column_filter, for_year, rank, residual, target_year
from retrieval.reports.question import Ask
from retrieval.reports.render import with_unit

__all__ = ["RATIOS", "answer"]

# name -> (question terms, numerator metrics (minus the rest), denominator metric, zh name, en name)
RATIOS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, str, str]] = {
    "gross_margin": (
        ("毛利率", "grossmargin", "grossprofitmargin"),
        ("revenue", "cost_of_revenue"),
        "revenue",
        "毛利率",
        "gross margin",
    ),
    "net_margin": (
        ("净利率", "销售净利率", "netmargin", "netprofitmargin"),
        ("net_income",),
        "revenue",
        "净利率",
        "net margin",
    ),
    "debt_ratio": (
        ("资产负债率", "liabilitiestototalassets", "debttoassets", "debtratio", "负债率"),
        ("total_liabilities",),
        "total_assets",
        "资产负债率",
        "total liabilities to total assets",
    ),
    "selling_rate": (("销售费用率",), ("selling_expense",), "revenue", "销售费用率", "selling expense ratio"),
    "admin_rate": (("管理费用率",), ("admin_expense",), "revenue", "管理费用率", "administrative expense ratio"),
    "rd_rate": (("研发费用率",), ("rd_expense",), "revenue", "研发费用率", "R&D expense ratio"),
    "period_expense_rate": (
        ("期间费用率", "费用率"),
        ("selling_expense", "admin_expense", "rd_expense", "finance_expense"),
        "revenue",
        "期间费用率",
        "operating expense ratio",
    ),
}
_HUNDRED = Decimal(100)
_ADDED = {"period_expense_rate"}


def _pct(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)}%"


def _metric_facts(report: Report, name: str, year: int | None, ask: Ask, question_key: str, raw_key: str) -> list[Fact]:
    facts = [f for f in report.facts if canonical_of(f.label) == name and not f.parent_company]
    named_group = [f for f in facts if any(w in raw_key and w not in f.key for w in group_words(f.parent))]
    facts = named_group or facts
    if name == "revenue":  # 营业收入 under 营业总收入 is the same line; prefer the plain revenue row
        facts = facts or [f for f in report.facts if canonical_of(f.label) == name]
    facts = column_filter(facts, question_key, ask)
    plain = Ask(
        years=(),
        quarter=None,
        year_end=name in ("total_assets", "total_liabilities"),
        prior=False,
        growth=False,
        highest=False,
        lowest=False,
        quarters_sum=False,
        unit=None,
        parent_company=False,
        english=ask.english,
    )
    return rank(for_year(facts, year, report, plain), question_key, ask)


def _same_table(options: Sequence[list[Fact]]) -> list[Fact] | None:
    """One fact per input, all from the best table that has every input, else each input's best fact."""
    if any(not o for o in options):
        return None
    tables = [{f.table for f in o} for o in options]
    common = set.intersection(*tables)
    if common:
        ordered = [f.table for f in options[0] if f.table in common]
        best = ordered[0]
        return [next(f for f in o if f.table == best) for o in options]
    return [o[0] for o in options]


def _inputs_text(report: Report, facts: Sequence[tuple[str, Fact]], english: bool) -> str:
    parts = []
    for name, fact in facts:
        where = f"page {fact.page}" if english else f"第 {fact.page} 页"
        source = fact.caption or fact.section
        parts.append(f"{name} {with_unit(fact.text, fact.unit, english)} ({where}{', ' + source if source else ''})")
    return ("Inputs: " if english else "输入：") + "; ".join(parts)


def _ratio(name: str, question_key: str, report: Report, ask: Ask, english: bool, raw_key: str) -> ReportAnswer | None:
    _terms, numerators, denominator, zh, en = RATIOS[name]
    year = target_year(ask, report)
    options = [_metric_facts(report, m, year, ask, question_key, raw_key) for m in (*numerators, denominator)]
    if name == "gross_margin":
        options = options[:2]
    chosen = _same_table(options)
    if chosen is None:
        return None
    if name == "gross_margin":
        revenue, cost = chosen
        value = (revenue.value - abs(cost.value)) / revenue.value * _HUNDRED  # costs printed "(1,547.3)"
        named = [(revenue.label, revenue), (cost.label, cost)]
        formula = f"({revenue.text} − {cost.text}) / {revenue.text}"
        words = f"({revenue.label} − {cost.label}) / {revenue.label}"
    else:
        *tops, bottom = chosen
        top_value = sum((abs(f.value) for f in tops), Decimal(0))
        value = top_value / abs(bottom.value) * _HUNDRED
        named = [(f.label, f) for f in chosen]
        formula = f"{' + '.join(f.text for f in tops)} / {bottom.text}"
        words = f"{' + '.join(f.label for f in tops)} / {bottom.label}"
        if len(tops) > 1:
            formula, words = (
                f"({formula.split(' / ')[0]}) / {bottom.text}",
                f"({words.split(' / ')[0]}) / {bottom.label}",
            )
    label = en if english else zh
    period = f" for {year}" if english and year else (f"{year} 年" if year else "")
    text = (
        f"{label.capitalize()}{period} is {_pct(value)} = {words} = {formula}. {_inputs_text(report, named, english)}."
        if english
        else f"{period}{label}为 {_pct(value)} = {words} = {formula}。{_inputs_text(report, named, english)}。"
    )
    return ReportAnswer(text, "computed", "en" if english else "zh", [cite(report, f) for _n, f in named])


def _metric_match(
    question_key: str, report: Report, english: bool, raw_key: str = "", plain: str = ""
) -> list[Fact] | None:
    matches = best_matches(question_key, [f for f in report.facts if not f.parent_company], raw_key)
    if not matches or residual(question_key, list(matches[0].covered), english, plain):
        return None
    top = matches[0]
    # inputs the figure answer would hand over are no inputs either: a synonym's row off the statements (a related
    # party note's "Sales" for revenue), or a note's row the question does not name
    kept = [
        f
        for f in top.facts
        if (role_rank(f) < 2 or (top.covered[0] == top.key and role_rank(f) < 3)) or names_table(f, question_key)
    ]
    return kept or None


def _growth(
    question_key: str, report: Report, ask: Ask, english: bool, raw_key: str, plain: str
) -> ReportAnswer | None:
    facts = _metric_match(question_key, report, english, raw_key, plain)
    if not facts:
        return None
    base_year: int | None
    year: int | None
    if len(ask.years) >= 2:
        base_year, year = min(ask.years), max(ask.years)
    else:
        year = target_year(ask, report)
        base_year = year - 1 if year is not None else None
    facts = column_filter(facts, question_key, ask)
    current = rank(for_year(facts, year, report, ask), question_key, ask)
    base = rank(for_year(facts, base_year, report, ask), question_key, ask)
    if not current or not base or base[0].value == 0:
        return None
    pair = _same_table([current, base])
    assert pair is not None
    now, before = pair
    change = (now.value / before.value - 1) * _HUNDRED
    if before.value < 0:
        change = (now.value - before.value) / abs(before.value) * _HUNDRED
    label = now.label
    if english:
        text = (
            f"{label} changed by {_pct(change)} from {base_year} to {year} = {now.text} / {before.text} − 1. "
            f"{_inputs_text(report, [(f'{year} {label}', now), (f'{base_year} {label}', before)], english)}."
        )
    else:
        direction = "增长" if change >= 0 else "下降"
        inputs = _inputs_text(report, [(f"{year}年{label}", now), (f"{base_year}年{label}", before)], english)
        text = (
            f"{year} 年{label}较 {base_year} 年{direction} {_pct(abs(change))}（变化率 {_pct(change)} = {now.text} / "
            f"{before.text} − 1）。{inputs}。"
        )
    return ReportAnswer(text, "computed", "en" if english else "zh", [cite(report, now), cite(report, before)])


def _extreme(
    question_key: str, report: Report, ask: Ask, english: bool, raw_key: str, plain: str
) -> ReportAnswer | None:
    facts = _metric_match(question_key, report, english, raw_key, plain)
    if not facts:
        return None
    facts = [f for f in column_filter(facts, question_key, ask) if f.period is not None and f.period.quarter is None]
    by_year: dict[int, Fact] = {}
    for fact in rank(facts, question_key, ask):
        year = fact.year(report.year)
        if (
            year is not None
            and year not in by_year
            and (
                fact.period is None
                or fact.period.point is None
                or ask.year_end
                or all(f.period and f.period.point for f in facts)
            )
        ):
            by_year[year] = fact
    if len(by_year) < 2:
        return None
    pick = max if ask.highest else min
    year = pick(by_year, key=lambda y: by_year[y].value)
    listing = "; ".join(f"{y}: {with_unit(by_year[y].text, by_year[y].unit, english)}" for y in sorted(by_year))
    word = ("highest" if ask.highest else "lowest") if english else ("最高" if ask.highest else "最低")
    label = by_year[year].label
    text = f"{label} was {word} in {year}. {listing}." if english else f"{label}在 {year} 年{word}。各年：{listing}。"
    return ReportAnswer(text, "computed", "en" if english else "zh", [cite(report, by_year[year])])


def _quarters(
    question_key: str, report: Report, ask: Ask, english: bool, raw_key: str, plain: str
) -> ReportAnswer | None:
    facts = _metric_match(question_key, report, english, raw_key, plain)
    if not facts:
        return None
    quarters: dict[int, Fact] = {}
    for fact in rank(facts, question_key, ask):
        if (
            fact.period is not None
            and fact.period.quarter
            and fact.period.quarter not in quarters
            and fact.year(report.year) == target_year(ask, report)
        ):
            quarters[fact.period.quarter] = fact
    if sorted(quarters) != [1, 2, 3, 4]:
        return None
    total = sum((quarters[q].value for q in range(1, 5)), Decimal(0))
    unit = quarters[1].unit
    places = max(len(q.text.split(".")[1]) if "." in q.text else 0 for q in quarters.values())
    shown = with_unit(f"{total:,.{places}f}", unit, english)
    addends = " + ".join(quarters[q].text for q in range(1, 5))
    label = quarters[1].label
    text = (
        f"Sum of the four quarters of {label}: {shown} = {addends}."
        if english
        else f"{label}四个季度合计为 {shown} = {addends}。"
    )
    return ReportAnswer(text, "computed", "en" if english else "zh", [cite(report, quarters[1])])


def answer(
    question_key: str, report: Report, ask: Ask, english: bool, raw_key: str = "", plain: str = ""
) -> ReportAnswer | None:
    """A computed answer when the question asks for one and the facts have every input, else None."""
    for name, (terms, *_rest) in RATIOS.items():
        if any(label_key(t) in question_key for t in terms):
            printed = [f for f in report.facts if any(label_key(t) in f.key + label_key(f.column) for t in terms)]
            segment = [f for f in printed if f.key not in {label_key(t) for t in terms} and f.key in question_key]
            if segment:
                return None  # printed for a segment ("染料行业的毛利率"): a figure, not a computation
            if (
                name in _ADDED
                and "期间费用率" not in question_key
                and any(label_key(t) in question_key for n, (ts, *_r) in RATIOS.items() if n not in _ADDED for t in ts)
            ):
                continue
            return _ratio(name, question_key, report, ask, english, raw_key)
    if ask.quarters_sum:
        return _quarters(question_key, report, ask, english, raw_key, plain)
    if ask.highest or ask.lowest:
        return _extreme(question_key, report, ask, english, raw_key, plain)
    if ask.growth:
        return _growth(question_key, report, ask, english, raw_key, plain)
    return None
