"""The document registry in PostgreSQL: the same methods as :class:`indexing.registry.Registry`.

Why the same surface: the commit protocol (:mod:`indexing.stores`), ingestion, ``check``, the
question service and the server call these methods by name; they do not know which database
answers. Paths are stored as their exact bytes (``bytea``): a file name that is not UTF-8 is
kept losslessly, as the SQLite registry keeps it in a BLOB. Every method runs in the calling
thread's open transaction when there is one (:meth:`Database.transaction`), else on its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from indexing.postgres.database import Database
from indexing.postgres.schema import schema_problem
from indexing.registry import STATUSES, DocumentRecord, now_iso

_FIELDS = [
    "path", "doc_id", "file_type", "size", "mtime", "status", "chunk_count", "error_kind", "error_message",
    "embedding_model", "indexed_at", "index_settings",
]
_COLUMNS = ", ".join(_FIELDS)


def pg_path(path: str) -> bytes:
    """A path as stored: its exact bytes."""
    return os.fsencode(path)


def from_pg_path(value: bytes | memoryview) -> str:
    return os.fsdecode(bytes(value))


def _record(row: tuple[Any, ...]) -> DocumentRecord:
    values = dict(zip(_FIELDS, row, strict=True))
    values["path"] = from_pg_path(values["path"])
    return DocumentRecord(**values)


class PostgresRegistry:
    """The registry tables of one knowledge-base schema."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.s = db.s
        self.path = db.display  # named in messages, like the SQLite file's path

    # -- transactions -------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """``with registry.transaction():`` groups writes (nested: a savepoint of the open transaction)."""
        with self.db.transaction() as conn:
            yield conn

    def quick_check(self) -> str | None:
        return schema_problem(self.db)

    def change_marker(self) -> tuple[int, int]:
        """Moves with every commit of any process (the write generation)."""
        return self.generation(), 0

    def _rows(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return self.db.execute(sql.replace("{s}", self.s), params)

    # -- reads --------------------------------------------------------------------------
    def get(self, path: str) -> DocumentRecord | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.documents WHERE path = %s", [pg_path(path)])
        return _record(rows[0]) if rows else None

    def by_doc_id(self, doc_id: str) -> list[DocumentRecord]:
        rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.documents WHERE doc_id = %s ORDER BY path", [doc_id])
        return [_record(r) for r in rows]

    def find_doc_ids(self, prefix: str) -> list[str]:
        rows = self._rows("SELECT DISTINCT doc_id FROM {s}.documents WHERE starts_with(doc_id, %s)", [prefix])
        return [r[0] for r in rows]

    def documents(self, statuses: Iterable[str] | None = None) -> list[DocumentRecord]:
        if statuses is None:
            rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.documents ORDER BY path")
        else:
            rows = self._rows(
                f"SELECT {_COLUMNS} FROM {{s}}.documents WHERE status = ANY(%s) ORDER BY path", [list(statuses)]
            )
        return [_record(r) for r in rows]

    def is_indexed(self, doc_id: str) -> bool:
        rows = self._rows("SELECT 1 FROM {s}.documents WHERE doc_id = %s AND status = 'indexed' LIMIT 1", [doc_id])
        return bool(rows)

    def chunk_ids(self, doc_id: str | None = None) -> list[str]:
        if doc_id is None:
            return [r[0] for r in self._rows("SELECT chunk_id FROM {s}.chunks")]
        rows = self._rows("SELECT chunk_id FROM {s}.chunks WHERE doc_id = %s ORDER BY position", [doc_id])
        return [r[0] for r in rows]

    def chunk_doc_map(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._rows("SELECT chunk_id, doc_id FROM {s}.chunks")}

    def chunk_counts(self) -> dict[str, int]:
        return {r[0]: int(r[1]) for r in self._rows("SELECT doc_id, count(*) FROM {s}.chunks GROUP BY doc_id")}

    def counts_by_status(self) -> dict[str, int]:
        return {r[0]: int(r[1]) for r in self._rows("SELECT status, count(*) FROM {s}.documents GROUP BY status")}

    def paths_under(self, folder: str) -> list[DocumentRecord]:
        prefix = os.fsencode(folder.rstrip("/\\") + "/")
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM {{s}}.documents WHERE substring(path FROM 1 FOR %s) = %s ORDER BY path",
            [len(prefix), prefix],
        )
        return [_record(r) for r in rows]

    def iter_paths_under(self, folder: str) -> Iterable[DocumentRecord]:
        return iter(self.paths_under(folder))

    # -- writes ---------------------------------------------------------------------------
    def upsert(self, record: DocumentRecord) -> None:
        values = [getattr(record, f) for f in _FIELDS]
        values[0] = pg_path(record.path)
        updates = ", ".join(f"{f} = EXCLUDED.{f}" for f in _FIELDS if f != "path")
        marks = ", ".join(["%s"] * len(_FIELDS))
        self._rows(
            f"INSERT INTO {{s}}.documents ({_COLUMNS}) VALUES ({marks}) ON CONFLICT (path) DO UPDATE SET {updates}",
            values,
        )

    def set_status(self, path: str, status: str, **values: Any) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        unknown = set(values) - set(_FIELDS)
        if unknown:
            raise ValueError(f"unknown registry fields {sorted(unknown)}")
        assignments = ["status = %s"] + [f"{name} = %s" for name in values]
        self._rows(
            f"UPDATE {{s}}.documents SET {', '.join(assignments)} WHERE path = %s",
            [status, *values.values(), pg_path(path)],
        )

    def replace_chunks(self, doc_id: str, chunks: Iterable[tuple[str, int]]) -> None:
        pairs = list(chunks)
        with self.db.transaction() as conn:
            conn.execute(f"DELETE FROM {self.s}.chunks WHERE doc_id = %s", [doc_id])
            if pairs:
                conn.execute(
                    f"INSERT INTO {self.s}.chunks (chunk_id, doc_id, position) "
                    "SELECT c, %s, p FROM unnest(%s::text[], %s::int[]) AS x(c, p)",
                    [doc_id, [c for c, _ in pairs], [int(p) for _, p in pairs]],
                )

    def delete_chunks(self, doc_id: str) -> None:
        self._rows("DELETE FROM {s}.chunks WHERE doc_id = %s", [doc_id])

    # -- stored parsed documents ----------------------------------------------------------
    def put_parsed(self, doc_id: str, data: bytes, profile: str) -> None:
        self._rows(
            "INSERT INTO {s}.parsed (doc_id, data, profile) VALUES (%s, %s, %s) "
            "ON CONFLICT (doc_id) DO UPDATE SET data = EXCLUDED.data, profile = EXCLUDED.profile",
            [doc_id, data, profile],
        )

    def get_parsed(self, doc_id: str) -> bytes | None:
        rows = self._rows("SELECT data FROM {s}.parsed WHERE doc_id = %s", [doc_id])
        return bytes(rows[0][0]) if rows else None

    def delete_parsed(self, doc_id: str) -> None:
        self._rows("DELETE FROM {s}.parsed WHERE doc_id = %s", [doc_id])

    def parsed_doc_ids(self) -> set[str]:
        return {r[0] for r in self._rows("SELECT doc_id FROM {s}.parsed")}

    def profiles(self, doc_ids: Iterable[str] | None = None) -> dict[str, str]:
        if doc_ids is None:
            return {r[0]: r[1] for r in self._rows("SELECT doc_id, profile FROM {s}.parsed")}
        rows = self._rows("SELECT doc_id, profile FROM {s}.parsed WHERE doc_id = ANY(%s)", [list(doc_ids)])
        return {r[0]: r[1] for r in rows}

    # -- exclusions -----------------------------------------------------------------------
    def exclude(self, path: str) -> None:
        self._rows(
            "INSERT INTO {s}.exclusions (path, created_at) VALUES (%s, %s) ON CONFLICT (path) DO NOTHING",
            [pg_path(path), now_iso()],
        )

    def lift_exclusion(self, path: str) -> bool:
        return bool(self._rows("DELETE FROM {s}.exclusions WHERE path = %s RETURNING 1", [pg_path(path)]))

    def lift_exclusions_under(self, folder: str) -> int:
        prefix = os.fsencode(folder.rstrip("/\\") + "/")
        rows = self._rows(
            "DELETE FROM {s}.exclusions WHERE substring(path FROM 1 FOR %s) = %s RETURNING 1", [len(prefix), prefix]
        )
        return len(rows)

    def exclusions(self) -> set[str]:
        return {from_pg_path(r[0]) for r in self._rows("SELECT path FROM {s}.exclusions")}

    # -- dirty doc ids --------------------------------------------------------------------
    def mark_dirty(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        if ids:
            self._rows(
                "INSERT INTO {s}.dirty (doc_id, since) SELECT d, %s FROM unnest(%s::text[]) AS d "
                "ON CONFLICT (doc_id) DO NOTHING",
                [now_iso(), ids],
            )

    def clear_dirty(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        if ids:
            self._rows("DELETE FROM {s}.dirty WHERE doc_id = ANY(%s)", [ids])

    def dirty_doc_ids(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT doc_id FROM {s}.dirty ORDER BY since, doc_id")]

    # -- meta -----------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM {s}.meta WHERE key = %s", [key])
        return None if not rows else str(rows[0][0])

    def set_meta(self, key: str, value: str) -> None:
        self._rows(
            "INSERT INTO {s}.meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [key, value],
        )

    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    def bump_generation(self, writer: str) -> int:
        """Call inside the committing transaction: the new generation, and who wrote it."""
        rows = self._rows(
            "INSERT INTO {s}.meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) "
            "DO UPDATE SET value = ((({s}.meta.value)::bigint) + 1)::text RETURNING value"
        )
        self.set_meta("writer", writer)
        return int(rows[0][0])

    def close(self) -> None:
        """Nothing to close: connections belong to the process's pool."""


__all__ = ["PostgresRegistry", "from_pg_path", "pg_path"]
