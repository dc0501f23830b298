"""The document registry: which file is indexed as which document, with which chunks.

Why SQLite (WAL): the registry is the source of truth the other stores (Chroma, BM25, the
stored documents, tables) are checked against, so it must survive a crash mid-run and be
readable while an index job writes. One row per *path*; ``doc_id`` is the sha256 of the
file's bytes, so an unchanged file is recognised without parsing it, and a changed file
gets a new id whose chunks replace the old ones. The ``chunks`` table lists every chunk id
a document owns, which is what ``check`` compares the stores against and what ``remove``
deletes.

The same database holds the ingestion job queue (``jobs``, see :mod:`indexing.jobs`):
a document's commit marks its job done in the transaction that makes it visible, so a
crash can never leave a document indexed with its job still running, or the reverse.
It also holds ``exclusions`` (paths ``remove``d from indexed folders), ``dirty`` (doc ids
whose chunks some store may hold without the registry listing them: staged but not
committed, or replaced but not yet dropped) and ``meta`` (a write generation, so other
processes notice a write and refresh their in-memory views).

Statuses: ``indexed`` (chunks in every store), ``failed`` (parse/chunk refused, with
``error_kind``), ``duplicate`` (same bytes as another indexed path: its chunks are shared),
``pending`` (must be indexed again, e.g. its duplicate's owner went away), ``removed``
(the file was removed from the knowledge base; the row is kept as history).

Paths are stored losslessly: a path that is valid UTF-8 as TEXT, one holding undecodable
bytes (a ``surrogateescape``d ``str``) as the raw bytes in a BLOB.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from officeqa.errors import IndexConsistencyError, StoreDamaged

SCHEMA_VERSION = 3

INDEXED = "indexed"
FAILED = "failed"
DUPLICATE = "duplicate"
PENDING = "pending"
REMOVED = "removed"
STATUSES = (INDEXED, FAILED, DUPLICATE, PENDING, REMOVED)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    path            TEXT PRIMARY KEY,
    doc_id          TEXT NOT NULL,
    file_type       TEXT NOT NULL DEFAULT '',
    size            INTEGER NOT NULL DEFAULT 0,
    mtime           REAL NOT NULL DEFAULT 0,
    status          TEXT NOT NULL,
    chunk_count     INTEGER NOT NULL DEFAULT 0,
    error_kind      TEXT,
    error_message   TEXT,
    embedding_model TEXT,
    indexed_at      TEXT
);
CREATE INDEX IF NOT EXISTS documents_doc_id ON documents(doc_id);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY,
    doc_id   TEXT NOT NULL,
    position INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS chunks_doc_id ON chunks(doc_id);
CREATE TABLE IF NOT EXISTS parsed (
    doc_id  TEXT PRIMARY KEY,
    data    BLOB NOT NULL,
    profile TEXT NOT NULL
);
"""

# Version 3: the job queue, exclusions, the dirty list, meta, and per-document index settings.
_SCHEMA_V3 = """
CREATE TABLE IF NOT EXISTS jobs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    path            TEXT NOT NULL,
    doc_hash        TEXT,
    kind            TEXT NOT NULL,
    state           TEXT NOT NULL,
    force           INTEGER NOT NULL DEFAULT 0,
    source          TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 0,
    interruptions   INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL NOT NULL DEFAULT 0,
    error_kind      TEXT,
    error_message   TEXT,
    outcome         TEXT,
    chunks          INTEGER NOT NULL DEFAULT 0,
    rerun_kind      TEXT,
    worker_id       TEXT,
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL,
    started_at      REAL,
    finished_at     REAL,
    heartbeat_at    REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS jobs_one_live_per_path ON jobs(path) WHERE state IN ('PENDING', 'RUNNING', 'RETRY');
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, next_attempt_at);
CREATE INDEX IF NOT EXISTS jobs_path ON jobs(path);
CREATE TABLE IF NOT EXISTS exclusions (
    path       TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dirty (
    doc_id TEXT PRIMARY KEY,
    since  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

T = TypeVar("T")

REGISTRY_FIX = (
    "run `officeqa reindex` to rebuild it from the source files named in the vector store "
    "(the damaged file is kept beside it), or `officeqa index FOLDER` again"
)


def db_path(path: str) -> str | bytes:
    """How a path is stored: TEXT when it is UTF-8, else its raw bytes (BLOB), so nothing is lost."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return path


def from_db_path(value: str | bytes) -> str:
    return os.fsdecode(value) if isinstance(value, bytes) else value


