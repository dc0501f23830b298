"""Which documents' tables a table question is linked against when it names no document.

Why not the top retrieved documents: retrieval ranks passages by words, and an order sheet's rows
("DD20230197, 2023-06-15, …") rank low for "2023年12月一共有多少笔订单"; the table linker instead
reads every table's names, columns and values, which is cheap while the tables are few. Above
:data:`ALL_TABLES_UP_TO` documents with tables the caller falls back to the retrieved ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["ALL_TABLES_UP_TO", "MAX_LINKED_TABLES", "bounded_documents", "table_documents"]

#: Documents with tables up to which every one is a candidate for an unscoped table question.
ALL_TABLES_UP_TO = 40
#: Tables an unscoped table question is linked against at most (the linker reads every one's columns and values:
#: ten annual reports hold ~2,000 tables, and linking them all was ~3/4 of a no-model answer's CPU). Above it, the
#: top retrieved documents with tables, as many as fit (at least one). A question that names its documents is
#: linked against all of their tables: its scope bounds the work.
MAX_LINKED_TABLES = 150


def bounded_documents(counts: Mapping[str, int], doc_ids: list[str], retrieved: Callable[[], list[str]]) -> list[str]:
    """``doc_ids`` when their tables (``counts``: doc id -> tables) are at most :data:`MAX_LINKED_TABLES`, else the
    ``retrieved()`` ones, best first, while their tables fit (the first one always)."""
    if sum(counts.get(d, 0) for d in doc_ids) <= MAX_LINKED_TABLES:
        return doc_ids
    kept: list[str] = []
    total = 0
    for doc_id in retrieved():
        n = counts.get(doc_id, 0)
        if kept and total + n > MAX_LINKED_TABLES:
            break
        kept.append(doc_id)
        total += n
    return kept


def table_documents(catalog: Mapping[str, Any], superseded: Mapping[str, str] | None = None) -> list[str]:
    """Every catalogued document with tables (newest versions only), when there are at most
    ``ALL_TABLES_UP_TO``; else []."""
    old = superseded or {}
    with_tables = [doc_id for doc_id, entry in catalog.items() if entry.profile.has_tables and doc_id not in old]
    return with_tables if len(with_tables) <= ALL_TABLES_UP_TO else []
