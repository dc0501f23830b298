"""What a figure question asks: the period (year, quarter, year-end), the operation, the unit wanted.

Why apart from the lookup: the same question words ("2019年末", "上年", "fiscal 2022", "增长了多少",
"毛利率", "多少万元") are read the same way whichever report answers them, and each reading is tested
on literal questions.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Ask", "asks_ratio", "read_question", "without_dates"]

_YEAR = re.compile(r"(?<!\d)(19[89]\d|20[0-4]\d)(?!\d)")
_FY = re.compile(r"(?<![a-z])fy\s*'?(\d{4}|[0-4]\d)(?!\d)", re.IGNORECASE)
_GROWTH = re.compile(
    r"增长(?:了)?多少|增长率|增幅|变化了多少|变动了多少|同比增长|同比变化|较上年增长|比上年增长|下降了多少|"
    r"增长百分比|growth|grew|grow|year[- ]over[- ]year|yoy|(?:percent(?:age)?|%)\s+(?:change|increase)|"
    r"change\s+in|increase\s+in",
    re.IGNORECASE,
)
_HIGHEST = re.compile(
    r"哪一年最高|哪年最高|最高的是哪一年|which\s+year\s+was\s+(?:the\s+)?highest|highest\s+in\s+which\s+year",
    re.IGNORECASE,
)
_LOWEST = re.compile(r"哪一年最低|哪年最低|which\s+year\s+was\s+(?:the\s+)?lowest", re.IGNORECASE)
_QUARTERS_SUM = re.compile(
    r"四个季度.{0,6}(?:合计|之和|加总|总和)|(?:sum|total)\s+of\s+the\s+four\s+quarters", re.IGNORECASE
)
_QUARTER = re.compile(
    r"第([一二三四1-4])季度|(?<![a-z])q([1-4])(?![0-9])|\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter",
    re.IGNORECASE,
)
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?)"
)
#: A day and month in either order ("30 June", "June 30,", "31st March"): the end of a period, not a metric word.
_DAY_MONTH = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b),?"
_DATE_PHRASE = re.compile(
    rf"(?:\b(?:as\s+(?:at|of)|at|on|to|ended|ending|end(?:ed)?\s+of)\s+)?{_DAY_MONTH}", re.IGNORECASE
)
_END = re.compile(
    rf"年末|期末|年底|报告期末|截至.{{0,12}}末|\b(?:as\s+)?at\s+{_DAY_MONTH}|\bas\s+at|\bas\s+of|year[- ]end|"
    r"\bat\s+the\s+end\s+of\b|\bclos(?:e|ing)\s+of\s+(?:the\s+)?(?:financial\s+|fiscal\s+)?year",
    re.IGNORECASE,
)
_PRIOR = re.compile(r"上年|上一年|去年|上期|上年同期|prior\s+year|previous\s+year|last\s+year", re.IGNORECASE)
_START = re.compile(r"年初|期初")
_UNIT = re.compile(r"(?:多少|几)\s*(亿元|万元|千元|百万元|元)|(?:in\s+)(millions|thousands|billions)", re.IGNORECASE)
_CURRENCY = re.compile(
    r"\bin\s+(USD|EUR|GBP|AUD|CAD|JPY|CNY|HKD|CHF|NZD|SGD)\b|\bin\s+(U\.?S\.?|Australian|Canadian)\s+dollars?",
    re.IGNORECASE,
)
_DOLLARS = {"u.s.": "USD", "us": "USD", "u.s": "USD", "australian": "AUD", "canadian": "CAD"}
#: A share of one figure in another, in the folded key form of a question part (label_key: no spaces)
_RATIO = re.compile(
    r"what(?:share|proportion|fraction|percentage|percent)of|asa(?:share|percentage|proportion)of|"
    r"占.{1,20}(?:比例|比重|百分比)"
)
_PARENT = re.compile(r"母公司(?!所有者|股东)|parent\s+(?:company|entity)", re.IGNORECASE)
_CN_DIGIT = {"一": 1, "二": 2, "三": 3, "四": 4}


@dataclass(frozen=True, slots=True)
class Ask:
    """The parts of a figure question that do not name the metric."""

    years: tuple[int, ...]  # in the order the question names them
    quarter: int | None
    year_end: bool
    prior: bool
    growth: bool
    highest: bool
    lowest: bool
    quarters_sum: bool
    unit: str | None
    parent_company: bool
    english: bool
    currency: str | None = None  # the ISO currency the question asks the amount in ("(in USD)")


def read_question(question: str) -> Ask:
    """The period, operation and unit a question asks for."""
    text = unicodedata.normalize("NFKC", question)
    quarter_match = _QUARTER.search(text)
    quarter = None
    if quarter_match:
        digit = quarter_match.group(1) or quarter_match.group(2)
        ordinal = quarter_match.group(3)
        quarter = _ORDINAL[ordinal.lower()] if ordinal else _CN_DIGIT.get(digit) or int(digit)
    unit_match = _UNIT.search(text)
    unit = None
    if unit_match:
        unit = (unit_match.group(1) or unit_match.group(2) or "").lower() or None
    return Ask(
        years=_years(text),
        quarter=quarter,
        year_end=bool(_END.search(text)) or bool(_START.search(text)),
        prior=bool(_PRIOR.search(text)) or bool(_START.search(text)),
        growth=bool(_GROWTH.search(text)),
        highest=bool(_HIGHEST.search(text)),
        lowest=bool(_LOWEST.search(text)),
        quarters_sum=bool(_QUARTERS_SUM.search(text)),
        unit=unit if unit != "元" else None,
        parent_company=bool(_PARENT.search(text)),
        english=not re.search(r"[\u4e00-\u9fff]", text),
        currency=_currency(text),
    )


def asks_ratio(part_key: str) -> bool:
    """Whether a question part (folded key) asks a share of one figure in another ("what share of total assets
    were net assets", 归母净利润占营业收入的比例): one printed amount never answers it, only a printed share or a
    computation."""
    return bool(_RATIO.search(part_key))


def without_dates(text: str) -> str:
    """The question without its day-and-month phrases ("at 31 December", "for the year to 30 June", "as of
    June 30,"): they name the period, which :func:`read_question` reads, and left in they match a row printed
    as a date ("At 31 December 2022" of a movement table) as if it were the metric."""
    return _DATE_PHRASE.sub(" ", unicodedata.normalize("NFKC", text))


def _years(text: str) -> tuple[int, ...]:
    """The years a question names, in order: "2022", and fiscal years "FY22" / "FY 2022" / "fiscal 22"."""
    found = [(m.start(), int(m.group(1))) for m in _YEAR.finditer(text)]
    for m in _FY.finditer(text):
        digits = m.group(1)
        year = int(digits) if len(digits) == 4 else 2000 + int(digits)
        if all(abs(start - m.start()) > 6 for start, _ in found):
            found.append((m.start(), year))
    return tuple(year for _, year in sorted(found))


def _currency(text: str) -> str | None:
    match = _CURRENCY.search(text)
    if match is None:
        return None
    if match.group(1):
        return match.group(1).upper()
    return _DOLLARS.get(match.group(2).lower())
