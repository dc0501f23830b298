"""The knowledge base (:class:`indexing.knowledge_base.KnowledgeBase`) with every store in PostgreSQL.

Indexing, checking, repair and status are the embedded knowledge base's own methods; the stores
underneath are :class:`indexing.postgres.stores.PostgresStores`. Stored tables are not a
per-document sink here (a DuckDB file cannot be shared between machines): table questions read a
per-process DuckDB loaded from the stored parsed documents (:mod:`indexing.postgres.tables`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from indexing.knowledge_base import KnowledgeBase
from indexing.postgres.stores import PostgresStores
from indexing.postgres.tables import TableCache
from officeqa.settings import Settings

if TYPE_CHECKING:
    from indexing.table_store import TableStore
    from officeqa.embeddings import Embedder


class PostgresKnowledgeBase(PostgresStores, KnowledgeBase):
    """A knowledge base in one PostgreSQL schema (``storage.postgres_schema``)."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        super().__init__(settings, embedder)
        storage = settings.storage
        self._tables = TableCache.for_schema(
            storage.postgres_dsn, storage.postgres_schema, settings.tables.value_index_limit
        )

    @contextmanager
    def tables_for(self, doc_ids: Sequence[str]) -> Iterator[TableStore | None]:
        with self._tables.tables_for(self, doc_ids) as store:
            yield store


__all__ = ["PostgresKnowledgeBase"]
