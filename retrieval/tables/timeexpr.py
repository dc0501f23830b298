"""Time ranges written in a question ("2024年第三季度", "7—9月", "12月", "Q3", "上半年", "March 2024").

Why half-open month ranges without a year: "12月" is December of WHICH year only the data
can say; the planner fills the year when the date column spans one year and refuses
(listing the years) when it spans several. Relative expressions ("去年", "上个月",
"last quarter") depend on today's date, which an answer about a document must not, so
they are reported as not understood instead of guessed.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["TimeExpr", "cn_number", "find_time_exprs"]

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
              "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_MONTHS_EN = {"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
              "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
              "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12}
_ORDINAL = {"一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4, "first": 1, "second": 2, "third": 3,
            "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}

_NUM = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"
_DASH = r"\s{0,2}(?:-|—|–|~|至|到|through|to)\s{0,2}"
_EN_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|" \
            r"apr|jun|jul|aug|sept|sep|oct|nov|dec)"
# one full date, separators consistent: 2024-07-01, 2024/7/1, 2024.7.1, 2024年7月1日
_DATE = (r"(\d{4}(?:-\d{1,2}-\d{1,2}|/\d{1,2}/\d{1,2}|\.\d{1,2}\.\d{1,2}"
         r"|\s{0,1}年\s{0,1}\d{1,2}\s{0,1}月\s{0,1}\d{1,2}\s{0,1}[日号]?))")

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("date_range", re.compile(_DATE + _DASH + _DATE)),
    ("until", re.compile(r"(?:截至|截止到|截止|直到|until|up to|through)\s{0,2}" + _DATE)),
    ("date_since", re.compile(_DATE + r"\s{0,2}(?:之后|以后|起|以来)")),
    ("date_before", re.compile(_DATE + r"\s{0,2}(?:之前|以前)")),
    ("date", re.compile(_DATE)),
    ("quarter", re.compile(r"(?:(\d{4})\s{0,2}年?\s{0,2}(?:的)?)?第?\s{0,1}([一二三四1-4])\s{0,1}季度")),
    ("quarter", re.compile(r"(?:(\d{4})\s{0,2})?(?<![a-z0-9])q([1-4])(?![0-9])(?:\s{0,2}(\d{4}))?")),
    ("quarter", re.compile(r"(?:(\d{4})\s{0,2})?(?<![a-z])(first|second|third|fourth|1st|2nd|3rd|4th)\s"
                           r"quarter(?:\s{1,2}(?:of\s)?(\d{4}))?")),
    ("half", re.compile(r"(?:(\d{4})\s{0,2}年?\s{0,2}(?:的)?)?(上半年|下半年)")),
    ("half", re.compile(r"(?:(\d{4})\s{0,2})?(?<![a-z])(h1|h2|first half|second half)(?![a-z0-9])"
                        r"(?:\s{1,2}(?:of\s)?(\d{4}))?")),
    ("month_range", re.compile(r"(?:(\d{4})\s{0,2}年\s{0,2})?(" + _NUM + r")\s{0,1}月?(?:份)?" + _DASH + "(" + _NUM
                               + r")\s{0,1}月(?:份)?")),
    ("month_range_en", re.compile(r"(?:from\s)?(" + _EN_MONTH + r")" + _DASH + "(" + _EN_MONTH
                                  + r")(?:\s{1,2}(\d{4}))?")),
    ("month", re.compile(r"(?:(\d{4})\s{0,2}年\s{0,2})?(?<!个)(?<!\d)(" + _NUM + r")\s{0,1}月(?:份)?(?!度)")),
    ("month_en", re.compile(r"(?<![a-z])(" + _EN_MONTH + r")(?![a-z])(?:\s{1,2}(\d{4}))?")),
    ("month_num", re.compile(r"(?<!\d)(\d{4})\s{0,1}[-/.]\s{0,1}(\d{1,2})(?![\d/.-])")),
    # "2020年以来", "since 2020": from the year's first day (a bare "2020年以后" may or may not include 2020: unread)
    ("year_since", re.compile(r"(?<!\d)((?:19|20)\d{2})\s{0,2}(?:年度|年)?\s{0,2}(?:以来|起|及以后|及之后)|"
                              r"(?<![a-z])since\s((?:19|20)\d{2})(?!\d)")),
    ("year_before", re.compile(r"(?<!\d)((?:19|20)\d{2})\s{0,2}(?:年度|年)\s{0,2}(?:以前|之前)|"
                               r"(?<![a-z])before\s((?:19|20)\d{2})(?!\d)")),
    # "hired after 2022": from the next year's first day ("2022年以后" may or may not include 2022: unread)
    ("year_after", re.compile(r"(?<![a-z])(?:after|later than)\s((?:19|20)\d{2})(?!\d)")),
    ("year", re.compile(r"(?<!\d)((?:19|20)\d{2})\s{0,2}(?:年度|年)")),
    ("year", re.compile(r"(?<![a-z0-9])(?:in|for|during|of|year)\s((?:19|20)\d{2})(?!\d)")),
]
_RELATIVE = re.compile(r"去年|今年|明年|前年|本年|上个?月|下个?月|本月|这个月|上个?季度|本季度|这个季度|下个?季度|"
                       r"近\s{0,1}\d{1,2}\s{0,1}个?月|最近|过去|last (?:year|month|quarter|week)|this (?:year|month|"
                       r"quarter|week)|next (?:year|month|quarter)|ytd|year to date|yesterday|today|昨天|今天")


@dataclass(slots=True)
class TimeExpr:
    """A span of the question and the time range it names: [start, end) dates, with the year possibly unknown."""

    start: int
    end: int
    text: str
    year: int | None
    first_month: int = 1
    last_month: int = 12
    since: dt.date | None = None
    until: dt.date | None = None  # exclusive
    relative: bool = False
    qualifier: bool = False  # a year that only gave other expressions their year

    @property
    def needs_year(self) -> bool:
        return self.year is None and self.since is None and self.until is None and not self.relative

    def date_range(self, year: int | None = None) -> tuple[dt.date | None, dt.date | None]:
        """[since, until) as dates; month ranges take ``year`` when the question gave none."""
        if self.since is not None or self.until is not None:
            return self.since, self.until
        y = self.year if self.year is not None else year
        if y is None:
            raise ValueError("a year is needed")
        start = dt.date(y, self.first_month, 1)
        end = dt.date(y + 1, 1, 1) if self.last_month == 12 else dt.date(y, self.last_month + 1, 1)
        return start, end

    def words(self, year: int | None = None) -> str:
        since, until = self.date_range(year)
        if since is not None and until is not None:
            return f"{since.isoformat()} ~ {(until - dt.timedelta(days=1)).isoformat()}"
        if since is not None:
            return f">= {since.isoformat()}"
        return f"< {until.isoformat()}" if until is not None else self.text


def cn_number(text: str) -> int | None:
    """Arabic or Chinese numerals ("12", "十二", "一万五千", "两千") as an integer; None when not a number."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _CN_DIGITS and ch not in _CN_UNITS and ch not in _CN_BIG for ch in text):
        return None
    total, section, digit = 0, 0, None
    for ch in text:
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[ch]
            digit = None
        else:
            total += (section + (digit or 0)) * _CN_BIG[ch]
            section, digit = 0, None
    return total + section + (digit or 0)


