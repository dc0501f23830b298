"""Stored tables for table questions when the knowledge base lives in PostgreSQL: a per-process DuckDB.

Why not the DuckDB file of the embedded backend: one process at a time may write a DuckDB file,
and servers on several machines cannot share one. Why not tables in PostgreSQL: the table query
layer (``retrieval/tables``) generates DuckDB SQL (``strftime``, ``min_by``, ``contains``, exact
``DECIMAL`` sums), and DuckDB answers a GROUP BY over a large sheet several times faster
(``bench/bench_postgres.py --tables`` measures the load and the query). So each process keeps an
in-memory DuckDB and loads into it, on first use, the tables of the documents a question is
scoped to, from the stored parsed documents in PostgreSQL (the same ``TableStore.put`` the
embedded index runs). Entries are keyed by document id (the content hash) and path: a document
never changes under its id, so nothing goes stale; a deleted document is no longer in any
question's scope (the catalog comes from the registry); the least recently used documents are
dropped beyond :data:`CACHED_DOCUMENTS`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from indexing.registry import INDEXED
from indexing.table_store import TableStore

if TYPE_CHECKING:
    from indexing.stores import Stores

CACHED_DOCUMENTS = 64

_CACHES: dict[tuple[str, str], TableCache] = {}
_CACHES_LOCK = threading.Lock()


class TableCache:
    """An in-memory DuckDB table store holding the tables of recently asked documents."""

    def __init__(self, value_index_limit: int) -> None:
        self.store = TableStore(":memory:", value_index_limit=value_index_limit)
        self.loaded: OrderedDict[str, str] = OrderedDict()  # doc id -> path its tables were stored under
        self.lock = threading.RLock()

    @classmethod
    def for_schema(cls, dsn: str, schema: str, value_index_limit: int) -> TableCache:
        """The process's cache of one knowledge base (shared by its answer threads)."""
        with _CACHES_LOCK:
            cache = _CACHES.get((dsn, schema))
            if cache is None:
                cache = _CACHES[(dsn, schema)] = cls(value_index_limit)
            return cache

    @contextmanager
    def tables_for(self, kb: Stores, doc_ids: Sequence[str]) -> Iterator[TableStore]:
        """The store with the tables of ``doc_ids`` loaded (held for the block: no eviction under a query)."""
        with self.lock:
            for doc_id in doc_ids:
                self._ensure(kb, doc_id)
            yield self.store

    def _ensure(self, kb: Stores, doc_id: str) -> None:
        owners = [r.path for r in kb.registry.by_doc_id(doc_id) if r.status == INDEXED]
        if not owners:
            return
        if self.loaded.get(doc_id) == owners[0]:
            self.loaded.move_to_end(doc_id)
            return
        document = kb.documents.get(doc_id)
        if document is None:
            return
        self.store.put(doc_id, owners[0], document)
        self.loaded[doc_id] = owners[0]
        while len(self.loaded) > CACHED_DOCUMENTS:
            old, _ = self.loaded.popitem(last=False)
            self.store.delete(old)


__all__ = ["CACHED_DOCUMENTS", "TableCache"]
