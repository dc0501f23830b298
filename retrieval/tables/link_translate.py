"""Cell values written in the other language: "退货订单" over an English csv whose Status says "Returned",
"completed orders" over a sheet whose 状态 says "已完成".

Why a rewrite of the question and not a second value index: the value linker then reads the question as if
the user had typed the table's own word, with every check it already makes (spans, negation, ambiguity). Only
the common status and place words of ``synonyms.yaml`` (``values:``) are translated, only into a value the
table holds, and never a word that is part of one of the table's column names.
"""

from __future__ import annotations

import functools
from importlib import resources

import yaml

from indexing.table_store import TableInfo, TableStore
from retrieval.handlers.columns import column_core
from retrieval.rules.normalize import normalize
from retrieval.tables.linked import bounded

__all__ = ["translate_values"]


@functools.lru_cache(maxsize=1)
def value_synonyms() -> tuple[tuple[str, ...], ...]:
    """Groups of one cell value in Chinese and English, longest word first."""
    text = resources.files("retrieval.tables").joinpath("synonyms.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    return tuple(tuple(sorted({normalize(str(w)) for w in group}, key=len, reverse=True))
                 for group in data.get("values", []))


def _occurrence(text: str, word: str) -> int:
    pos = text.find(word)
    while pos >= 0 and not bounded(text, pos, pos + len(word)):
        pos = text.find(word, pos + 1)
    return pos


def translate_values(text: str, table: TableInfo, store: TableStore) -> tuple[str, int, int]:
    """The question with a status or place word replaced by the table's value of the same meaning, if any; how
    many characters longer that made it (the linker's coverage counts the question's own characters: a
    translated "completed" must not weigh three times the "已完成" the user wrote), and how many of the user's
    characters were translated (a table that needs the translation is second to one that does not)."""
    grown = borrowed = 0
    cores = [normalize(column_core(c.name)) for c in table.columns]
    for group in value_synonyms():
        asked = [w for w in group if _occurrence(text, w) >= 0 and not any(w in core for core in cores)]
        if not asked:
            continue
        held = {h.norm for h in store.values_in([table.table_id], " | ".join(group)) if h.norm in group}
        if len(held) != 1 or held & set(asked):
            continue  # none, several, or the question already uses the table's own word
        word, value = asked[0], held.pop()
        pos = _occurrence(text, word)
        text = text[:pos] + value + text[pos + len(word):]
        grown += len(value) - len(word)
        borrowed += len(word)
    return text, grown, borrowed