def _year(*groups: str | None) -> int | None:
    for g in groups:
        if g:
            return int(g)
    return None


def _date(text: str) -> dt.date | None:
    y, m, d = (int(x) for x in re.findall(r"\d+", text)[:3])
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _month(token: str) -> int | None:
    value = cn_number(token)
    return value if value is not None and 1 <= value <= 12 else None


def _expr(kind: str, m: re.Match[str]) -> TimeExpr | None:
    g = m.groups()
    base = {"start": m.start(), "end": m.end(), "text": m.group(0)}
    if kind in ("date_range", "until", "date_since", "date_before", "date"):
        return _day_expr(kind, g, base)
    if kind == "quarter":
        q = _ORDINAL[g[1]]
        return TimeExpr(**base, year=_year(g[0], g[2] if len(g) > 2 else None), first_month=3 * q - 2,
                        last_month=3 * q)
    if kind == "half":
        first = g[1] in ("上半年", "h1", "first half")
        return TimeExpr(**base, year=_year(g[0], g[2] if len(g) > 2 else None), first_month=1 if first else 7,
                        last_month=6 if first else 12)
    if kind in ("month_range", "month_range_en", "month", "month_en", "month_num"):
        return _month_expr(kind, g, base)
    if kind == "year":
        return TimeExpr(**base, year=int(g[0]))
    if kind == "year_after":
        return TimeExpr(**base, year=None, since=dt.date(int(g[0]) + 1, 1, 1))
    if kind in ("year_since", "year_before"):
        first = dt.date(int(g[0] or g[1]), 1, 1)
        return TimeExpr(**base, year=None, since=first) if kind == "year_since" else \
            TimeExpr(**base, year=None, until=first)
    return None


