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
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import zip_longest

from officeqa.normalize import normalize
from officeqa.numbers import parse_number

__all__ = ["ColumnSpec", "display_value", "header_paths", "parse_date", "type_columns"]

SAMPLE = 500  # non-empty cells a column's type is first judged on
#: The note a column gets when its cells are written as percentages ("9.87%"): values are stored as fractions
#: (0.0987) and answers show them as percentages again.
PERCENT_NOTE = "percent: cells written as percentages, stored as fractions"
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
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_PLAIN = re.compile(r"-?\d{1,30}(?:\.\d{1,30})?")


@dataclass(slots=True)
class ColumnSpec:
    """One typed column: its name and header path, type, and the typed values with their source text."""

    index: int
    name: str
    path: list[str]
    kind: str  # "decimal" | "date" | "timestamp" | "text"
    texts: list[str | None]  # per row, the typed value as SQL reads it: "1234.5", "2024-03-05", text; None = empty
    raw: list[str] | None = None  # source text per row where any cell differs from its typed form
    scale: int = 0
    precision: int = 18
    identifier: str | None = None  # "phone" | "id_number" | "code" | "sequence" | "year"
    granularity: str | None = None  # dates: "day", or "month" when every cell names a month only
    bad_cells: int = 0
    non_empty: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def values(self) -> list[object]:
        """The typed values (Decimal at the column's scale, date, datetime, str, None); built on demand."""
        if self.kind == "decimal":
            quantum = Decimal(1).scaleb(-self.scale)
            return [None if t is None else Decimal(t).quantize(quantum) for t in self.texts]
        if self.kind == "date":
            return [None if t is None else dt.date.fromisoformat(t) for t in self.texts]
        if self.kind == "timestamp":
            return [None if t is None else dt.datetime.fromisoformat(t) for t in self.texts]
        return list(self.texts)

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


def _identifier(name: str, sample: list[str], cells: list[str]) -> str | None:
    """Why this column is an identifier (never a measure), or None; shapes are judged on a sample."""
    core = normalize(name)
    if not sample:
        return None
    share = len(sample) * 0.9
    if _PHONE_HEADER.search(core) or sum(1 for c in sample if _MOBILE.match(c) or _LANDLINE.match(c)) >= share:
        return "phone"
    if _ID_NUMBER_HEADER.search(core) or sum(1 for c in sample if _ID18.match(c)) >= share:
        return "id_number"
    if _CODE_HEADER.search(core):
        return "code"
    ints = [c for c in sample if _INT.match(c)]
    if len(ints) < share:
        return None
    if any(len(c) > 1 and c.startswith("0") for c in ints):
        return "code"  # leading zeros: a code, not a quantity
    if _YEAR_HEADER.search(core) and all(1900 <= int(c) <= 2100 for c in ints):
        return "year"
    if _MEASURE_HEADER.search(core):
        return None
    whole = [int(c) for c in cells if c and _INT.match(c)]
    if len(whole) >= 5 and len(whole) >= sum(1 for c in cells if c) * 0.9:
        low, high = min(whole), max(whole)
        if high - low == len(whole) - 1 and len(set(whole)) == len(whole):
            return "sequence"
    return None


def display_value(value: object) -> str:
    """A typed value as the parser writes cells: plain decimals without trailing zeros, ISO dates."""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value else "0"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time(0) else value.isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    return "" if value is None else str(value)


def _share(sample: list[str], test: Callable[[str], object], share: float) -> bool:
    return bool(sample) and sum(1 for c in sample if test(c)) >= len(sample) * share


def _type_dates(spec: ColumnSpec, cells: list[str], sample: list[str], serials: bool) -> bool:
    if not _share(sample, lambda c: parse_date(c, serials=serials) is not None, DATE_SHARE):
        return False
    texts: list[str | None] = []
    raw_needed = False
    grains: set[str] = set()
    for c in cells:
        if not c:
            texts.append(None)
        elif _ISO_DAY.fullmatch(c):
            texts.append(c)
            grains.add("day")
        else:
            parsed = parse_date(c, serials=serials)
            if parsed is None:
                texts.append(None)
                raw_needed = True
                spec.bad_cells += 1
                continue
            when, grain = parsed
            text = when.date().isoformat() if when.time() == dt.time(0) else when.isoformat(timespec="seconds")
            texts.append(text)
            grains.add(grain)
            raw_needed = raw_needed or text != c
    if sum(1 for t in texts if t is not None) < spec.non_empty * DATE_SHARE:
        spec.bad_cells = 0
        return False
    has_time = any(t is not None and len(t) > 10 for t in texts)
    spec.kind = "timestamp" if has_time else "date"
    if has_time:
        texts = [t if t is None or len(t) > 10 else t + "T00:00:00" for t in texts]
    spec.texts = texts
    spec.granularity = "month" if grains == {"month"} else "day"
    if "serial" in grains:
        spec.notes.append("Excel serial day numbers read as dates")
    spec.raw = list(cells) if raw_needed else None
    return True


