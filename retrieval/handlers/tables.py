"""Table helpers shared by the table handlers: resolve a phrase to a column, spot numeric columns, find values."""

from __future__ import annotations

from retrieval.handlers.columns import MIN_SCORE, best_column, column_score, mentioned_columns
from retrieval.handlers.numbers import parse_number
from retrieval.handlers.units import Table
from retrieval.rules.normalize import normalize

NUMERIC_SHARE = 0.6
SAMPLE_ROWS = 200
MAX_DISTINCT_SCAN = 2_000


def cell(row: list[str], index: int) -> str:
    return row[index] if index < len(row) and row[index] is not None else ""


def resolve(phrase: str | None, header: list[str], exclude: set[int] | None = None) -> int | None:
    """Column index for a phrase (fuzzy), skipping excluded columns."""
    if not phrase:
        return None
    exclude = exclude or set()
    candidates = [h if i not in exclude else "" for i, h in enumerate(header)]
    return best_column(phrase, candidates)


def split_phrase(phrase: str, header: list[str]) -> tuple[int, int] | None:
    """"地区销售额" -> (地区's index, 销售额's index): the cut whose two halves both name columns best."""
    best: tuple[float, tuple[int, int]] | None = None
    for cut in range(1, len(phrase)):
        left, right = phrase[:cut], phrase[cut:]
        li, ri = best_column(left, header), best_column(right, header)
        if li is None or ri is None or li == ri:
            continue
        score = column_score(left, header[li]) + column_score(right, header[ri])
        if best is None or score > best[0]:
            best = (score, (li, ri))
    return best[1] if best else None


def is_numeric(table: Table, index: int) -> bool:
    """Most non-empty cells of the column (in a sample) parse as numbers."""
    seen = numeric = 0
    for row in table.rows[:SAMPLE_ROWS]:
        value = cell(row, index).strip()
        if not value:
            continue
        seen += 1
        numeric += parse_number(value) is not None
    return seen > 0 and numeric / seen >= NUMERIC_SHARE


def numeric_columns(table: Table, exclude: set[int] | None = None) -> list[int]:
    exclude = exclude or set()
    return [i for i in range(len(table.header)) if i not in exclude and is_numeric(table, i)]


def pick_value_column(table: Table, instruction: str, exclude: set[int]) -> int | None:
    """A numeric column the instruction mentions, else the only numeric column."""
    numeric = numeric_columns(table, exclude)
    for i in mentioned_columns(instruction, table.header):
        if i in numeric:
            return i
    return numeric[0] if len(numeric) == 1 else None


def mentioned_value(table: Table, instruction: str) -> tuple[int, str] | None:
    """A cell value of a text column that the instruction names ("华东地区有多少条" -> (地区, 华东)); longest wins."""
    text = normalize(instruction)
    best: tuple[int, str] | None = None
    for index in range(len(table.header)):
        if is_numeric(table, index):
            continue
        seen: set[str] = set()
        for row in table.rows:
            value = cell(row, index).strip()
            if len(value) < 2 or value in seen:
                continue
            seen.add(value)
            if len(seen) > MAX_DISTINCT_SCAN:
                break
            if normalize(value) in text and (best is None or len(value) > len(best[1])):
                best = (index, value)
    return best


__all__ = ["MIN_SCORE", "cell", "is_numeric", "mentioned_value", "numeric_columns", "pick_value_column", "resolve",
           "split_phrase"]
