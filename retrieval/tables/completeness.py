"""Whether a parse is complete enough to run: checks the planner makes before a query may answer exactly.

Why a module of its own: issue 35 asks that every content word of a question be placed and that an incomplete
parse never answer; these are the checks that are not about one column or operation (how much of the question
is left unplaced, whether values of one column are written as a list, whether a row is asked for rather than a
number). Each is used by :mod:`retrieval.tables.plan`.
"""

from __future__ import annotations

import re
from itertools import pairwise

from retrieval.tables.linked import Linked, ValueMention

__all__ = ["ASKS_ROW", "listed_values", "mostly_unplaced"]

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
