"""Which documents' tables a table question is linked against when it names no document.

Why not the top retrieved documents: retrieval ranks passages by words, and an order sheet's rows
("DD20230197, 2023-06-15, …") rank low for "2023年12月一共有多少笔订单"; the table linker instead
reads every table's names, columns and values, which is cheap while the tables are few. Above
:data:`ALL_TABLES_UP_TO` documents with tables the caller falls back to the retrieved ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ALL_TABLES_UP_TO", "table_documents"]

#: Documents with tables up to which every one is a candidate for an unscoped table question.
ALL_TABLES_UP_TO = 40


def table_documents(catalog: Mapping[str, Any], superseded: Mapping[str, str] | None = None) -> list[str]:
    """Every catalogued document with tables (newest versions only), when there are at most
    ``ALL_TABLES_UP_TO``; else []."""
    old = superseded or {}
    with_tables = [doc_id for doc_id, entry in catalog.items() if entry.profile.has_tables and doc_id not in old]
    return with_tables if len(with_tables) <= ALL_TABLES_UP_TO else []
