"""Type the columns of a parsed table: exact decimals, dates, text, and which columns are identifiers.

Why at index time: a question must be answered by a query, not by re-reading cells, so
every column gets one type once. Cells are what the parser wrote (xlsx numbers without
float noise, dates in ISO form); a column is

- ``date`` when its cells read as dates: ISO ("2024-03-05"), "2024/3/5", "2024.3.5",
  "2024年3月5日", a month ("2024-03", "2024年3月": the first day, ``granularity`` month),
  or Excel serial numbers (45352) under a header that says it holds dates; ``timestamp``
  when some of them carry a time of day;
- ``decimal`` when its cells read as numbers ("1,234.50", "￥1,200", "12%", "1.2万"),
  kept exact (scale = the most decimals seen), unless the column is an identifier;
- ``text`` otherwise. Identifiers are text whatever they look like: phone numbers, ID card
  numbers, codes with leading zeros, order numbers (by header), running sequence numbers
  and years. They are flagged so that a question never sums a phone column.

A cell that does not fit its column's type (a "暂无" among amounts) is stored as NULL in the
typed column and keeps its source text; the count of such cells is reported.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal

from officeqa.normalize import normalize
from officeqa.numbers import parse_number

__all__ = ["ColumnSpec", "display_value", "header_paths", "parse_date", "type_columns"]

NUMERIC_SHARE = 0.8  # non-empty cells that must parse for a numeric column (the rest: NULL, reported)
DATE_SHARE = 0.9
MAX_SCALE = 10
EXCEL_EPOCH = dt.datetime(1899, 12, 30)
# Serials from 1930 to 2099: a wider range would read ordinary counts as dates.
SERIAL_RANGE = (10_959, 73_050)

_DATE_HEADER = re.compile(r"日期|时间|日子|到期日|签订日|生效日|下单日|发货日|付款日|date|day|time", re.I)
_PHONE_HEADER = re.compile(r"电话|手机|座机|传真|联系方式|phone|mobile|tel(?:ephone)?\b|fax", re.I)
_ID_NUMBER_HEADER = re.compile(r"身份证|证件号|公民身份|id ?card|identity", re.I)
_CODE_HEADER = re.compile(
    r"编号|单号|订单号|工号|学号|编码|代码|序号|账号|帐号|卡号|邮编|合同号|发票号|凭证号|批号|条码|流水号|"
    r"(?:^|[\s_])(?:id|no\.?|code|number|sku|zip)$|^(?:id|no\.?|code|sku)(?:[\s_]|$)",
    re.I,
)
_YEAR_HEADER = re.compile(r"年份|年度|^年$|year", re.I)
_MEASURE_HEADER = re.compile(r"金额|额|价|量|数|费|成本|收入|利润|工资|薪|分|amount|price|qty|quantity|total|cost|"
                             r"revenue|sales|profit|salary|score|count", re.I)

_MOBILE = re.compile(r"^(?:\+?86[- ]?)?1[3-9]\d{9}$")
_LANDLINE = re.compile(r"^(?:\(?0\d{2,3}\)?[- ]?)?\d{7,8}(?:-\d{1,5})?$|^[48]00[- ]?\d{3}[- ]?\d{4}$")
_ID18 = re.compile(r"^\d{17}[\dXx]$")
_INT = re.compile(r"^\d+$")

_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?)?$")
_SLASH = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})(?:\s(\d{1,2}):(\d{2})(?::(\d{2}))?)?$")
_CN_DAY = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})[日号]?$")
_CN_MONTH = re.compile(r"^(\d{4})年(\d{1,2})月份?$")
_ISO_MONTH = re.compile(r"^(\d{4})[-/.](\d{1,2})$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


@dataclass(slots=True)
class ColumnSpec:
    """One typed column: its name and header path, type, and the typed values with their source text."""

    index: int
    name: str
    path: list[str]
    kind: str  # "decimal" | "date" | "timestamp" | "text"
    values: list[object]  # Decimal | date | datetime | str | None, one per row
    raw: list[str] | None = None  # source text per row where any cell differs from its typed form
    scale: int = 0
    precision: int = 18
    identifier: str | None = None  # "phone" | "id_number" | "code" | "sequence" | "year"
    granularity: str | None = None  # dates: "day", or "month" when every cell names a month only
    bad_cells: int = 0
    non_empty: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def sql_type(self) -> str:
        if self.kind == "decimal":
            return f"DECIMAL({self.precision},{self.scale})"
        return {"date": "DATE", "timestamp": "TIMESTAMP"}.get(self.kind, "VARCHAR")


def header_paths(header_rows: list[list[str]], width: int) -> list[list[str]]:
    """Per column, the header cells from the top row down, repeats (merged cells) collapsed."""
    paths: list[list[str]] = []
    for col in range(width):
        parts: list[str] = []
        for row in header_rows:
            cell = (row[col] if col < len(row) else "").strip()
            if cell and (not parts or parts[-1] != cell):
                parts.append(cell)
        paths.append(parts)
    return paths


def _from_serial(value: Decimal) -> dt.datetime | None:
    if not (SERIAL_RANGE[0] <= value <= SERIAL_RANGE[1]):
        return None
    return EXCEL_EPOCH + dt.timedelta(days=float(value))


def parse_date(text: str, *, serials: bool = False) -> tuple[dt.datetime, str] | None:
    """A cell as (datetime, granularity) or None; ``serials`` also reads Excel day numbers."""
    text = text.strip()
    if not text:
        return None
    m = _ISO.match(text) or _SLASH.match(text)
    try:
        if m:
            y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
            hh, mm, ss = (int(m.group(i) or 0) for i in (4, 5, 6))
            return dt.datetime(y, mo, d, hh, mm, ss), "day"
        m = _CN_DAY.match(text)
        if m is None and serials:
            m = _COMPACT.match(text)  # "20240305" only under a date header: elsewhere it is a number
        if m:
            return dt.datetime(int(m.group(1)), int(m.group(2)), int(m.group(3))), "day"
        m = _CN_MONTH.match(text) or _ISO_MONTH.match(text)
        if m:
            return dt.datetime(int(m.group(1)), int(m.group(2)), 1), "month"
    except ValueError:  # 2024-02-30
        return None
    if serials:
        number = parse_number(text)
        if number is not None:
            when = _from_serial(number)
            if when is not None:
                return when, "serial"
    return None


def _identifier(name: str, cells: list[str], numbers: list[Decimal | None]) -> str | None:
    """Why this column is an identifier (never a measure), or None."""
    core = normalize(name)
    filled = [c for c in cells if c]
    if not filled:
        return None
    share = len(filled) * 0.9
    if _PHONE_HEADER.search(core) or sum(1 for c in filled if _MOBILE.match(c) or _LANDLINE.match(c)) >= share:
        return "phone"
    if _ID_NUMBER_HEADER.search(core) or sum(1 for c in filled if _ID18.match(c)) >= share:
        return "id_number"
    if _CODE_HEADER.search(core):
        return "code"
    ints = [c for c in filled if _INT.match(c)]
    if len(ints) >= share and any(len(c) > 1 and c.startswith("0") for c in ints):
        return "code"  # leading zeros: a code, not a quantity
    whole = [n for n in numbers if n is not None and n == n.to_integral_value()]
    if len(whole) >= share and whole:
        if _YEAR_HEADER.search(core) and all(1900 <= n <= 2100 for n in whole):
            return "year"
        if len(whole) >= 5 and not _MEASURE_HEADER.search(core):
            ordered = sorted(whole)
            if len(set(ordered)) == len(ordered) and ordered[-1] - ordered[0] == len(ordered) - 1:
                return "sequence"
    return None


def _scale(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _type_dates(spec: ColumnSpec, cells: list[str], serials: bool) -> bool:
    parsed = [parse_date(c, serials=serials) if c else None for c in cells]
    hits = sum(1 for p in parsed if p is not None)
    if not spec.non_empty or hits < spec.non_empty * DATE_SHARE:
        return False
    grains = {p[1] for p in parsed if p is not None}
    has_time = any(p is not None and p[0].time() != dt.time(0) for p in parsed)
    spec.kind = "timestamp" if has_time else "date"
    spec.values = [None if p is None else (p[0] if has_time else p[0].date()) for p in parsed]
    spec.granularity = "month" if grains == {"month"} else "day"
    if "serial" in grains:
        spec.notes.append("Excel serial day numbers read as dates")
    spec.bad_cells = sum(1 for c, p in zip(cells, parsed, strict=True) if c and p is None)
    spec.raw = _raw_if_needed(cells, [None if v is None else display_value(v) for v in spec.values])
    return True


def display_value(value: object) -> str:
    """A typed value as the parser writes cells: plain decimals without trailing zeros, ISO dates."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value else "0"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    return "" if value is None else str(value)


