"""Every store of one knowledge base in one PostgreSQL schema, kept in step by single transactions.

Why a subclass of :class:`indexing.stores.Stores`: the commit protocol there (duplicates, replaced
versions, cancelled jobs, failures that keep the previous version, removals, reconciling,
``check``/``repair``) is about *what* to write; only *where* differs. Here the registry, the job
queue, the vectors and the BM25 postings are tables of one database, and the write lock is a
transaction holding an advisory lock: everything a writer does between taking the lock and
releasing it (staging the stores, the registry commit, dropping what a new version replaced)
commits together or not at all. A crash leaves nothing half-written; the dirty marks of the
protocol are set and cleared inside that one transaction.

Other processes see a commit the moment it is committed: nothing is cached per process (no BM25
in memory, no HNSW graph per client), so a delete reaches every server at once.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from types import TracebackType
from typing import TYPE_CHECKING

from indexing.contracts import KeywordIndex, VectorIndex
from indexing.locking import WriteLockTimeout
from indexing.postgres.bm25 import PostgresBM25
from indexing.postgres.database import Database, shared_pool
from indexing.postgres.jobs import PostgresJobQueue
from indexing.postgres.registry import PostgresRegistry
from indexing.postgres.schema import migrate
from indexing.postgres.vectors import PostgresVectorStore
from indexing.stores import Stores, _writer_identity
from officeqa.errors import StoreDamaged
from officeqa.settings import Settings

if TYPE_CHECKING:
    from indexing.sinks import DocumentSink

_MIGRATED: set[tuple[str, str]] = set()
_MIGRATED_LOCK = threading.Lock()
SCHEMA_FIX = "run `officeqa check` with this version of officeqa (it migrates the schema), or restore the database"


def open_database(settings: Settings) -> Database:
    """The knowledge base's schema on this process's pool, migrated to this program's version once per process."""
    storage = settings.storage
    pool = shared_pool(storage.postgres_dsn, storage.postgres_pool_size)
    db = Database(pool, storage.postgres_schema, storage.postgres_dsn)
    key = (storage.postgres_dsn, storage.postgres_schema)
    with _MIGRATED_LOCK:
        if key not in _MIGRATED:
            migrate(db)
            _MIGRATED.add(key)
    return db


class PostgresWriteLock:
    """One writer at a time per knowledge base, across processes and machines: a transaction that holds
    ``pg_advisory_xact_lock`` (released by the server when the holder commits, rolls back or dies).

    Re-entrant within a thread; ``held`` tells whether this thread is inside it.
    """

    def __init__(self, db: Database, timeout_s: float = 600.0) -> None:
        self.db = db
        self.timeout_s = timeout_s
        self._local = threading.local()

    @property
    def held(self) -> bool:
        return getattr(self._local, "depth", 0) > 0

    def __enter__(self) -> PostgresWriteLock:
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            import psycopg

            stack = ExitStack()
            conn = stack.enter_context(self.db.transaction())
            try:
                conn.execute("SELECT set_config('lock_timeout', %s, true)", [f"{int(self.timeout_s * 1000)}ms"])
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"officeqa:write:{self.db.schema}"])
                conn.execute("SELECT set_config('lock_timeout', '0', true)")
            except psycopg.errors.LockNotAvailable as exc:
                stack.__exit__(type(exc), exc, exc.__traceback__)
                raise WriteLockTimeout(
                    f"another process has held the write lock of {self.db.display} for more than "
                    f"{self.timeout_s:g} s; wait for it or stop it"
                ) from exc
            except BaseException as exc:
                stack.__exit__(type(exc), exc, exc.__traceback__)
                raise
            self._local.stack = stack
        self._local.depth = depth + 1
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._local.depth -= 1
        if self._local.depth == 0:
            stack, self._local.stack = self._local.stack, None
            stack.__exit__(exc_type, exc, tb)


class PostgresStores(Stores):
    """Registry, vectors, BM25, stored documents and job queue of one knowledge base in PostgreSQL."""

    backend = "postgres"
    has_store_files = False

    def _default_sinks(self) -> list[DocumentSink]:
        """None: a DuckDB table file cannot be shared between machines (see indexing/postgres/tables.py)."""
        return []

    def _open_backend(self) -> None:
        self.db = open_database(self.settings)
        registry = PostgresRegistry(self.db)
        self._bm25_postings = PostgresBM25(self.db)
        self._pg_vectors = PostgresVectorStore(self.db, self.settings.storage.postgres_ef_search)
        self.registry = registry
        self.jobs = PostgresJobQueue(registry, self.settings.jobs)
        self.lock = PostgresWriteLock(self.db)
        self.bm25_store = self._bm25_postings
        self._vectors = self._pg_vectors

    @property
    def vectors(self) -> VectorIndex:
        return self._pg_vectors

    def _open_strong_store(self) -> VectorIndex:
        """The ``strong_vectors`` table (indexing/strong.py)."""
        return PostgresVectorStore(self.db, self.settings.storage.postgres_ef_search, table="strong_vectors")

    def _strong_store_exists(self) -> bool:
        return True

    def _strong_store_key(self) -> str:
        return f"{self.settings.storage.postgres_dsn}|{self.db.schema}"

    @property
    def bm25(self) -> KeywordIndex:
        return self._bm25_postings

    def recorded_model(self) -> tuple[str, int] | None:
        return self._pg_vectors.model

    def verify_readable(self) -> None:
        problem = self.registry.quick_check()
        if problem is not None:
            raise StoreDamaged(f"the PostgreSQL schema {self.db.display}", problem, SCHEMA_FIX)

    # every read sees the committed state: nothing to refresh, no files to fingerprint
    def _sync_reader(self) -> None:
        return None

    def sync_for_write(self) -> None:
        return None

    def _record_fingerprints(self, chroma: bool = True, bm25: bool = True) -> None:
        return None

    def mark_committed(self) -> None:
        """Inside the committing transaction: bump the write generation (readers' caches key on it)."""
        self._wrote = True
        self._seen_generation = self.registry.bump_generation(_writer_identity())

    def save(self) -> None:
        """Every commit is already durable."""

    def close(self) -> None:
        """Connections belong to the process's pool; nothing else is held."""


__all__ = ["PostgresStores", "PostgresWriteLock", "open_database"]
