"""The knowledge base of the configured storage backend (``storage.backend``): the top of ``indexing/``.

Why here and not a ``KnowledgeBase.open`` classmethod: a factory inside the base class had to import
its own PostgreSQL subclass (an import cycle). This module holds the facade class of each backend and
nothing in ``indexing/`` imports it; the shells (CLI, HTTP server, eval, integrations) open their
knowledge base here. The lower-level handles (stores, registry, job queue) are chosen in
:mod:`indexing.backends`, which the worker pool and the summary thread use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from indexing.backends import backend_of
from indexing.knowledge_base import KnowledgeBase
from indexing.postgres.stores import PostgresStores
from indexing.postgres.tables import TableCache
from indexing.table_store import TableStore
from officeqa.embeddings import Embedder
from officeqa.settings import Settings


class PostgresKnowledgeBase(PostgresStores, KnowledgeBase):
    """A knowledge base in one PostgreSQL schema (``storage.postgres_schema``).

    Indexing, checking, repair and status are the embedded knowledge base's own methods; the stores
    underneath are :class:`indexing.postgres.stores.PostgresStores`. Stored tables are not a per-document
    sink here (a DuckDB file cannot be shared between machines): table questions read a per-process DuckDB
    loaded from the stored parsed documents (:mod:`indexing.postgres.tables`).
    """

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


_KNOWLEDGE_BASES: dict[str, Callable[[Settings, Embedder | None], KnowledgeBase]] = {
    "embedded": KnowledgeBase,
    "postgres": PostgresKnowledgeBase,
}


def open_knowledge_base(settings: Settings, embedder: Embedder | None = None) -> KnowledgeBase:
    """The knowledge base ``settings`` describe, in its configured backend (close it, or use it in ``with``)."""
    backend_of(settings)  # an unknown backend name is a configuration error naming the choices
    return _KNOWLEDGE_BASES[settings.storage.backend](settings, embedder)


__all__ = ["PostgresKnowledgeBase", "open_knowledge_base"]
