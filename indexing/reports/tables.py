"""One report table as facts: rows (labels merged across wrapped lines, hierarchy kept) x period columns.

Why the merging: PDF table extraction splits a wrapped label ("归属于上市公司股东的扣除非经 / 常性损益的净利润（元）")
into label-only rows above and below the row that holds the values; left as they are, the metric has no
name and the question "扣非净利润" finds nothing. Why the in-table header rows: 主要会计数据 switches from
flows (2019年, 2018年) to balances (2019年末, 2018年末) half-way down without a new table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from indexing.reports.labels import clean_label, unit_of_label
from indexing.reports.periods import Period, parse_period
from indexing.reports.values import parse_value

__all__ = ["RowFact", "table_facts"]

_SKIP_COLUMNS = ("附注", "注释", "note", "notes")


@dataclass(slots=True)
class RowFact:
    """A value of one row under one column, before the table's context is added."""

    label: str
    raw_label: str
    parent: str | None
    column: str
    period: Period | None
    text: str
    value: str
    percent: bool
    unit: str | None
    row_text: str
    row: int  # index of the body row that holds the values (for its page in a table across pages)


@dataclass(slots=True)
class _Row:
    label: str
    cells: list[str]
    index: int = 0
    fragments: list[str] = field(default_factory=list)


def _carry(row: Sequence[str]) -> list[str]:
    """A header row with spanned cells filled from the left ("2019年", "", "2018年", "" -> each year twice)."""
    out: list[str] = []
    for i, cell in enumerate(row):
        cell = (cell or "").strip()
        out.append(cell if cell or i == 0 else (out[-1] if i > 1 else ""))
    return out


def _numeric(cells: Sequence[str]) -> bool:
    return any(parse_value(c) is not None for c in cells)


def _header_like(cells: Sequence[str]) -> bool:
    """A body row that is a header: no numbers, and some cell names a period or a sub-column."""
    values = [c for c in cells[1:] if c.strip()]
    if len(values) >= 2 and _years_only(values) and (not cells[0].strip() or _UNIT_LABEL.search(cells[0])):
        return True
    if not cells[0].strip() and _periods_only(values):  # "| Q4 2022 | Q4 2021 | 2022 | 2021"
        return True  # "| 2024 | 2023": bare years, under no label or a unit ("(Dollars in thousands) | 2022 | 2021")
    if not values or _numeric(cells[1:]):
        return False
    if (
        not cells[0].strip() and len(values) >= 2
    ):  # sub-column names under a spanning header (营业收入 | 营业成本 | 毛利率)
        return True
    return any(
        parse_period(c) is not None or c.strip() in ("金额", "占营业收入比重", "比重", "Amount", "%") for c in values
    )


_YEARS = re.compile(r"(?<!\d)(?:19[89]\d|20[0-4]\d)(?!\d)")


def _years_only(cells: Sequence[str]) -> bool:
    """A row whose cells print nothing but years ("2024", "2024 2023", "2024 | 2023"): a header, not data."""
    filled = [c for c in cells if (c or "").strip() and c.strip().lower() not in _SKIP_COLUMNS]  # "Note | 2022"
    return bool(filled) and all(_YEARS.search(c) and not _YEARS.sub("", c).strip(" |/") for c in filled)


def _periods_only(cells: Sequence[str]) -> bool:
    """A row whose every cell names a dated period ("Q4 2022 | Q4 2021 | 2022 | 2021", "FY22 | FY21"): a header,
    although the bare years read as numbers. A cell with an amount beside its year ("2022 1,234") is data."""
    filled = [c for c in cells if (c or "").strip() and c.strip().lower() not in _SKIP_COLUMNS]
    if len(filled) < 2 or any(re.search(r"\d[\d,]*\.\d|\d{1,3},\d{3}", c) for c in filled):
        return False
    periods = [parse_period(c) for c in filled]
    return all(p is not None and (p.year is not None or p.quarter is not None) for p in periods)


def _split_years(row: list[str]) -> list[str]:
    """A header cell that prints several years over the columns it spans ("2024 2023" above two value columns,
    "2024 | 2023" read as one cell) gives each column its own year, in printed order, instead of the first
    year to every column it spans."""
    out = list(row)
    for i, cell in enumerate(row):
        years = _YEARS.findall(cell or "")
        if len(years) < 2 or parse_period(cell) is None or parse_period(cell).change:  # type: ignore[union-attr]
            continue
        span = 1
        while i + span < len(out) and not (out[i + span] or "").strip():
            span += 1
        if span != len(years):
            continue
        shared = _YEARS.sub("", cell).replace("|", " ").strip()  # "As at December 31, 2024 2023"
        for k, year in enumerate(years):
            out[i + k] = f"{shared} {year}".strip()
    return out


