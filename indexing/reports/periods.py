"""Column headers of report tables as periods: "2019年", "2019年末", "本期", "上年同期", "期末余额", "Fiscal 2022",
"FY13", "2023 (restated)", "Three months ended", "上半年", ...

Why a small typed form: a question asks for "2019年", "上年", "年末" or "fiscal 2022" and the lookup must
match it to columns that spell the same period in other words; change columns ("本年比上年增减",
"Change %") are kept apart so they are never read as the figure. A column is read from its header text
only, never from its position: a change column between two years ("2025年末 | 2024年末 | 增减 | 2023年末")
shifts every position after it. Part-year columns (a quarter, a half year, nine months) are marked so an
annual question never takes them, and a restated column ("调整后", "restated") is told from the figure as
first reported ("调整前", "as previously reported") so the restated one is preferred.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Period", "parse_period"]

_YEAR = re.compile(r"(?<!\d)(19[89]\d|20[0-4]\d)(?!\d)")
#: "FY13", "FY 2013", "FY'13": a fiscal year in two or four digits
_FY = re.compile(r"(?<![a-z])fy\s*'?(\d{4}|\d{2})(?!\d)", re.IGNORECASE)
_CHANGE = re.compile(r"增减|变动|增长率|同比|比上年|change|variance|%\s*chg|increase|decrease", re.IGNORECASE)
_SHARE = re.compile(r"比重|占比|比例|% of", re.IGNORECASE)
_QUARTER = {
    "第一季度": 1,
    "第二季度": 2,
    "第三季度": 3,
    "第四季度": 4,
    "一季度": 1,
    "二季度": 2,
    "三季度": 3,
    "四季度": 4,
    "q1": 1,
    "q2": 2,
    "q3": 3,
    "q4": 4,
    "firstquarter": 1,
    "secondquarter": 2,
    "thirdquarter": 3,
    "fourthquarter": 4,
    "1stquarter": 1,
    "2ndquarter": 2,
    "3rdquarter": 3,
    "4thquarter": 4,
}
#: A part of the year that is not a named quarter: an annual question never takes such a column.
_QUARTER_ANY = re.compile(r"threemonths|13weeks|12weeks|16weeks|quarterended|本季度|单季度|季度")
_HALF = re.compile(r"上半年|下半年|半年度|中期|sixmonths|ninemonths|26weeks|39weeks|interim|1-6月|halfyear")
#: "year ended December 31": the date ends a flow over the year, it is not a balance at that date
_FLOW = re.compile(r"ended|止年度|止.{0,6}年度|fortheyear|weeksended|monthsended|年度$")
_RESTATED = re.compile(r"调整后|重述后|restated|asadjusted|经重述")
_REPORTED = re.compile(r"调整前|重述前|previouslyreported|originallyreported|asreported")


@dataclass(frozen=True, slots=True)
class Period:
    """What one column holds: a year (or the report's own / prior period), a point (start/end) or a change."""

    year: int | None = None  # absolute year when printed
    relative: int | None = None  # 0 = the report's period (本期/本年/期末), -1 = the prior one (上期/上年/期初)
    point: str | None = None  # "end" (年末/期末/December 31; 期初 is the prior end); None = a flow over the period
    quarter: int | None = None
    change: bool = False  # a change column (增减, change %), never the figure itself
    share: bool = False  # a share column (占营业收入比重)
    partial: bool = False  # a part of the year (a quarter, a half, nine months): never an annual figure
    restated: str | None = None  # "after" (调整后, restated) or "before" (调整前, as previously reported)

    def to_json(self) -> dict[str, object]:
        return {
            k: v
            for k, v in (
                ("year", self.year),
                ("relative", self.relative),
                ("point", self.point),
                ("quarter", self.quarter),
                ("change", self.change or None),
                ("share", self.share or None),
                ("partial", self.partial or None),
                ("restated", self.restated),
            )
            if v is not None
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Period:
        return cls(
            year=_optional_int(data.get("year")),
            relative=_optional_int(data.get("relative")),
            point=data.get("point"),  # type: ignore[arg-type]
            quarter=_optional_int(data.get("quarter")),
            change=bool(data.get("change")),
            share=bool(data.get("share")),
            partial=bool(data.get("partial")),
            restated=data.get("restated") if data.get("restated") in ("after", "before") else None,  # type: ignore[arg-type]
        )

    def resolved_year(self, report_year: int | None) -> int | None:
        """The calendar/fiscal year of the column (relative columns through the report's year)."""
        if self.year is not None:
            return self.year
        if report_year is None:
            return None
        # a quarter or share column with no year of its own belongs to the report's period
        return report_year + (self.relative or 0)


def parse_period(header: str) -> Period | None:
    """The period a column header names, or None when it names none (项目, 附注, a label column)."""
    text = unicodedata.normalize("NFKC", header or "").strip()
    if not text:
        return None
    lowered = text.lower().replace(" ", "")
    change = bool(_CHANGE.search(text))
    share = bool(_SHARE.search(text)) and not change
    quarter = next((q for name, q in _QUARTER.items() if name in lowered), None)
    partial = quarter is not None or bool(_QUARTER_ANY.search(lowered) or _HALF.search(lowered))
    point = _point(lowered)
    years = _years(text)
    year = years[0] if years and not (change and len(years) > 1) else None
    relative = None if year is not None else _relative(lowered)
    if point == "start":  # an opening balance is the prior period's closing one (期初 = 上年末)
        point = "end"
        if year is not None:
            year -= 1
        else:
            relative = -1
    restated = "before" if _REPORTED.search(lowered) else ("after" if _RESTATED.search(lowered) else None)
    if year is None and relative is None and quarter is None and not (change or share or partial):
        return None
    return Period(
        year=year,
        relative=relative,
        point=point,
        quarter=quarter,
        change=change,
        share=share,
        partial=partial,
        restated=restated,
    )


def _years(text: str) -> list[int]:
    """The years a header prints: four digits, or a fiscal year "FY13" / "FY 2013"."""
    years = [int(y) for y in _YEAR.findall(text)]
    for match in _FY.finditer(text):
        digits = match.group(1)
        year = int(digits) if len(digits) == 4 else (2000 + int(digits) if int(digits) < 50 else 1900 + int(digits))
        if year not in years:
            years.append(year)
    return years


def _point(lowered: str) -> str | None:
    """ "end" for a balance at a date (年末, 期末余额, December 31, as at), "start" for an opening one (期初,
    年初, January 1), None for a flow over the period ("year ended December 31" is a flow, not a balance)."""
    if re.search(r"年末|期末|末余额|12月31日|december31|dec\.?31|asat|asof|endof", lowered):
        return None if _FLOW.search(lowered) and not re.search(r"asat|asof|年末|期末|末余额", lowered) else "end"
    if re.search(r"年初|期初|初余额|1月1日|january1|beginning", lowered):
        return "start"
    return None


def _relative(lowered: str) -> int | None:
    """0 for the report's own period (本期, 本年, current year), -1 for the one before (上期, 上年同期, prior year)."""
    head = lowered.split("比")[0]  # "本年比上年增减": the period before 比
    if re.search(r"上期|上年|上年度|同期|prioryear|previousyear|期初|年初|lastyear", head):
        return -1
    if re.search(r"本期|本年|本报告期|报告期|当期|currentyear|本年度|期末|本季度|年末|thisyear", head):
        return 0
    return None


def _optional_int(value: object) -> int | None:
    """An int read back from JSON, or None."""
    return value if isinstance(value, int) else None
