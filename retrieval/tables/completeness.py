"""Whether a parse is complete enough to run: checks the planner makes before a query may answer exactly.

Why a module of its own: issue 35 asks that every content word of a question be placed and that an incomplete
parse never answer; these are the checks that are not about one column or operation (how much of the question
is left unplaced, whether values of one column are written as a list, whether a row is asked for rather than a
number). Each is used by :mod:`retrieval.tables.plan`.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

from indexing.table_store import ColumnInfo, TableStore
from retrieval.tables.execute import compile_where
from retrieval.tables.linked import Linked, ValueMention
from retrieval.tables.query import Refusal, TableQuery

__all__ = ["ASKS_ROW", "cells_hold_lists", "listed_values", "mostly_unplaced", "numbers_as_text", "numbers_the_rows",
           "repeated_count", "rows_or_values", "unread_cells"]

#: "which …", "who …", "哪个…", "谁…": a row is asked for, not a number.
ASKS_ROW = re.compile(r"^\s*(?:which|who)\b|哪|谁", re.IGNORECASE)

_LIST_JOINS = re.compile(r"^[\s,，、/和或及与跟]*(?:and|or|和|或|及|与|跟|以及|或者|、|,|，|/)[\s,，、]*(?:the\s)?$")


def listed_values(linked: Linked, values: list[ValueMention]) -> bool:
    """Whether values of one column are written as a list ("华东和华北", "East or West", "A、B")."""
    ordered = sorted(values, key=lambda v: v.start)
    return all(_LIST_JOINS.match(linked.text[a.end:b.start]) for a, b in pairwise(ordered))


def mostly_unplaced(linked: Linked) -> bool:
    """More of the question's words are left unplaced than the table's columns, values and names explain
    ("According to the annual report, what was the total revenue of <company>?" over a report's table that links
    one word): a prose question, not a question about this table, so retrieval answers it (issue 36)."""
    unplaced = sum(1 for word in linked.leftover for ch in word if ch.strip() and ch not in ",.?!，。？！、")
    return unplaced > linked.content + linked.affinity


def _listed_names(cells: list[str]) -> bool:
    """Whether the distinct cells are lists of the same names ("Dave Burns Jamie Little Allen Bestwick", "Dave
    Burns Jamie Little Shannon Spake"): long cells (4+ words on average) of which half or more, and at least
    three, share one two-word name. Line breaks inside a cell are lost by parsing, so the words decide."""
    split = [c.split() for c in cells if c.strip()]
    if len(split) < 3 or sum(len(w) for w in split) < 4 * len(split):
        return False
    shared = Counter(pair for words in split for pair in set(pairwise(words)))
    return bool(shared) and shared.most_common(1)[0][1] * 2 >= len(split)



def _counted_text_cells(planned: TableQuery | Refusal, store: TableStore) -> tuple[ColumnInfo, list[str]] | None:
    """The counted text column of a planned distinct count or list, and its distinct non-null cells (at most 500,
    one read per question); None for any other plan."""
    if isinstance(planned, Refusal) or planned.op not in ("count_distinct", "list") or not planned.targets:
        return None
    column = planned.targets[0]
    if column.kind != "text":
        return None
    _, rows = store.query(f"SELECT DISTINCT {column.sql} FROM {planned.table.sql} WHERE {column.sql} IS NOT NULL "
                          "LIMIT 500")
    return column, [str(r[0]) for r in rows]

def cells_hold_lists(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """A distinct count or list over a text column whose cells each list several names counts the cells, not
    the names in them (the question asks how many names): it refuses.

    Why the cells and not the column's statistics: only the cells decide it, and only for the counted column of
    a query already planned (one read of its distinct cells per question)."""
    read = _counted_text_cells(planned, store)
    if read is None or not _listed_names(read[1]):
        return planned
    column = read[0]
    return Refusal(f"「{column.name}」的每个单元格里列了多个名字，按单元格计数不等于按名字计数。",
                   f"Cells of '{column.name}' each list several names: counting the cells is not counting the "
                   "names in them.", {"columns": [column.name]}, planned.table)


def numbers_the_rows(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """A sum or average of a column that only numbers the rows (1, 2, 3 … in row order: "Game", "No.", "#") is no
    quantity: "how many games did Boston play" over a game-number column would sum the game numbers. It refuses.

    Why the cells: the column's name does not say it ("Game" may count games elsewhere); the values do."""
    if isinstance(planned, Refusal) or planned.measure is None:
        return planned
    if planned.op not in ("sum", "avg") and not (planned.op == "rank" and planned.rank_agg in ("sum", "avg")):
        return planned
    column = planned.measure
    _, rows = store.query(f"SELECT {column.sql} FROM {planned.table.sql} WHERE {column.sql} IS NOT NULL "
                          "ORDER BY _row LIMIT 10001")
    values = [r[0] for r in rows]
    if len(values) < 3 or values != list(range(1, len(values) + 1)):
        return planned
    return Refusal(f"「{column.name}」只是行的序号（1、2、3…），求和没有意义。",
                   f"'{column.name}' only numbers the rows (1, 2, 3 …): its sum is no quantity.",
                   {"columns": [column.name]}, planned.table)


#: Cells that say "none" rather than hold an unread number: blank, a dash, n/a.
_NO_NUMBER = ("", "-", "—", "–", "n/a", "na", "none", "nil", "/", "?", "无", "暂无")


def unread_cells(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """A sum, average, maximum or minimum over rows of which some hold text the parser could not read as a number
    ("136 (2)", "about 120") would leave those rows out and still say "exact": it refuses, naming the column.
    Blank cells and dashes say there is no number, so they do not make it refuse."""
    if isinstance(planned, Refusal) or planned.measure is None or not planned.measure.has_raw:
        return planned
    if planned.op not in ("sum", "avg", "max", "min", "rank"):
        return planned
    m = planned.measure
    where, params = compile_where(planned.filters)
    placeholders = ", ".join("?" for _ in _NO_NUMBER)
    _, rows = store.query(f"SELECT count(*) FROM {planned.table.sql} WHERE {where} AND {m.sql} IS NULL AND "
                          f"lower(trim(r{m.index})) NOT IN ({placeholders})", [*params, *_NO_NUMBER])
    if not rows or not rows[0][0]:
        return planned
    return Refusal(f"「{m.name}」有 {rows[0][0]} 行的内容不是可读的数字，计算会漏掉它们。",
                   f"{rows[0][0]} matching rows of '{m.name}' hold text that is not a readable number; the result "
                   "would leave them out.", {"columns": [m.name]}, planned.table)


_NUMBER_TEXT = re.compile(r"^\s*-?\d[\d,]*(?:\.\d+)?\s*(?:\([^)]*\))?\s*$")


def _is_year(cell: str) -> bool:
    return cell.strip().isdigit() and 1800 <= int(cell.strip()) <= 2100


def numbers_as_text(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """"how many wins in total" over a column of numbers stored as text (a few cells like "2 (1)" made it text)
    asks for their sum, not how many different numbers there are: a distinct count or list of such a column
    refuses. Years are numbers whose distinct count is meaningful ("how many different years"), so they pass."""
    read = _counted_text_cells(planned, store)
    if read is None:
        return planned
    column, cells = read[0], [c for c in read[1] if c.strip()]
    numbers = [c for c in cells if _NUMBER_TEXT.match(c) and not _is_year(c)]
    if not cells or len(numbers) * 2 < len(cells):
        return planned
    return Refusal(f"「{column.name}」的单元格多是数字：要求和，还是数不同的值？",
                   f"Cells of '{column.name}' are mostly numbers: their sum, or how many different values?",
                   {"columns": [column.name]}, planned.table)


def rows_or_values(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """"How many athletes are not from France?" over a column Athlete that repeats a name among the matching rows:
    the rows (performances) and the different names are two readings no word of the question chooses between; it
    refuses and says both, with or without a condition ("how many events are there" over a table that lists an
    event twice is the same two readings). A distinct count a word asked for ("how many different …"), one equal
    to the row count, or one over a table whose rows have a key of their own (games G1…G5: "how many teams" are
    values) passes."""
    if isinstance(planned, Refusal) or planned.op != "count_distinct" or not planned.implicit_distinct or \
            len(planned.targets) != 1:
        return planned
    column, table = planned.targets[0], planned.table
    if any(c.index != column.index and c.identifier and c.distinct == table.row_count for c in table.columns):
        return planned
    where, params = compile_where(planned.filters)
    _, rows = store.query(f"SELECT count({column.sql}), count(DISTINCT {column.sql}) FROM {planned.table.sql} "
                          f"WHERE {where}", params)
    if not rows or rows[0][0] == rows[0][1]:
        return planned
    n, distinct = rows[0]
    return Refusal(f"符合条件的有 {n} 行，但「{column.name}」只有 {distinct} 个不同的值：要数行，还是数不同的值？",
                   f"{n} matching rows, but {distinct} different values of '{column.name}': count the rows, or "
                   "the different values?", {"columns": [column.name]}, planned.table)


def repeated_count(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """"How many counties does Schuyler belong to?" where Schuyler has two rows (one per county) that each say 2:
    the rows repeat one thing's count, so their sum (4) double-counts it; with every matching row holding the same
    count, the number and the sum are two readings, and it refuses saying both. Different counts are summed."""
    if isinstance(planned, Refusal) or planned.op != "sum" or not planned.counted_sum or planned.measure is None \
            or not any(f.op == "=" for f in planned.filters):
        return planned
    m = planned.measure
    where, params = compile_where(planned.filters)
    _, rows = store.query(f"SELECT count({m.sql}), count(DISTINCT {m.sql}), min({m.sql}), sum({m.sql}) FROM "
                          f"{planned.table.sql} WHERE {where}", params)
    if not rows or rows[0][0] < 2 or rows[0][1] != 1 or not rows[0][2]:
        return planned
    n, _, each, total = rows[0]
    return Refusal(f"符合条件的 {n} 行的「{m.name}」都是 {each}：是 {each}，还是合计 {total}？",
                   f"Each of the {n} matching rows says '{m.name}' = {each}: is it {each}, or their sum {total}?",
                   {"columns": [m.name]}, planned.table)