def _columns(header_rows: Sequence[Sequence[str]], width: int) -> list[str]:
    """Each column's header text over several header rows, a spanning cell spread over the empty cells to its
    right. A span stops at a column that a row at its level or above heads itself, and at one that a lower
    row heads with a period or a change ("2019年 | 2018年 (调整前 | 调整后) | 增减": the 2018 span covers its two
    sub-columns, not the change column beside them, whose "增减" is printed a row lower)."""
    rows = [[(c or "").strip() for c in _split_years([*row, *[""] * (width - len(row))])] for row in header_rows]
    parts: list[list[str]] = [[] for _ in range(width)]
    for r, row in enumerate(rows):
        for i in range(1, width):
            if not row[i]:
                continue
            parts[i].append(row[i])
            span = parse_period(row[i])
            dated = span is not None and (span.year is not None or span.relative is not None)
            j = i + 1
            while j < width and not row[j] and not _heads(rows, r, j, dated):
                parts[j].append(row[i])
                j += 1
    return ["", *(" ".join(dict.fromkeys(p)) for p in parts[1:])]


def _heads(rows: Sequence[Sequence[str]], level: int, column: int, dated: bool) -> bool:
    """Whether ``column`` has a header of its own that a span from row ``level`` must not cover: one at that
    row or above, or, for a span that names a period itself, a period or change printed lower ("Year ended
    December 31," still spans the "2024 | 2023" printed under it)."""
    for k, row in enumerate(rows):
        cell = row[column] if column < len(row) else ""
        if not cell:
            continue
        if k <= level:
            return True
        if not dated:
            continue
        period = parse_period(cell)
        if period is not None and (period.year is not None or period.change or period.relative is not None):
            return True
    return False


_UNIT_LABEL = re.compile(r"in\s*(?:thousands|millions|billions)|单位|千元|万元|百万|'000", re.IGNORECASE)
_UNIT_ONLY = re.compile(r"[（(]\s*[^（）()]{1,6}\s*[）)]")
_NUMBERED = re.compile(r"^\s*(?:[一二三四五六七八九十]+、|[（(][一二三四五六七八九十\d]+[）)]|\d+[.、．])")
_PART_START = re.compile(r"^\s*(?:其中|包括|减|加)\s*[：:]")
_WRAP_MIN = 8
_CJK_END = re.compile(r"[\u4e00-\u9fff]$")
_CJK_START = re.compile(r"^[\u4e00-\u9fff]")


def _continues(fragment: str, label: str) -> bool:
    """Whether a label-only row is the first line of the labelled row below it, wrapped mid-word ("归属于上市公司
    股东的扣" above "除非经常性损益的净利润"), not a group header: a header is short, ends with a colon or is
    numbered, and the row under a header is numbered or a part ("其中：")."""
    return (
        len(fragment) >= _WRAP_MIN  # a wrapped line fills the label column; a group header is short ("分行业")
        and not fragment.endswith(("：", ":"))
        and not _NUMBERED.match(fragment)
        and not _NUMBERED.match(label)
        and not _PART_START.match(label)
        and bool(_CJK_END.search(fragment))
        and bool(_CJK_START.match(label))
    )


def _merge_rows(rows: Sequence[Sequence[str]], width: int) -> list[_Row | list[str]]:
    """Rows with wrapped labels joined; header rows inside the body kept as plain lists."""
    padded = [[(c or "").strip() for c in row] + [""] * (width - len(row)) for row in rows]
    out: list[_Row | list[str]] = []
    pending: list[str] = []
    open_row: _Row | None = None  # a values row whose label came from fragments above (may continue below)
    for index, cells in enumerate(padded):
        label, rest = cells[0], cells[1:]
        has_values = any(rest)
        if _header_like(cells):
            out.append(cells)
            pending, open_row = [], None
            continue
        if not has_values:
            if not label:
                continue
            last = next((item for item in reversed(out) if isinstance(item, _Row) and item.cells), None)
            if _UNIT_ONLY.fullmatch(label) and last is not None and not pending:  # "（元）" wrapped below its row
                last.label += label
                open_row = None
                continue
            following = padded[index + 1] if index + 1 < len(padded) else None
            continues_next = following is not None and not following[0] and _numeric(following[1:])
            if open_row is not None and not continues_next and len(open_row.fragments) > 0:
                open_row.label += label
                open_row.fragments.pop()
                continue
            open_row = None
            pending.append(label)
            continue
        if not label and pending:
            row = _Row("".join(p for p in pending if not p.endswith(("：", ":"))), cells[1:], index)
            row.fragments = [p for p in pending if not p.endswith(("：", ":"))]
            headers = [p for p in pending if p.endswith(("：", ":"))]
            out.extend(_Row(h, []) for h in headers)
            out.append(row)
            open_row, pending = row, []
            continue
        if pending and _continues(pending[-1], label):  # "归属于上市公司股东的扣" / "除非经常性损益的净利润"
            label = pending.pop() + label
        for header in pending:  # label-only rows before a labelled row are group headers ("流动资产：")
            out.append(_Row(header, []))
        pending, open_row = [], None
        out.append(_Row(label, cells[1:], index))
    return out


