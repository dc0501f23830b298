"""Chunk vectors in PostgreSQL with pgvector: the methods of :class:`indexing.vector_store.VectorStore`.

Why an HNSW index with cosine distance: it is what Chroma uses in the embedded backend, so
dense scores (``1 - cosine distance``) mean the same in both. The column gets its dimension and
the index when the first embedding model claims the store (``ensure_model``); vectors of another
model are refused exactly as in Chroma. ``hnsw.ef_search`` is raised per query to the number of
candidates asked for (pgvector returns at most ``ef_search`` rows from the index).

Filtered queries (a scope of documents, a file type) are answered exactly over the matching
rows instead of through the index: an approximate index scan followed by a filter can return
fewer than ``k`` rows, and a scope is small.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from indexing.postgres.database import Database
from indexing.vector_store import checked_vectors, model_conflict, reindex_hint
from officeqa.errors import InvalidFilter

#: metadata fields that filters may name (retrieval/filters.py), and how each is read in SQL
_FIELD_SQL = {
    "doc_id": "doc_id",
    "path": "metadata->>'path'",
    "file_type": "metadata->>'file_type'",
    "sheet": "metadata->>'sheet'",
    "kind": "metadata->>'kind'",
    "page": "(metadata->>'page')::bigint",
}


def clean_text(text: str) -> str:
    """PostgreSQL text and jsonb cannot hold NUL characters; anything else is kept as it is."""
    return text.replace("\x00", "\ufffd")


def _clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: clean_text(v) if isinstance(v, str) else v for k, v in meta.items()}


def where_sql(where: dict[str, Any] | None) -> tuple[str, list[Any]]:
    """A validated Chroma-style ``where`` (see retrieval/filters.py) as SQL with parameters.

    ``$ne`` also matches chunks without the field, as Chroma does.
    """
    if not where:
        return "TRUE", []
    clauses = where.get("$and", [where])
    parts: list[str] = []
    params: list[Any] = []
    for clause in clauses:
        ((name, condition),) = clause.items()
        if not isinstance(condition, dict):
            condition = {"$eq": condition}
        ((op, value),) = condition.items()
        column = _FIELD_SQL.get(name)
        if column is None:
            raise InvalidFilter(f"unknown filter field {name!r}")
        cast = int if name == "page" else str
        if op == "$eq":
            parts.append(f"{column} = %s")
            params.append(cast(value))
        elif op == "$ne":
            parts.append(f"{column} IS DISTINCT FROM %s")
            params.append(cast(value))
        elif op == "$in":
            parts.append(f"{column} = ANY(%s)")
            params.append([cast(v) for v in value])
        else:
            raise InvalidFilter(f"unknown operator {op!r} on {name!r}")
    return " AND ".join(parts), params


class PostgresVectorStore:
    """The ``vectors`` table of one knowledge-base schema."""

    def __init__(self, db: Database, ef_search: int = 100, table: str = "vectors") -> None:
        """``table``: ``vectors`` (the fast vectors) or ``strong_vectors`` (the background model's, see
        indexing/strong.py); its model claim is kept in ``meta`` under keys prefixed by the table's name."""
        self.db = db
        self.s = db.s
        self.path = db.display if table == "vectors" else f"{db.display} ({table})"
        self.ef_search = ef_search
        self.table = f"{db.s}.{table}"
        self._index = f"{table}_hnsw"
        self._keys = ("embedder", "dim") if table == "vectors" else (f"{table}.embedder", f"{table}.dim")

    def reopen(self) -> None:
        """Nothing is cached in this process: every read sees the committed state."""

    # -- the model guard ----------------------------------------------------------------
    @property
    def model(self) -> tuple[str, int] | None:
        rows = self.db.execute(f"SELECT key, value FROM {self.s}.meta WHERE key = ANY(%s)", [list(self._keys)])
        meta = dict(rows)
        if self._keys[0] not in meta:
            return None
        return str(meta[self._keys[0]]), int(meta[self._keys[1]])

    def ensure_model(self, name: str, dim: int) -> None:
        """Claim an empty store for ``name`` (sets the column's dimension and builds the HNSW index)."""
        recorded = self.model
        if recorded is None:
            with self.db.transaction() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"officeqa:model:{self.table}"])
                recorded = self.model
                if recorded is None:
                    conflict = model_conflict(self.path, None, name, dim, self.count() > 0, reindex_hint(""))
                    if conflict is not None:
                        raise conflict
                    conn.execute(f"DROP INDEX IF EXISTS {self.s}.{self._index}")
                    conn.execute(f"ALTER TABLE {self.table} ALTER COLUMN embedding TYPE vector({int(dim)})")
                    conn.execute(
                        f"CREATE INDEX {self._index} ON {self.table} USING hnsw (embedding vector_cosine_ops)"
                    )
                    for key, value in ((self._keys[0], name), (self._keys[1], str(int(dim)))):
                        conn.execute(
                            f"INSERT INTO {self.s}.meta (key, value) VALUES (%s, %s) "
                            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                            [key, value],
                        )
                    return
        conflict = model_conflict(self.path, recorded, name, dim, True, "run `officeqa reindex`")
        if conflict is not None:
            raise conflict

    # -- writes -------------------------------------------------------------------------
    def add(
        self, ids: Sequence[str], embeddings: np.ndarray, texts: Sequence[str], metadatas: Sequence[dict[str, Any]],
        model: tuple[str, int],
    ) -> None:
        self.upsert(ids, embeddings, texts, metadatas, model)

    def upsert(
        self, ids: Sequence[str], embeddings: np.ndarray, texts: Sequence[str], metadatas: Sequence[dict[str, Any]],
        model: tuple[str, int],
    ) -> None:
        """Add or overwrite chunks (one statement per batch, inside the caller's transaction)."""
        if not ids:
            return
        vectors = checked_vectors(ids, embeddings, model)
        self.ensure_model(*model)
        rows = [
            (cid, str(meta.get("doc_id", "")), clean_text(text), json.dumps(_clean_meta(meta), ensure_ascii=False),
             vectors[i])
            for i, (cid, text, meta) in enumerate(zip(ids, texts, metadatas, strict=True))
        ]
        with self.db.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {self.table} (chunk_id, doc_id, text, metadata, embedding) "
                "VALUES (%s, %s, %s, %s::jsonb, %s) ON CONFLICT (chunk_id) DO UPDATE SET doc_id = EXCLUDED.doc_id, "
                "text = EXCLUDED.text, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding",
                rows,
            )

    def delete_doc(self, doc_id: str) -> None:
        self.db.execute(f"DELETE FROM {self.table} WHERE doc_id = %s", [doc_id])

    def delete_ids(self, ids: Sequence[str]) -> None:
        if ids:
            self.db.execute(f"DELETE FROM {self.table} WHERE chunk_id = ANY(%s)", [list(ids)])

    def reset(self) -> None:
        """Drop every vector and the model claim (``reindex``)."""
        with self.db.transaction() as conn:
            conn.execute(f"DELETE FROM {self.table}")
            conn.execute(f"DROP INDEX IF EXISTS {self.s}.{self._index}")
            conn.execute(f"ALTER TABLE {self.table} ALTER COLUMN embedding TYPE vector")
            conn.execute(f"DELETE FROM {self.s}.meta WHERE key = ANY(%s)", [list(self._keys)])

    # -- reads --------------------------------------------------------------------------
    def count(self) -> int:
        return int(self.db.scalar(f"SELECT count(*) FROM {self.table}"))

    def all_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute(f"SELECT chunk_id FROM {self.table}")]

    def ids_where(self, where: dict[str, Any]) -> list[str]:
        sql, params = where_sql(where)
        return [r[0] for r in self.db.execute(f"SELECT chunk_id FROM {self.table} WHERE {sql}", params)]

    def existing(self, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        rows = self.db.execute(f"SELECT chunk_id FROM {self.table} WHERE chunk_id = ANY(%s)", [list(ids)])
        return [r[0] for r in rows]

    def get(self, ids: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        wanted = list(ids)
        if not wanted:
            return {}
        rows = self.db.execute(
            f"SELECT chunk_id, text, metadata FROM {self.table} WHERE chunk_id = ANY(%s)", [wanted]
        )
        return {cid: (text or "", dict(meta or {})) for cid, text, meta in rows}

    def query(
        self, vector: np.ndarray, k: int, model: tuple[str, int], where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest chunks as (id, cosine similarity), best first."""
        recorded = self.model
        if recorded is None:
            return []
        if recorded != (model[0], int(model[1])):
            self.ensure_model(*model)  # raises with the explanation
        k = int(k)
        if k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self.db.transaction() as conn:
            if where:
                sql, params = where_sql(where)
                rows = conn.execute(
                    f"WITH c AS MATERIALIZED (SELECT chunk_id, embedding FROM {self.table} WHERE {sql}) "
                    "SELECT chunk_id, embedding <=> %s AS d FROM c ORDER BY d, chunk_id LIMIT %s",
                    [*params, query, k],
                ).fetchall()
            else:
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(max(self.ef_search, k))])
                rows = conn.execute(
                    f"SELECT chunk_id, embedding <=> %s AS d FROM {self.table} ORDER BY d LIMIT %s", [query, k]
                ).fetchall()
        return [(cid, 1.0 - float(d)) for cid, d in rows]

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        if not ids:
            return {}
        rows = self.db.execute(f"SELECT chunk_id, text FROM {self.table} WHERE chunk_id = ANY(%s)", [list(ids)])
        return {cid: text or "" for cid, text in rows}

    def doc_counts(self) -> dict[str, int]:
        """doc id -> chunks stored (what the background model's coverage is counted from)."""
        rows = self.db.execute(f"SELECT doc_id, count(*) FROM {self.table} GROUP BY doc_id")
        return {str(d): int(n) for d, n in rows}

    def paths(self) -> dict[str, str]:
        rows = self.db.execute(f"SELECT DISTINCT metadata->>'path', doc_id FROM {self.table}")
        return {str(p): str(d) for p, d in rows if p}

    def embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """chunk id -> stored vector (``officeqa migrate`` and repairs copy vectors without re-embedding)."""
        if not ids:
            return {}
        rows = self.db.execute(
            f"SELECT chunk_id, embedding FROM {self.table} WHERE chunk_id = ANY(%s)", [list(ids)]
        )
        return {cid: np.asarray(vec, dtype=np.float32) for cid, vec in rows}


__all__ = ["PostgresVectorStore", "clean_text", "where_sql"]
