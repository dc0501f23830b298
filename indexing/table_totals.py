"""Totals and sub-total rows of a stored table: the sums of other rows, not rows of their own.

Why: a "Total" row counted as a nation makes "which nation won the most silver medals" answer "Total"; an "All"
row above the prize rows doubles "the total number of winning tickets"; a "Subtotal" row inside a list is summed
with the rows it sums. Whatever column holds the label, such a row is dropped at indexing time, so every query
(count, sum, ranking, list) sees the data rows only.

Two kinds of label:
- a totals word ("Total", "Totals", "Grand total", "Subtotal", "Sub-total", "合计", "总计", "小计", "Gesamt" …):
  a row whose text cells are all such words (the label may repeat, "Total","Total") and whose other cells are
  numbers or blank is dropped at the bottom as it is;
- anywhere else, or with a word that may also be data ("All", "Overall", "Sum", "Sub", "Combined", "Career",
  "全部") in one of its cells: dropped only when, in one numeric column at least, the row's number equals the
  sum of the rows it closes (the rows since the last dropped row, or every other row for a first or last row),
  two of them non-zero. "Sub" prize rows that are data keep their place.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

#: Words that label a totals or sub-total row and nothing else.
_TOTAL_WORD = re.compile(r"^\s*(?:(?:grand|career|overall)\s+)?(?:totals?|totaal|totale|totalt|gesamt|summe|"
                         r"sub[\s-]?totals?)\s*[:：]?\s*$|"
                         r"^\s*(?:合\s*计|总\s*计|总\s*和|小\s*计|全部合计|总\s*数)\s*[:：]?\s*$", re.IGNORECASE)
#: Words that label a totals row but may also be a data value: the row's numbers must be a sum.
_WEAK_WORD = re.compile(r"^\s*(?:all|overall|sum|sub|combined|career|全部|全体)\s*[:：]?\s*$", re.IGNORECASE)
_NUMERIC_CELL = re.compile(r"^\s*[-+(]?[$¥€£]?\s*[\d,]+(?:\.\d+)?\s*%?\)?\s*$")


def _number(cell: str) -> Decimal | None:
    text = re.sub(r"[\s,$¥€£%()+]", "", cell or "")
    try:
        return Decimal(text) if text and text != "-" else None
    except InvalidOperation:
        return None


def _label_kind(row: list[str]) -> str | None:
    """"strong" when the row's text cells are all totals words (and it has a number); "weak" when one of them is
    a totals word or a word that may be data ("All", "Any prize": the sum check decides); else None."""
    cells = [c for c in row if c and c.strip()]
    labels = [c for c in cells if not _NUMERIC_CELL.match(c)]
    if not labels or len(labels) == len(cells):
        return None
    if all(_TOTAL_WORD.match(c) for c in labels):
        return "strong"
    return "weak" if any(_TOTAL_WORD.match(c) or _WEAK_WORD.match(c) for c in labels) else None


def _is_sum(row: list[str], parts: list[list[str]]) -> bool:
    """Whether, in some column, the row's number is the sum of the parts' numbers (at least two parts)."""
    if len(parts) < 2:
        return False
    for i, cell in enumerate(row):
        total = _number(cell)
        values = [_number(p[i]) if i < len(p) else None for p in parts]
        if total is not None and all(v is not None for v in values) and sum(1 for v in values if v) >= 2 and \
                sum(v for v in values if v is not None) == total:  # two non-zero parts: no 0 + 1 = 1 chance
            return True
    return False


def _trailing(rows: list[list[str]]) -> list[int]:
    """The rows at the bottom with a totals word as label (dropped as they are)."""
    dropped: list[int] = []
    for i in range(len(rows) - 1, -1, -1):
        if _label_kind(rows[i]) != "strong":
            break
        dropped.append(i)
    return dropped


def totals_rows(rows: list[list[str]]) -> set[int]:
    """The positions of the totals and sub-total rows among ``rows`` (the data rows under the header)."""
    dropped = set(_trailing(rows))
    if len(dropped) >= len(rows):
        return set()
    kept = [i for i in range(len(rows)) if i not in dropped]
    first, last = kept[0], kept[-1]
    if _label_kind(rows[first]) and _is_sum(rows[first], [rows[i] for i in kept[1:]]):
        dropped.add(first)
    elif _label_kind(rows[last]) and _is_sum(rows[last], [rows[i] for i in kept[:-1]]):
        dropped.add(last)
    start = 0
    for i in kept:
        if i in dropped:
            start = i + 1
            continue
        if _label_kind(rows[i]) and _is_sum(rows[i], [rows[j] for j in range(start, i) if j not in dropped]):
            dropped.add(i)
            start = i + 1
    return dropped if len(dropped) < len(rows) else set()