def _body_header(
    headers: Sequence[Sequence[str]], pending: Sequence[Sequence[str]], columns: list[str], width: int
) -> list[str]:
    """The columns after header rows printed inside the body: read together with the table's own header rows
    when no data row came before them (a header split over several rows), a new header when they name a year
    ("2019年末 | 2018年末" half-way down 主要会计数据), else sub-column names added to the current columns."""
    if headers:
        return _columns([*headers, *pending], width)
    if any((p := parse_period(c)) is not None and p.year is not None for row in pending for c in row[1:]):
        return _columns(pending, width)
    added = _columns(pending, width)
    return [f"{columns[i]} {added[i]}".strip() if added[i] else columns[i] for i in range(width)]


def table_facts(header_rows: Sequence[Sequence[str]], rows: Sequence[Sequence[str]]) -> list[RowFact]:
    """The facts of one table: each numeric cell under a column that is not a note column."""
    all_rows = [list(r) for r in [*header_rows, *rows] if r]
    if not all_rows:
        return []
    width = max(len(r) for r in all_rows)
    headers = [list(r) for r in header_rows]
    body = [list(r) for r in rows]
    shift = 0  # body rows that came from the header (row indices count from the stored body)
    first = headers[0][1:] if headers else []
    if headers and _numeric(first) and not _years_only(first) and not _periods_only(first):  # no header: it is data
        body, headers, shift = [*headers, *body], [], len(headers)
    columns = _columns(headers, width)
    facts: list[RowFact] = []
    parent: str | None = None
    group: str | None = None
    pending: list[list[str]] = []  # consecutive header rows inside the body, read as one header
    seen_data = False
    for item in _merge_rows(body, width):
        if isinstance(item, list):
            pending.append(item)
            continue
        if pending:
            columns = _body_header(headers if not seen_data else [], pending, columns, width)
            pending = []
        seen_data = seen_data or bool(item.cells)
        raw = item.label
        if not item.cells:
            group = clean_label(raw)[0] or group
            continue
        label, part = clean_label(raw)
        if not label:
            continue
        row_parent = parent if part else group
        if not part:
            parent = label
        unit = unit_of_label(raw)
        row_text = " | ".join([raw, *[c for c in item.cells if c]])
        start = len(facts)
        for i, cell in enumerate(item.cells, 1):
            column = columns[i] if i < len(columns) else ""
            if any(word in column.lower() for word in _SKIP_COLUMNS):
                continue
            parsed = parse_value(cell)
            if parsed is None:
                continue
            period = parse_period(column)
            facts.append(
                RowFact(
                    label=label,
                    raw_label=raw,
                    parent=row_parent,
                    column=column,
                    period=period,
                    text=parsed.text,
                    value=str(parsed.value),
                    percent=parsed.percent,
                    unit="%" if parsed.percent else unit,
                    row_text=row_text,
                    row=item.index - shift,
                )
            )
        _unread_duplicates(facts, start)
    return facts


def _unread_duplicates(facts: list[RowFact], start: int) -> None:
    """Two values of one row under the same column header (a span read over cells the PDF shifted: "2022" over
    "$ | | 72,426 | 60,002"): which is that period's cannot be told, so neither keeps a period."""
    seen: dict[str, int] = {}
    for fact in facts[start:]:
        if fact.period is not None and not fact.percent:
            seen[fact.column] = seen.get(fact.column, 0) + 1
    for fact in facts[start:]:
        if fact.period is not None and not fact.percent and seen.get(fact.column, 0) > 1:
            fact.period = None
