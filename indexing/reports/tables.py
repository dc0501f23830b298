"""One report table as facts: rows (labels merged across wrapped lines, hierarchy kept) x period columns.

Why the merging: PDF table extraction splits a wrapped label ("归属于上市公司股东的扣除非经 / 常性损益的净利润（元）")
into label-only rows above and below the row that holds the values; left as they are, the metric has no
name and the question "扣非净利润" finds nothing. Why the in-table header rows: 主要会计数据 switches from
flows (2019年, 2018年) to balances (2019年末, 2018年末) half-way down without a new table.
"""

from __future__ import annotations

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
    if not values or _numeric(cells[1:]):
        return False
    if (
        not cells[0].strip() and len(values) >= 2
    ):  # sub-column names under a spanning header (营业收入 | 营业成本 | 毛利率)
        return True
    return any(
        parse_period(c) is not None or c.strip() in ("金额", "占营业收入比重", "比重", "Amount", "%") for c in values
    )


def _columns(header_rows: Sequence[Sequence[str]], width: int) -> list[str]:
    columns = [""] * width
    for row in header_rows:
        carried = _carry(list(row) + [""] * (width - len(row)))
        for i in range(1, width):
            if carried[i] and carried[i] not in columns[i]:
                columns[i] = f"{columns[i]} {carried[i]}".strip()
    return columns


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
        for header in pending:  # label-only rows before a labelled row are group headers ("流动资产：")
            out.append(_Row(header, []))
        pending, open_row = [], None
        out.append(_Row(label, cells[1:], index))
    return out


def table_facts(header_rows: Sequence[Sequence[str]], rows: Sequence[Sequence[str]]) -> list[RowFact]:
    """The facts of one table: each numeric cell under a column that is not a note column."""
    all_rows = [list(r) for r in [*header_rows, *rows] if r]
    if not all_rows:
        return []
    width = max(len(r) for r in all_rows)
    headers = [list(r) for r in header_rows]
    body = [list(r) for r in rows]
    shift = 0  # body rows that came from the header (row indices count from the stored body)
    if headers and _numeric(headers[0][1:]):  # no real header: the first "header" row is data
        body, headers, shift = [*headers, *body], [], len(headers)
    columns = _columns(headers, width)
    facts: list[RowFact] = []
    parent: str | None = None
    group: str | None = None
    for item in _merge_rows(body, width):
        if isinstance(item, list):
            if any(parse_period(c) is not None and parse_period(c).year is not None for c in item[1:]):  # type: ignore[union-attr]
                columns = _columns([item], width)
            else:
                carried = _carry(item)
                columns = [f"{columns[i]} {carried[i]}".strip() if carried[i] else columns[i] for i in range(width)]
            continue
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
    return facts
