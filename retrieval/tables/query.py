"""The structured query a table question becomes, and the refusal when it cannot become one.

Why a module of its own: the planner builds these, the model planner validates into them, and the executor
and renderer read them; none of those needs the planner's rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from indexing.table_store import ColumnInfo, TableInfo
from retrieval.tables.lexicon import ADDITIVE_HINTS
from retrieval.tables.linked import ColumnMention, Linked

__all__ = ["AGGREGATES", "Filter", "Refusal", "TableQuery", "column_names", "is_additive", "measure_columns",
           "resolve_mention"]

AGGREGATES = ("sum", "avg", "max", "min")


@dataclass(slots=True)
class Filter:
    """One condition on one column; values are typed (Decimal, date, str)."""

    column: ColumnInfo
    op: str  # = != in not_in > >= < <= between range
    values: list[Any]
    text: str = ""  # the question words it came from
    #: a comparison with another column of the same row ("实际金额 > 预算金额"): ``values`` is then empty
    other: ColumnInfo | None = None


@dataclass(slots=True)
class TableQuery:
    """A structured query: filters, an operation, its columns; rendered to SQL and to words."""

    table: TableInfo
    op: str  # sum avg max min count count_distinct rank lookup list
    filters: list[Filter] = field(default_factory=list)
    measure: ColumnInfo | None = None
    targets: list[ColumnInfo] = field(default_factory=list)
    group: ColumnInfo | None = None
    group_unit: str | None = None  # month | quarter | year on a date column
    rank_agg: str | None = None
    limit: int | None = None
    ascending: bool = False
    implicit_sum: bool = False
    #: "前五名客户合计…": the ranked groups' values are also totalled (rank with an explicit total word)
    total_of_ranked: bool = False
    #: a lookup that lists every matching row (no condition needed): "各行动项的截止日期分别是什么时候"
    all_rows: bool = False
    #: the measure is the table's only numeric column, not one the question named (weak evidence for the table)
    implicit_measure: bool = False
    #: a distinct count no word asked for ("how many athletes …" over a column Athlete): when the matching rows
    #: repeat a value, rows and values are two readings and the query refuses (issue 35, item 2)
    implicit_distinct: bool = False
    #: a sum of a column that itself counts ("how many counties does X belong to" → sum of Number of counties)
    counted_sum: bool = False
    notes: list[tuple[str, str]] = field(default_factory=list)  # (zh, en) implicit choices said in words


@dataclass(slots=True)
class Refusal:
    """Why the question cannot be answered exactly, in both languages, with the candidates to choose from."""

    zh: str
    en: str
    candidates: dict[str, list[str]] = field(default_factory=dict)
    table: TableInfo | None = None
    #: "no_table" / "no_link": the question is not about the tables in scope (the caller answers it another
    #: way); "ambiguous" (the default): it is, but some part cannot be linked unambiguously.
    kind: str = "ambiguous"


def column_names(columns: list[ColumnInfo]) -> list[str]:
    return [c.name for c in columns]


def is_additive(column: ColumnInfo) -> bool:
    name = column.name.lower()
    return any(h in name for h in ADDITIVE_HINTS)


#: A measure verb and the header words that say which side of a score a column holds: "how many goals did KR
#: score" is the column "Goals For" (or "Goals scored"), "conceded" the column "Goals Against".
_VERB_SIDES = ((re.compile(r"\b(?:score[sd]?|scoring|netted)\b|进球", re.IGNORECASE),
                re.compile(r"\b(?:for|scored|score)\b|进球", re.IGNORECASE)),
               (re.compile(r"\b(?:concede[sd]?|conceding|allowed)\b|失球", re.IGNORECASE),
                re.compile(r"\b(?:against|conceded|allowed)\b|失球", re.IGNORECASE)))


def _by_verb(m: ColumnMention, linked: Linked) -> ColumnInfo | None:
    """The one column of an ambiguous mention ("goals": Goals For, Goals Against) whose header carries the side
    the question's measure verb names ("score" → For / scored); None when no verb, or not exactly one column."""
    for verb, side in _VERB_SIDES:
        if verb.search(linked.text):
            picked = [c for c in m.columns if c.kind == "decimal" and side.search(c.name.replace(m.text, " "))]
            if len(picked) == 1:
                return picked[0]
    return None


def resolve_mention(m: ColumnMention, linked: Linked) -> ColumnInfo | Refusal:
    """The one column a mention names; a measure verb may choose among several ("goals … score"); else refused."""
    if len(m.columns) == 1:
        return m.columns[0]
    chosen = _by_verb(m, linked)
    if chosen is not None:
        return chosen
    return Refusal(f"「{m.text}」可能指多列：{'、'.join(column_names(m.columns))}，请写明列名。",
                   f"'{m.text}' may mean several columns: {', '.join(column_names(m.columns))}; name the column.",
                   {"columns": column_names(m.columns)}, linked.table)


def measure_columns(table: TableInfo) -> list[ColumnInfo]:
    return [c for c in table.columns if c.is_measure]