def _raw_if_needed(cells: list[str], shown: list[str | None]) -> list[str] | None:
    """The source text, kept only when some cell's text differs from how its typed value displays."""
    if any(c != (k or "") for c, k in zip(cells, shown, strict=True)):
        return list(cells)
    return None


def type_columns(header_rows: list[list[str]], rows: list[list[str]]) -> list[ColumnSpec]:
    """Typed columns of one table (header rows as parsed, data rows as parsed)."""
    width = max([len(r) for r in header_rows] + [len(r) for r in rows] + [0])
    paths = header_paths(header_rows, width)
    specs: list[ColumnSpec] = []
    for col in range(width):
        path = paths[col]
        name = " / ".join(path) if path else f"列{col + 1}"
        cells = [(r[col] if col < len(r) and r[col] is not None else "").strip() for r in rows]
        spec = ColumnSpec(index=col, name=name, path=path or [name], kind="text",
                          values=[c if c else None for c in cells])
        spec.non_empty = sum(1 for c in cells if c)
        specs.append(spec)
        if not spec.non_empty:
            continue
        if _DATE_HEADER.search(normalize(name)) and _type_dates(spec, cells, serials=True):
            continue  # under a date header, day numbers (Excel serials) are dates
        numbers = [parse_number(c) if c else None for c in cells]
        spec.identifier = _identifier(name, cells, numbers)
        if spec.identifier:
            continue  # identifiers stay text, exactly as written
        if _type_dates(spec, cells, serials=False):
            continue
        if sum(1 for n in numbers if n is not None) < spec.non_empty * NUMERIC_SHARE:
            continue
        scale = min(MAX_SCALE, max((_scale(n) for n in numbers if n is not None), default=0))
        digits = max((len(str(abs(int(n)))) for n in numbers if n is not None), default=1)
        spec.kind = "decimal"
        spec.scale = scale
        spec.precision = 18 if digits + scale <= 18 else 38
        quantum = Decimal(1).scaleb(-scale)
        spec.values = [None if n is None else n.quantize(quantum) for n in numbers]
        spec.bad_cells = sum(1 for c, n in zip(cells, numbers, strict=True) if c and n is None)
        if spec.bad_cells:
            spec.notes.append(f"{spec.bad_cells} cells are not numbers (kept as text, not counted)")
        spec.raw = _raw_if_needed(cells, [None if n is None else display_value(n) for n in numbers])
    return specs