def _day_expr(kind: str, g: tuple[str, ...], base: dict[str, Any]) -> TimeExpr | None:
    """Expressions of whole days: a date, a date range, since / until / before a date."""
    if kind == "date_range":
        a, b = _date(g[0]), _date(g[1])
        if a is None or b is None or b < a:
            return None
        return TimeExpr(**base, year=None, since=a, until=b + dt.timedelta(days=1))
    if kind in ("until", "date_since", "date_before", "date"):
        day = _date(g[0])
        if day is None:
            return None
        if kind == "until":
            return TimeExpr(**base, year=None, until=day + dt.timedelta(days=1))
        if kind == "date_since":
            return TimeExpr(**base, year=None, since=day)
        if kind == "date_before":
            return TimeExpr(**base, year=None, until=day)
        return TimeExpr(**base, year=None, since=day, until=day + dt.timedelta(days=1))
    return None


def _month_expr(kind: str, g: tuple[str, ...], base: dict[str, Any]) -> TimeExpr | None:
    """Expressions of whole months: one month or a range, written in Chinese, English or digits."""
    if kind == "month_range":
        a, b = _month(g[1]), _month(g[2])
        if a is None or b is None or b < a:
            return None
        return TimeExpr(**base, year=_year(g[0]), first_month=a, last_month=b)
    if kind == "month_range_en":
        a, b = _MONTHS_EN[g[0]], _MONTHS_EN[g[1]]
        return None if b < a else TimeExpr(**base, year=_year(g[2]), first_month=a, last_month=b)
    if kind == "month":
        month = _month(g[1])
        return None if month is None else TimeExpr(**base, year=_year(g[0]), first_month=month, last_month=month)
    if kind == "month_en":
        month = _MONTHS_EN[g[0]]
        return TimeExpr(**base, year=_year(g[1]), first_month=month, last_month=month)
    if kind == "month_num":
        month = int(g[1])
        if not 1 <= month <= 12:
            return None
        return TimeExpr(**base, year=int(g[0]), first_month=month, last_month=month)
    return None


def find_time_exprs(text: str) -> list[TimeExpr]:
    """Non-overlapping time expressions in a normalised question, in order; relative ones flagged.

    Fresh copies of a cached reading: the linker asks for the same question (and the same table names) once per
    table in scope, and callers may change what they get (a year filled in)."""
    return [copy.copy(expr) for expr in _time_exprs(text)]


@lru_cache(maxsize=16_384)
def _time_exprs(text: str) -> tuple[TimeExpr, ...]:
    return tuple(_find_time_exprs(text))


def _find_time_exprs(text: str) -> list[TimeExpr]:
    taken: list[tuple[int, int]] = []
    found: list[TimeExpr] = []
    for m in _RELATIVE.finditer(text):
        found.append(TimeExpr(m.start(), m.end(), m.group(0), None, relative=True))
        taken.append((m.start(), m.end()))
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            expr = _expr(kind, m)
            if expr is not None:
                found.append(expr)
                taken.append((m.start(), m.end()))
    found.sort(key=lambda e: e.start)
    # a lone year next to month/quarter expressions is their year ("2024年 7-9月", "Q3 2024"), not a range of its own
    years = [e for e in found if e.year is not None and (e.first_month, e.last_month) == (1, 12)
             and e.since is None and e.until is None and not e.relative]
    partial = [e for e in found if e.needs_year]
    if len({e.year for e in years}) == 1 and partial:
        for e in partial:
            e.year = years[0].year
        for e in years:
            e.qualifier = True
    return found
