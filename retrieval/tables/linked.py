"""What the table linker makes of a question: the mentions it found and the text it has consumed.

Why a module of its own: every linking step (columns, values, numbers, ranking, the table's own name) reads
and marks the same question text and fills the same :class:`Linked`; keeping them here lets the steps live in
modules by job without importing each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from indexing.table_store import ColumnInfo, TableInfo
from retrieval.tables.timeexpr import TimeExpr

__all__ = ["ASCII_WORD", "ColumnMention", "Linked", "NumericCondition", "QuestionText", "ValueMention", "bounded"]

ASCII_WORD = re.compile(r"[a-z0-9]")


@dataclass(slots=True)
class ColumnMention:
    """Columns named by one span of the question; several columns means the span is ambiguous."""

    start: int
    end: int
    text: str
    columns: list[ColumnInfo]
    kind: str  # "exact" | "synonym" | "partial" | "qualified" (a word that names a column only with a qualifier)
    used: bool = False

    @property
    def column(self) -> ColumnInfo:
        return self.columns[0]


@dataclass(slots=True)
class ValueMention:
    """A cell value named in the question: (column, value) candidates, possibly negated."""

    start: int
    end: int
    text: str
    candidates: list[tuple[ColumnInfo, str]]
    negated: bool = False


@dataclass(slots=True)
class NumericCondition:
    start: int
    end: int
    text: str
    op: str  # > >= < <= = between
    value: Decimal
    value2: Decimal | None = None
    mention: ColumnMention | None = None


@dataclass(slots=True)
class Linked:
    """What one table makes of the question; ``coverage`` is how much of it this table explains."""

    table: TableInfo
    text: str
    mentions: list[ColumnMention] = field(default_factory=list)
    values: list[ValueMention] = field(default_factory=list)
    times: list[TimeExpr] = field(default_factory=list)
    numeric: list[NumericCondition] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    group_mention: ColumnMention | None = None
    group_unit: str | None = None  # month | quarter | year (on the date column)
    argmax: bool = False
    person_argmax: bool = False
    topk: int | None = None
    ascending: bool = False
    sheet_named: bool = False
    row_noun: bool = False
    leftover: list[str] = field(default_factory=list)
    unattached_negation: list[str] = field(default_factory=list)
    coverage: int = 0
    #: words of the file, sheet or table name the question uses ("订单" of 订单台账.xlsx, "claims" of a sheet
    #: "Claims"): they say which table is meant, and name its rows
    identity: list[str] = field(default_factory=list)
    #: characters the table's columns, values and numeric conditions explain (no time, no operation words)
    content: int = 0
    #: characters of the question the table's own names cover (see ``affinity``)
    affinity: int = 0
    #: "卖出了多少台": the units sold, a quantity column's sum
    sold_units: bool = False
    #: "是哪天入职的": a date cell is asked for
    asks_date: bool = False
    #: the ranked group was read from part of a column name ("哪家单位" for 对方单位)
    partial_group: bool = False
    #: characters of the question read only through a translation of a cell value ("已完成" for Completed)
    borrowed: int = 0
    #: "network tickets", "which items": the key column whose plural named the rows
    row_key: ColumnInfo | None = None
    #: "库存数量低于最低库存": (left column, op, right column, words) row conditions between two columns
    column_cmps: list[tuple[ColumnInfo, str, ColumnInfo, str]] = field(default_factory=list)


class QuestionText:
    """The question with a consumed-character mask."""

    def __init__(self, text: str) -> None:
        self.text = text
        # spaces and punctuation never need explaining, but a span (a date range "7—9月") may cover them
        self.blank = [not ch.strip() or ch in ",.;:!?'\"()[]{}，。；：！？、“”‘’（）【】《》<>-—~" for ch in text]
        self.used = [False] * len(text)
        self.is_content = [False] * len(text)
        self.content = 0

    def free(self, start: int, end: int) -> bool:
        return start >= 0 and end <= len(self.text) and not any(self.used[start:end])

    def take(self, start: int, end: int, *, content: bool = False) -> None:
        for i in range(start, end):
            if not self.used[i] and not self.blank[i] and content:
                self.content += 1
                self.is_content[i] = True
            self.used[i] = True

    def find_all(self, word: str) -> list[int]:
        """Free, word-bounded (for ASCII edges) occurrences of ``word``."""
        out, pos = [], self.text.find(word)
        while pos >= 0:
            end = pos + len(word)
            if self.free(pos, end) and bounded(self.text, pos, end):
                out.append(pos)
            pos = self.text.find(word, pos + 1)
        return out

    def pieces(self) -> list[str]:
        out: list[str] = []
        current: list[str] = []
        for ch, used, blank in zip(self.text, self.used, self.blank, strict=True):
            if used or blank:
                if current:
                    out.append("".join(current))
                current = []
            else:
                current.append(ch)
        if current:
            out.append("".join(current))
        return out


def bounded(text: str, start: int, end: int) -> bool:
    if ASCII_WORD.match(text[start]) and start > 0 and ASCII_WORD.match(text[start - 1]):
        return False
    return not (ASCII_WORD.match(text[end - 1]) and end < len(text) and ASCII_WORD.match(text[end]))
