"""Copy an embedded knowledge base (SQLite + Chroma + BM25 files) into a PostgreSQL schema, without re-embedding.

Why a copy and not a re-index: embedding is the slow part of indexing (hours for a large knowledge
base on CPU); the vectors, texts and metadata are read back from Chroma, the BM25 statistics from
the BM25 index (term frequencies and lengths in insertion order, so even ties rank the same), the
registry rows, chunk lists, stored parsed documents, exclusions and jobs from SQLite. Everything
is written in one transaction: the target is either the whole knowledge base or untouched.

The source must be consistent (``officeqa check`` clean) and the target schema empty.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from indexing.jobs import _JOB_FIELDS
from indexing.postgres.registry import pg_path
from indexing.postgres.stores import PostgresStores
from indexing.repair import check
from indexing.stores import Stores
from officeqa.errors import IndexConsistencyError
from officeqa.settings import Settings

_PAGE = 2000


@dataclass(slots=True)
class MigrationReport:
    """What ``officeqa migrate`` copied."""

    target: str
    documents: int = 0
    chunks: int = 0
    parsed: int = 0
    jobs: int = 0
    embedded_texts: int = 0  # texts the embedder was asked for: always 0 (vectors are copied)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target, "documents": self.documents, "chunks": self.chunks, "parsed": self.parsed,
            "jobs": self.jobs, "embedded_texts": self.embedded_texts, "seconds": round(self.seconds, 2),
        }


def migrate_to_postgres(
    settings: Settings, on_progress: Callable[[str], None] | None = None
) -> MigrationReport:
    """Copy the embedded knowledge base of ``settings.data_dir`` into ``settings.storage``'s PostgreSQL schema."""
    say = on_progress or (lambda _text: None)
    started = time.perf_counter()
    if not (Path(settings.data_dir) / "registry.sqlite3").exists():
        raise IndexConsistencyError(f"no embedded knowledge base in {settings.data_dir} (registry.sqlite3 is missing)")
    def on(backend: str) -> Settings:
        return settings.model_copy(update={"storage": settings.storage.model_copy(update={"backend": backend})})

    source = Stores(on("embedded"))
    target = PostgresStores(on("postgres"))
    report = MigrationReport(target=target.db.display)
    try:
        consistency = check(source)
        if not consistency.clean:
            raise IndexConsistencyError(
                f"the knowledge base in {settings.data_dir} is not consistent; run `officeqa check --repair` first"
            )
        with target.writing():
            held = target.registry.counts_by_status()
            if held or len(target.bm25) or target.vectors.count():
                raise IndexConsistencyError(
                    f"{target.db.display} already holds a knowledge base ({sum(held.values())} documents); "
                    "choose another storage.postgres_schema or drop that schema"
                )
            _copy_registry(source, target, report, say)
            _copy_vectors(source, target, report, say)
            _copy_bm25(source, target, say)
            target.mark_committed()
        final = check(target)
        if not final.clean:  # cannot happen unless the source changed meanwhile; say so rather than hide it
            raise IndexConsistencyError(f"the copy in {target.db.display} does not check clean: {final.to_json()}")
    finally:
        source.close()
        target.close()
    report.seconds = time.perf_counter() - started
    return report


def _copy_registry(source: Any, target: Any, report: MigrationReport, say: Callable[[str], None]) -> None:
    conn = source.registry.connection
    s = target.db.s
    records = source.registry.documents()
    for record in records:
        target.registry.upsert(record)
    report.documents = len(records)
    counts = source.registry.chunk_counts()
    for doc_id in counts:
        rows = conn.execute("SELECT chunk_id, position FROM chunks WHERE doc_id = ?", (doc_id,)).fetchall()
        target.registry.replace_chunks(doc_id, [(r[0], int(r[1])) for r in rows])
    report.chunks = sum(counts.values())
    for doc_id, data, profile in conn.execute("SELECT doc_id, data, profile FROM parsed"):
        target.registry.put_parsed(doc_id, bytes(data), profile)  # the same compressed JSON: copied as it is
        report.parsed += 1
    for path in source.registry.exclusions():
        target.registry.exclude(path)
    columns = [f for f in _JOB_FIELDS if f != "id"]
    with target.db.connection() as pg:
        for job in source.jobs.find():
            values = [getattr(job, f) for f in columns]
            values[columns.index("path")] = pg_path(job.path)
            pg.execute(
                f"INSERT INTO {s}.jobs ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})", values
            )
            report.jobs += 1
    say(f"registry: {report.documents} documents, {report.chunks} chunks, {report.parsed} stored documents, "
        f"{report.jobs} jobs")


def _copy_vectors(source: Any, target: Any, report: MigrationReport, say: Callable[[str], None]) -> None:
    model = source.recorded_model()
    if model is None:
        return
    vectors = target.vectors
    vectors.ensure_model(*model)
    s = target.db.s
    with target.db.connection() as conn:
        conn.execute(f"DROP INDEX IF EXISTS {s}.vectors_hnsw")  # built once after the bulk load: much faster
    copied = 0
    for page in source.vectors.records(_PAGE):
        ids = [r[0] for r in page]
        matrix = np.vstack([r[3] for r in page]).astype(np.float32)
        vectors.upsert(ids, matrix, [r[1] for r in page], [r[2] for r in page], model)
        copied += len(page)
        say(f"vectors: {copied} copied")
    with target.db.connection() as conn:
        conn.execute(f"CREATE INDEX vectors_hnsw ON {s}.vectors USING hnsw (embedding vector_cosine_ops)")
    say(f"vectors: HNSW index built over {copied}")


def _copy_bm25(source: Any, target: Any, say: Callable[[str], None]) -> None:
    batch_ids: list[str] = []
    batch_counts: list[dict[str, int]] = []
    batch_lengths: list[int] = []
    copied = 0
    for chunk_id, counts, length in source.bm25_store.index.export():
        batch_ids.append(chunk_id)
        batch_counts.append(counts)
        batch_lengths.append(length)
        if len(batch_ids) >= _PAGE:
            target.bm25_store.add_counts(batch_ids, batch_counts, batch_lengths)
            copied += len(batch_ids)
            batch_ids, batch_counts, batch_lengths = [], [], []
            say(f"bm25: {copied} copied")
    if batch_ids:
        target.bm25_store.add_counts(batch_ids, batch_counts, batch_lengths)
        copied += len(batch_ids)
    say(f"bm25: {copied} chunks")


__all__ = ["MigrationReport", "migrate_to_postgres"]
