"""Column headers of report tables as periods: "2019年", "2019年末", "本期", "上年同期", "期末余额", "Fiscal 2022", ...

Why a small typed form: a question asks for "2019年", "上年", "年末" or "fiscal 2022" and the lookup must
match it to columns that spell the same period in other words; change columns ("本年比上年增减",
"Change %") are kept apart so they are never read as the figure.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Period", "parse_period"]

_YEAR = re.compile(r"(?<!\d)(19[89]\d|20[0-4]\d)(?!\d)")
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
}


@dataclass(frozen=True, slots=True)
class Period:
    """What one column holds: a year (or the report's own / prior period), a point (start/end) or a change."""

    year: int | None = None  # absolute year when printed
    relative: int | None = None  # 0 = the report's period (本期/本年/期末), -1 = the prior one (上期/上年/期初)
    point: str | None = None  # "end" (年末/期末/December 31; 期初 is the prior end); None = a flow over the period
    quarter: int | None = None
    change: bool = False  # a change column (增减, change %), never the figure itself
    share: bool = False  # a share column (占营业收入比重)

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
    point = None
    if re.search(r"年末|期末|末余额|12月31日|december31|dec\.?31|asat|endof", lowered):
        point = "end"
    elif re.search(r"年初|期初|初余额|1月1日|january1|beginning", lowered):
        point = "start"
    years = [int(y) for y in _YEAR.findall(text)]
    year = years[0] if years and not (change and len(years) > 1) else None
    relative = None
    if year is None:
        head = lowered.split("比")[0]  # "本年比上年增减": the period before 比
        if re.search(r"上期|上年|上年度|同期|prioryear|previousyear|期初|年初", head):
            relative = -1
        elif re.search(r"本期|本年|本报告期|报告期|当期|currentyear|本年度|期末|本季度|年末", head):
            relative = 0
    if point == "start":  # an opening balance is the prior period's closing one (期初 = 上年末)
        point = "end"
        if year is not None:
            year -= 1
        else:
            relative = -1
    if year is None and relative is None and quarter is None and not change and not share:
        return None
    return Period(year=year, relative=relative, point=point, quarter=quarter, change=change, share=share)


def _optional_int(value: object) -> int | None:
    """An int read back from JSON, or None."""
    return value if isinstance(value, int) else None
