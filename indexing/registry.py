"""The document registry: which file is indexed as which document, with which chunks.

Why SQLite (WAL): the registry is the source of truth the other two stores (Chroma,
BM25) are checked against, so it must survive a crash mid-run and be readable while an
index job writes. One row per *path*; ``doc_id`` is the sha256 of the file's bytes, so an
unchanged file is recognised without parsing it, and a changed file gets a new id whose
chunks replace the old ones. The ``chunks`` table lists every chunk id a document owns,
which is what ``check`` compares the stores against and what ``remove`` deletes.

Statuses: ``indexed`` (chunks in every store), ``failed`` (parse/chunk refused, with
``error_kind``), ``duplicate`` (same bytes as another indexed path: its chunks are shared),
``pending`` (must be indexed again, e.g. its duplicate's owner went away), ``removed``
(the file was removed from the knowledge base; the row is kept as history).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from officeqa.errors import IndexConsistencyError

SCHEMA_VERSION = 2

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

    def to_json(self) -> dict[str, Any]:
        """The JSON shape printed by ``officeqa status --json``."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def now_iso() -> str:
    """UTC timestamp for ``indexed_at`` (seconds are enough to read a status list)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class Registry:
    """SQLite registry at ``path``; every public write method is one transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30.0)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    def _migrate(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise IndexConsistencyError(
                f"registry {self.path} has schema version {version}, newer than this program's {SCHEMA_VERSION}; "
                "upgrade officeqa or use another data_dir"
            )
        if version < SCHEMA_VERSION:
            # Version 0 is an empty file; version 2 added the ``parsed`` table (stored parsed documents).
            self._conn.executescript(_SCHEMA)  # idempotent CREATE ... IF NOT EXISTS
            self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -- transactions -------------------------------------------------------------------
    class _Tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> sqlite3.Connection:
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            self.conn.execute("ROLLBACK" if exc_type else "COMMIT")

    def transaction(self) -> Registry._Tx:
        """``with registry.transaction():`` groups writes (BEGIN IMMEDIATE ... COMMIT/ROLLBACK)."""
        return Registry._Tx(self._conn)

    # -- reads --------------------------------------------------------------------------
    def change_marker(self) -> tuple[int, int]:
        """Changes when any connection commits (``data_version``) or this one writes (``total_changes``).

        Readers cache what they derive from the registry (the question service's catalog of
        documents) and rebuild it only when this marker moves.
        """
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0]), self._conn.total_changes

    def get(self, path: str) -> DocumentRecord | None:
        row = self._conn.execute("SELECT * FROM documents WHERE path = ?", (path,)).fetchone()
        return DocumentRecord(**dict(row)) if row else None

    def by_doc_id(self, doc_id: str) -> list[DocumentRecord]:
        rows = self._conn.execute("SELECT * FROM documents WHERE doc_id = ? ORDER BY path", (doc_id,)).fetchall()
        return [DocumentRecord(**dict(r)) for r in rows]

    def find_doc_ids(self, prefix: str) -> list[str]:
        """Distinct doc ids starting with ``prefix`` (lets users type a short id)."""
        rows = self._conn.execute(
            "SELECT DISTINCT doc_id FROM documents WHERE substr(doc_id, 1, ?) = ?", (len(prefix), prefix)
        ).fetchall()
        return [r[0] for r in rows]

    def documents(self, statuses: Iterable[str] | None = None) -> list[DocumentRecord]:
        if statuses is None:
            rows = self._conn.execute("SELECT * FROM documents ORDER BY path").fetchall()
        else:
            wanted = list(statuses)
            marks = ",".join("?" * len(wanted))
            rows = self._conn.execute(
                f"SELECT * FROM documents WHERE status IN ({marks}) ORDER BY path", wanted
            ).fetchall()
        return [DocumentRecord(**dict(r)) for r in rows]

    def is_indexed(self, doc_id: str) -> bool:
        """True when some path owns ``doc_id``'s chunks (status indexed)."""
        row = self._conn.execute(
            "SELECT 1 FROM documents WHERE doc_id = ? AND status = ? LIMIT 1", (doc_id, INDEXED)
        ).fetchone()
        return row is not None

    def chunk_ids(self, doc_id: str | None = None) -> list[str]:
        if doc_id is None:
            return [r[0] for r in self._conn.execute("SELECT chunk_id FROM chunks")]
        return [
            r[0]
            for r in self._conn.execute("SELECT chunk_id FROM chunks WHERE doc_id = ? ORDER BY position", (doc_id,))
        ]

    def chunk_doc_map(self) -> dict[str, str]:
        """chunk id -> doc id for every registered chunk (used to rank by document)."""
        return {r[0]: r[1] for r in self._conn.execute("SELECT chunk_id, doc_id FROM chunks")}

    def chunk_counts(self) -> dict[str, int]:
        """doc id -> number of chunk rows."""
        return {r[0]: r[1] for r in self._conn.execute("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id")}

    def counts_by_status(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self._conn.execute("SELECT status, count(*) FROM documents GROUP BY status")}

    # -- writes (call inside ``transaction()`` to group them) ----------------------------
    def upsert(self, record: DocumentRecord) -> None:
        fields = list(asdict(record))
        marks = ",".join("?" * len(fields))
        updates = ",".join(f"{f}=excluded.{f}" for f in fields if f != "path")
        self._conn.execute(
            f"INSERT INTO documents ({','.join(fields)}) VALUES ({marks}) ON CONFLICT(path) DO UPDATE SET {updates}",
            [getattr(record, f) for f in fields],
        )

    def set_status(self, path: str, status: str, **fields: Any) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        assignments = ["status = ?"] + [f"{name} = ?" for name in fields]
        self._conn.execute(
            f"UPDATE documents SET {', '.join(assignments)} WHERE path = ?", [status, *fields.values(), path]
        )

    def replace_chunks(self, doc_id: str, chunks: Iterable[tuple[str, int]]) -> None:
        """Set the chunk rows of ``doc_id`` to ``(chunk_id, position)`` pairs."""
        self._conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
        self._conn.executemany(
            "INSERT INTO chunks (chunk_id, doc_id, position) VALUES (?, ?, ?)",
            ((cid, doc_id, pos) for cid, pos in chunks),
        )

    def delete_chunks(self, doc_id: str) -> None:
        self._conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))

    # -- stored parsed documents (questions read these, never the source files) ----------
    def put_parsed(self, doc_id: str, data: bytes, profile: str) -> None:
        """Store a parsed document (compressed JSON) and its profile (JSON) under its content hash."""
        self._conn.execute(
            "INSERT INTO parsed (doc_id, data, profile) VALUES (?, ?, ?) "
            "ON CONFLICT(doc_id) DO UPDATE SET data=excluded.data, profile=excluded.profile",
            (doc_id, data, profile),
        )

    def get_parsed(self, doc_id: str) -> bytes | None:
        row = self._conn.execute("SELECT data FROM parsed WHERE doc_id = ?", (doc_id,)).fetchone()
        return bytes(row[0]) if row else None

    def delete_parsed(self, doc_id: str) -> None:
        self._conn.execute("DELETE FROM parsed WHERE doc_id = ?", (doc_id,))

    def parsed_doc_ids(self) -> set[str]:
        return {r[0] for r in self._conn.execute("SELECT doc_id FROM parsed")}

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

    def iter_paths_under(self, folder: str) -> Iterator[DocumentRecord]:
        """Rows whose path lies inside ``folder`` (used to notice files deleted from a folder)."""
        prefix = folder.rstrip("/\\") + "/"
        for row in self._conn.execute(
            "SELECT * FROM documents WHERE substr(path, 1, ?) = ? ORDER BY path", (len(prefix), prefix)
        ):
            yield DocumentRecord(**dict(row))

    def close(self) -> None:
        self._conn.close()
