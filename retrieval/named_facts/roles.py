"""Officers read from the tables that list people with their titles: a 年报's 董事、监事、高级管理人员 table (姓名 |
职务 | …: "陈振宇 | 董事长"), and a 10-K's signature table ("/s/ Tim Cook | Chief Executive Officer and Director").

Why tables of their own: a 高管 table names every officer once, where 公司简介 names only the legal
representative and the board secretary; and its "董事会秘书" cell is a title, not a label with a value beside it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from officeqa.domain import Block, BlockType
from retrieval.named_facts.facts import NamedFact, looks_like_person
from retrieval.named_facts.fields import fold, label_field

__all__ = ["role_facts"]

_ROLE_FIELDS = frozenset(["chairman", "ceo", "cfo", "board_secretary"])
_NAME_HEADS = frozenset(["姓名", "name"])
_TITLE_HEADS = frozenset(["职务", "职务(注)", "现任职务", "title", "position"])
_TITLE_PARTS = re.compile(r"[、,，/;；]|\band\b|\(|\)")


def _cells(row: Sequence[str | None]) -> list[str]:
    return [re.sub(r"\s+", " ", unicodedata.normalize("NFKC", c or "")).strip() for c in row]


def role_facts(blocks: Sequence[Block]) -> list[NamedFact]:
    """Officers by title from people tables, in document order (each table's first holder of a title)."""
    found: list[NamedFact] = []
    for block in blocks:
        if block.type == BlockType.TABLE:
            found.extend(_people_table(block))
    return found


def _people_table(block: Block) -> Iterator[NamedFact]:
    rows = [_cells(r) for r in [*(block.header_rows or []), *(block.rows or [])]]
    columns = _name_and_title_columns(rows)
    for r, row in enumerate(rows):
        if columns is not None and r > columns[2]:
            name, title = columns[0], columns[1]
            if max(name, title) < len(row):
                yield from _holder(row[name], row[title], row, block.page)
        signed = [c for c in row if c.startswith("/s/")]
        if signed and len(row) >= 2:
            person = signed[0][3:].strip()
            others = " ".join(c for c in row if not c.startswith("/s/"))
            yield from _holder(person, others, row, block.page)


def _name_and_title_columns(rows: list[list[str]]) -> tuple[int, int, int] | None:
    """(name column, title column, header row) of a table whose header names both, else None."""
    for r, row in enumerate(rows[:3]):
        folded = [fold(c) for c in row]
        name = next((i for i, c in enumerate(folded) if c in _NAME_HEADS), None)
        title = next((i for i, c in enumerate(folded) if c in _TITLE_HEADS), None)
        if name is not None and title is not None:
            return name, title, r
    return None


def _holder(person: str, titles: str, row: list[str], page: int | None) -> Iterator[NamedFact]:
    if not looks_like_person(person):
        return
    for part in _TITLE_PARTS.split(titles):
        field = label_field(part.strip())
        if field in _ROLE_FIELDS:
            yield NamedFact(field, person, part.strip(), page, " | ".join(c for c in row if c), "people")