def is_damage(exc: sqlite3.Error) -> bool:
    """True for errors that mean the file is not a usable database (not "locked", not a constraint)."""
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError):
        return False
    text = str(exc).lower()
    return not any(word in text for word in ("locked", "busy", "no such savepoint", "cannot start a transaction"))


def damage_guard(func: Callable[..., T]) -> Callable[..., T]:
    """Turn a damaged-file sqlite error inside a registry method into one clear :class:`StoreDamaged`."""

    @functools.wraps(func)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> T:
        try:
            return func(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            raise StoreDamaged(f"the registry {self.path}", str(exc), REGISTRY_FIX) from exc

    return wrapper


@dataclass(slots=True)
class DocumentRecord:
    """One row of the registry (one path)."""

    path: str
    doc_id: str
    file_type: str = ""
    size: int = 0
    mtime: float = 0.0
    status: str = INDEXED
    chunk_count: int = 0
    error_kind: str | None = None
    error_message: str | None = None
    embedding_model: str | None = None
    indexed_at: str | None = None
    index_settings: str | None = None  # JSON of the chunking/embedding settings it was indexed with

    def to_json(self) -> dict[str, Any]:
        """The JSON shape printed by ``officeqa status --json`` (paths shown escaped when not UTF-8)."""
        out = {k: v for k, v in asdict(self).items() if v is not None and k != "index_settings"}
        out["path"] = self.path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        return out


_FIELDS = [f.name for f in fields(DocumentRecord)]


def now_iso() -> str:
    """UTC timestamp for ``indexed_at`` (seconds are enough to read a status list)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _record(row: sqlite3.Row) -> DocumentRecord:
    values: dict[str, Any] = dict(row)
    values["path"] = from_db_path(values["path"])
    fields_of_row: dict[str, Any] = {k: values.get(k) for k in _FIELDS}
    return DocumentRecord(**fields_of_row)


class Registry:
    """SQLite registry at ``path``; every public write method is one transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=60.0)
        self._conn.row_factory = sqlite3.Row
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if not is_damage(exc):
                raise
            raise StoreDamaged(f"the registry {self.path}", str(exc), REGISTRY_FIX) from exc

    def _migrate(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise IndexConsistencyError(
                f"registry {self.path} has schema version {version}, newer than this program's {SCHEMA_VERSION}; "
                "upgrade officeqa or use another data_dir"
            )
        if version < SCHEMA_VERSION:
            with self.transaction():
                # Version 0 is an empty file; 2 added ``parsed`` (stored parsed documents); 3 the job queue.
                for statement in (_SCHEMA + _SCHEMA_V3).split(";"):
                    if statement.strip():
                        self._conn.execute(statement)
                columns = {r[1] for r in self._conn.execute("PRAGMA table_info(documents)")}
                if "index_settings" not in columns:
                    self._conn.execute("ALTER TABLE documents ADD COLUMN index_settings TEXT")
                self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @damage_guard
    def quick_check(self) -> str | None:
        """SQLite's ``quick_check``: None when the file is sound, else the first problem it reports."""
        rows = [r[0] for r in self._conn.execute("PRAGMA quick_check(3)")]
        return None if rows == ["ok"] else "; ".join(rows)

    # -- transactions -------------------------------------------------------------------
    class _Tx:
        def __init__(self, registry: Registry) -> None:
            self.registry = registry
            self.conn = registry._conn

        def __enter__(self) -> sqlite3.Connection:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                if not is_damage(exc):
                    raise
                raise StoreDamaged(f"the registry {self.registry.path}", str(exc), REGISTRY_FIX) from exc
            return self.conn

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            if exc_type is None:
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.DatabaseError as error:
                    self.conn.execute("ROLLBACK")
                    if not is_damage(error):
                        raise
                    raise StoreDamaged(f"the registry {self.registry.path}", str(error), REGISTRY_FIX) from error
            elif self.conn.in_transaction:
                self.conn.execute("ROLLBACK")

    def transaction(self) -> Registry._Tx:
        """``with registry.transaction():`` groups writes (BEGIN IMMEDIATE ... COMMIT/ROLLBACK)."""
        return Registry._Tx(self)

    @property
    def connection(self) -> sqlite3.Connection:
        """The connection, for :mod:`indexing.jobs` (whose transitions share the registry's transactions)."""
        return self._conn

    # -- reads --------------------------------------------------------------------------
    def change_marker(self) -> tuple[int, int]:
        """Changes when any connection commits (``data_version``) or this one writes (``total_changes``).

        Readers cache what they derive from the registry (the question service's catalog of
        documents) and rebuild it only when this marker moves.
        """
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0]), self._conn.total_changes

    @damage_guard
    def get(self, path: str) -> DocumentRecord | None:
        row = self._conn.execute("SELECT * FROM documents WHERE path = ?", (db_path(path),)).fetchone()
        return _record(row) if row else None

    @damage_guard
    def by_doc_id(self, doc_id: str) -> list[DocumentRecord]:
        rows = self._conn.execute("SELECT * FROM documents WHERE doc_id = ? ORDER BY path", (doc_id,)).fetchall()
        return [_record(r) for r in rows]

    @damage_guard
    def find_doc_ids(self, prefix: str) -> list[str]:
        """Distinct doc ids starting with ``prefix`` (lets users type a short id)."""
        rows = self._conn.execute(
            "SELECT DISTINCT doc_id FROM documents WHERE substr(doc_id, 1, ?) = ?", (len(prefix), prefix)
        ).fetchall()
        return [r[0] for r in rows]

    @damage_guard
    def documents(self, statuses: Iterable[str] | None = None) -> list[DocumentRecord]:
        if statuses is None:
            rows = self._conn.execute("SELECT * FROM documents ORDER BY path").fetchall()
        else:
            wanted = list(statuses)
            marks = ",".join("?" * len(wanted))
            rows = self._conn.execute(
                f"SELECT * FROM documents WHERE status IN ({marks}) ORDER BY path", wanted
            ).fetchall()
        return [_record(r) for r in rows]

    @damage_guard
    def is_indexed(self, doc_id: str) -> bool:
        """True when some path owns ``doc_id``'s chunks (status indexed)."""
        row = self._conn.execute(
            "SELECT 1 FROM documents WHERE doc_id = ? AND status = ? LIMIT 1", (doc_id, INDEXED)
        ).fetchone()
        return row is not None

    @damage_guard
    def chunk_ids(self, doc_id: str | None = None) -> list[str]:
        if doc_id is None:
            return [r[0] for r in self._conn.execute("SELECT chunk_id FROM chunks")]
        return [
            r[0]
            for r in self._conn.execute("SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY position", (doc_id,))
        ]

    @damage_guard
    def chunk_doc_map(self) -> dict[str, str]:
        """chunk id -> doc id for every registered chunk (used to rank by document)."""
        return {r[0]: r[1] for r in self._conn.execute("SELECT chunk_id, doc_id FROM chunks")}

    @damage_guard
    def chunk_counts(self) -> dict[str, int]:
        """doc id -> number of chunk rows."""
        return {r[0]: r[1] for r in self._conn.execute("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id")}

    @damage_guard
    def counts_by_status(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self._conn.execute("SELECT status, count(*) FROM documents GROUP BY status")}

    @damage_guard
    def paths_under(self, folder: str) -> list[DocumentRecord]:
        """Rows whose path lies inside ``folder`` (used to notice files deleted from a folder)."""
        prefix = os.fsencode(folder.rstrip("/\\") + "/")
        rows = self._conn.execute(
            "SELECT * FROM documents WHERE substr(CAST(path AS BLOB), 1, ?) = ? ORDER BY path", (len(prefix), prefix)
        ).fetchall()
        return [_record(r) for r in rows]

    def iter_paths_under(self, folder: str) -> Iterable[DocumentRecord]:
        """Kept for callers of the old generator; see :meth:`paths_under`."""
        return iter(self.paths_under(folder))

    # -- writes (call inside ``transaction()`` to group them) ----------------------------
    @damage_guard
    def upsert(self, record: DocumentRecord) -> None:
        marks = ",".join("?" * len(_FIELDS))
        updates = ",".join(f"{f}=excluded.{f}" for f in _FIELDS if f != "path")
        values = [getattr(record, f) for f in _FIELDS]
        values[0] = db_path(record.path)
        self._conn.execute(
            f"INSERT INTO documents ({','.join(_FIELDS)}) VALUES ({marks}) ON CONFLICT(path) DO UPDATE SET {updates}",
            values,
        )

    @damage_guard
    def set_status(self, path: str, status: str, **values: Any) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        assignments = ["status = ?"] + [f"{name} = ?" for name in values]
        self._conn.execute(
            f"UPDATE documents SET {', '.join(assignments)} WHERE path = ?", [status, *values.values(), db_path(path)]
        )

    @damage_guard
    def replace_chunks(self, doc_id: str, chunks: Iterable[tuple[str, int]]) -> None:
        """Set the chunk rows of ``doc_id`` to ``(chunk_id, position)`` pairs."""
        self._conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
        self._conn.executemany(
            "INSERT INTO chunks (chunk_id, doc_id, position) VALUES (?, ?, ?)",
            ((cid, doc_id, pos) for cid, pos in chunks),
        )

    @damage_guard
    def delete_chunks(self, doc_id: str) -> None:
        self._conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))

    # -- stored parsed documents (questions read these, never the source files) ----------
    @damage_guard
    def put_parsed(self, doc_id: str, data: bytes, profile: str) -> None:
        """Store a parsed document (compressed JSON) and its profile (JSON) under its content hash."""
        self._conn.execute(
            "INSERT INTO parsed (doc_id, data, profile) VALUES (?, ?, ?) "
            "ON CONFLICT(doc_id) DO UPDATE SET data=excluded.data, profile=excluded.profile",
            (doc_id, data, profile),
        )

    @damage_guard
    def get_parsed(self, doc_id: str) -> bytes | None:
        row = self._conn.execute("SELECT data FROM parsed WHERE doc_id = ?", (doc_id,)).fetchone()
        return bytes(row[0]) if row else None

    @damage_guard
    def delete_parsed(self, doc_id: str) -> None:
        self._conn.execute("DELETE FROM parsed WHERE doc_id = ?", (doc_id,))

    @damage_guard
    def parsed_doc_ids(self) -> set[str]:
        return {r[0] for r in self._conn.execute("SELECT doc_id FROM parsed")}

    @damage_guard
    def profiles(self, doc_ids: Iterable[str] | None = None) -> dict[str, str]:
        """doc id -> profile JSON, for ``doc_ids`` or every stored document."""
        if doc_ids is None:
            return {r[0]: r[1] for r in self._conn.execute("SELECT doc_id, profile FROM parsed")}
        wanted = list(doc_ids)
        out: dict[str, str] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn.execute(f"SELECT doc_id, profile FROM parsed WHERE doc_id IN ({marks})", part)
            out.update({r[0]: r[1] for r in rows})
        return out

    # -- exclusions: files ``remove``d from an indexed folder stay out ---------------------
    @damage_guard
    def exclude(self, path: str) -> None:
        self._conn.execute(
            "INSERT INTO exclusions (path, created_at) VALUES (?, ?) ON CONFLICT(path) DO NOTHING",
            (db_path(path), now_iso()),
        )

    @damage_guard
    def lift_exclusion(self, path: str) -> bool:
        return self._conn.execute("DELETE FROM exclusions WHERE path = ?", (db_path(path),)).rowcount > 0

    @damage_guard
    def lift_exclusions_under(self, folder: str) -> int:
        prefix = os.fsencode(folder.rstrip("/\\") + "/")
        return self._conn.execute(
            "DELETE FROM exclusions WHERE substr(CAST(path AS BLOB), 1, ?) = ?", (len(prefix), prefix)
        ).rowcount

    @damage_guard
    def exclusions(self) -> set[str]:
        return {from_db_path(r[0]) for r in self._conn.execute("SELECT path FROM exclusions")}

    # -- dirty doc ids: some store may hold their chunks without the registry listing them --
    @damage_guard
    def mark_dirty(self, doc_ids: Iterable[str]) -> None:
        stamp = now_iso()
        self._conn.executemany(
            "INSERT INTO dirty (doc_id, since) VALUES (?, ?) ON CONFLICT(doc_id) DO NOTHING",
            ((d, stamp) for d in doc_ids),
        )

    @damage_guard
    def clear_dirty(self, doc_ids: Iterable[str]) -> None:
        self._conn.executemany("DELETE FROM dirty WHERE doc_id = ?", ((d,) for d in doc_ids))

    @damage_guard
    def dirty_doc_ids(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT doc_id FROM dirty ORDER BY since, doc_id")]

    # -- meta: small key/value facts (write generation, store fingerprints) ----------------
    @damage_guard
    def get_meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @damage_guard
    def set_meta(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    def generation(self) -> int:
        """How many committed writes this knowledge base has seen (any process); bumped by every commit."""
        return int(self.get_meta("generation") or 0)

    def bump_generation(self, writer: str) -> int:
        """Call inside the committing transaction: the new generation, and who wrote it."""
        value = self.generation() + 1
        self.set_meta("generation", str(value))
        self.set_meta("writer", writer)
        return value

    def close(self) -> None:
        self._conn.close()