def _plain_decimals(spec: ColumnSpec, cells: list[str]) -> bool:
    """The fast path: every non-empty cell already in the parser's plain form ("1234.5", "-3")."""
    filled = [c for c in cells if c]
    if not all(map(_PLAIN.fullmatch, filled)):
        return False
    fractions = [c.partition(".")[2] for c in filled]
    scale = max(map(len, fractions), default=0)
    digits = max((len(c.lstrip("-").partition(".")[0]) for c in filled), default=1)
    spec.kind = "decimal"
    spec.scale = min(MAX_SCALE, scale)
    if scale > MAX_SCALE:
        spec.notes.append(f"values rounded to {MAX_SCALE} decimals")
    spec.precision = 18 if digits + spec.scale <= 18 else 38
    trailing = any(f.endswith("0") for f in fractions)
    leading = any(len(c) > 1 and c.lstrip("-")[:1] == "0" and c.lstrip("-")[1:2] != "." for c in filled)
    spec.raw = list(cells) if trailing or leading else None
    return True


def _type_decimals(spec: ColumnSpec, cells: list[str], sample: list[str]) -> bool:
    if not _share(sample, lambda c: parse_number(c) is not None, NUMERIC_SHARE):
        return False
    if _plain_decimals(spec, cells):
        return True
    texts: list[str | None] = []
    raw_needed = False
    scale = digits = 0
    bad = 0
    for c in cells:
        if not c:
            texts.append(None)
            continue
        if _PLAIN.fullmatch(c):  # the parser's own form: "1234.5", "-3"
            text = c
            raw_needed = raw_needed or (("." in c and c.endswith("0")) or (len(c) > 1 and c[0] == "0"
                                                                             and c[1] != "."))
        else:
            number = parse_number(c)
            if number is None:
                texts.append(None)
                bad += 1
                continue
            text = format(number, "f")
            raw_needed = True
        whole, _, frac = text.lstrip("-").partition(".")
        scale, digits = max(scale, len(frac)), max(digits, len(whole))
        texts.append(text)
    if len(texts) - texts.count(None) < spec.non_empty * NUMERIC_SHARE:
        return False
    spec.kind = "decimal"
    spec.scale = min(MAX_SCALE, scale)
    if scale > MAX_SCALE:
        spec.notes.append(f"values rounded to {MAX_SCALE} decimals")
    spec.precision = 18 if digits + spec.scale <= 18 else 38
    spec.texts = texts
    spec.bad_cells = bad
    if bad:
        spec.notes.append(f"{bad} cells are not numbers (kept as text, not counted)")
    spec.raw = list(cells) if raw_needed or bad else None
    numbers = [c for c, t in zip(cells, texts, strict=True) if t is not None]
    if numbers and sum(1 for c in numbers if c.rstrip().endswith(("%", "％"))) >= NUMERIC_SHARE * len(numbers):
        spec.notes.append(PERCENT_NOTE)
    return True


def type_columns(header_rows: list[list[str]], rows: list[list[str]]) -> list[ColumnSpec]:
    """Typed columns of one table (header rows as parsed, data rows as parsed).

    Why a sample first: a million-row sheet has mostly plain columns; the type is decided on
    the first :data:`SAMPLE` non-empty cells and then confirmed over every cell in one pass
    with fast paths for the parser's own forms ("1234.5", "2024-03-05").
    """
    width = max([len(r) for r in header_rows] + [len(r) for r in rows] + [0])
    paths = header_paths(header_rows, width)
    specs: list[ColumnSpec] = []
    columns = list(zip_longest(*rows, fillvalue="")) if rows else [() for _ in range(width)]
    for col in range(width):
        path = paths[col]
        name = " / ".join(path) if path else f"列{col + 1}"
        cells = [c.strip() if c else "" for c in columns[col]]
        spec = ColumnSpec(index=col, name=name, path=path or [name], kind="text",
                          texts=[c if c else None for c in cells])
        spec.non_empty = len(cells) - spec.texts.count(None)
        specs.append(spec)
        if not spec.non_empty:
            continue
        sample = [c for c in cells[: SAMPLE * 4] if c][:SAMPLE]
        if _DATE_HEADER.search(normalize(name)) and _type_dates(spec, cells, sample, serials=True):
            continue  # under a date header, day numbers (Excel serials) are dates
        spec.identifier = _identifier(name, sample, cells)
        if spec.identifier:
            continue  # identifiers stay text, exactly as written
        if _type_dates(spec, cells, sample, serials=False):
            continue
        _type_decimals(spec, cells, sample)
    return specs
