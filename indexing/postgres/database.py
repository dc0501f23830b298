"""One PostgreSQL database shared by every process: a connection pool per process, a transaction per write.

Why a pool per process (not per knowledge-base handle): the server opens one handle per answer
thread and knowledge base, and a worker pool one more; each holding its own connections would
exhaust ``max_connections`` long before the CPUs are busy. :func:`shared_pool` keeps one
``psycopg_pool.ConnectionPool`` per DSN for the life of the process (closed at exit), and every
handle borrows a connection for one statement, or for one transaction.

Why the transaction is tracked per thread: the stage-then-commit protocol of
:mod:`indexing.stores` writes the registry, the vectors and the BM25 postings through separate
objects. In PostgreSQL they all live in one database, so :meth:`Database.transaction` makes them
share the thread's open transaction: the outermost ``transaction()`` borrows a connection and
runs ``BEGIN``/``COMMIT``; nested ones are savepoints on the same connection; reads made while a
transaction is open see its writes. A document is then fully in or fully out.

Connections are in autocommit mode outside those blocks, so a read is one round trip.
"""

from __future__ import annotations

import atexit
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from officeqa.errors import ConfigurationError, StoreUnavailable

_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,62}$")
_OPEN_TIMEOUT_S = 30.0

DSN_HINT = "set storage.postgres_dsn (OFFICEQA_STORAGE__POSTGRES_DSN=postgresql://user:password@host:5432/db)"


def describe_dsn(dsn: str) -> str:
    """``host:port/db`` of a DSN, without its password (for messages)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except Exception:  # noqa: BLE001 - any parse failure: show nothing secret, say it is unreadable
        return "an unreadable DSN"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"postgresql://{host}:{port}/{parts.get('dbname') or parts.get('user') or ''}"


def quote_schema(schema: str) -> str:
    """The schema as a quoted SQL identifier (names are validated: no quote can appear)."""
    if not _SCHEMA_NAME.match(schema):
        raise ConfigurationError(
            f"storage.postgres_schema {schema!r}: use 1-63 lower-case letters, digits, '_' or '-' "
            "(starting with a letter or '_')"
        )
    return f'"{schema}"'


def _configure(conn: Any) -> None:
    """Every pooled connection understands the ``vector`` type (numpy arrays in and out)."""
    from pgvector.psycopg import register_vector

    register_vector(conn)


def ensure_extensions(dsn: str) -> None:
    """``vector`` and ``pg_trgm`` in the database (once per database; serialised across processes)."""
    import psycopg

    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
            installed = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
            if {"vector", "pg_trgm"} <= installed:
                return
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('officeqa:extensions'))")
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(f"cannot connect to PostgreSQL at {describe_dsn(dsn)}: {_first_line(exc)}") from exc
    except psycopg.Error as exc:
        raise StoreUnavailable(
            f"PostgreSQL at {describe_dsn(dsn)} cannot install the vector and pg_trgm extensions "
            f"({_first_line(exc)}); use the pgvector image or install pgvector, or create them as a superuser"
        ) from exc


def shared_pool(dsn: str, size: int) -> Any:
    """This process's connection pool for ``dsn`` (opened on first use, closed at exit)."""
    if not dsn:
        raise ConfigurationError(f"storage.backend is postgres but no DSN is set: {DSN_HINT}")
    with _POOLS_LOCK:
        pool = _POOLS.get(dsn)
        if pool is not None and not pool.closed:
            return pool
        ensure_extensions(dsn)
        from psycopg_pool import ConnectionPool, PoolTimeout

        pool = ConnectionPool(
            dsn, min_size=1, max_size=max(1, size), kwargs={"autocommit": True}, configure=_configure,
            open=False, name="officeqa",
        )
        try:
            pool.open(wait=True, timeout=_OPEN_TIMEOUT_S)
        except PoolTimeout as exc:
            pool.close()
            raise StoreUnavailable(f"cannot open connections to PostgreSQL at {describe_dsn(dsn)}") from exc
        _POOLS[dsn] = pool
        atexit.register(pool.close)
        return pool


def close_pools() -> None:
    """Close every pool of this process (tests, and processes that fork)."""
    with _POOLS_LOCK:
        for pool in _POOLS.values():
            pool.close()
        _POOLS.clear()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class Database:
    """One knowledge base's schema in a shared pool, with the calling thread's open transaction."""

    def __init__(self, pool: Any, schema: str, dsn: str) -> None:
        self.pool = pool
        self.schema = schema
        self.s = quote_schema(schema)
        self.display = f"{describe_dsn(dsn)} schema {schema}"
        self._local = threading.local()

    @property
    def in_transaction(self) -> bool:
        return getattr(self._local, "conn", None) is not None

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """The thread's transaction connection, else a pooled one (autocommit) for this block."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        import psycopg

        try:
            with self.pool.connection() as conn:
                yield conn
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"PostgreSQL at {self.display}: {_first_line(exc)}") from exc

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One transaction (outermost) or a savepoint in the thread's open one (nested)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with conn.transaction():
                yield conn
            return
        import psycopg

        try:
            with self.pool.connection() as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        yield conn
                finally:
                    self._local.conn = None
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"PostgreSQL at {self.display}: {_first_line(exc)}") from exc

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        """A read-only REPEATABLE READ transaction: the block's statements see one committed state (a search
        made of several statements cannot mix two writers' states). Inside an open transaction, that one."""
        if self.in_transaction:
            yield self._local.conn
            return
        import psycopg

        try:
            with self.pool.connection() as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                        yield conn
                finally:
                    self._local.conn = None
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"PostgreSQL at {self.display}: {_first_line(exc)}") from exc

    def execute(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Run one statement and return its rows (none for a statement without a result)."""
        with self.connection() as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description is not None else []

    def scalar(self, sql: str, params: Any = None) -> Any:
        rows = self.execute(sql, params)
        return rows[0][0] if rows else None


__all__ = ["DSN_HINT", "Database", "close_pools", "describe_dsn", "ensure_extensions", "quote_schema", "shared_pool"]
