"""The tables of one knowledge base in PostgreSQL, as numbered migrations.

Why numbered migrations (a ``schema_version`` table): several processes and several releases
share one database. A process applies the migrations its schema lacks, one transaction each,
under an advisory lock (two processes starting together do not race), and refuses a schema
newer than it knows, as the SQLite registry does with ``PRAGMA user_version``.

The layout mirrors the embedded stores, so the commit protocol and ``check`` compare the same
things: ``documents``/``chunks``/``parsed``/``jobs``/``exclusions``/``dirty``/``meta`` are the
registry; ``vectors`` is the vector store (text, metadata, a pgvector column with an HNSW
index created when the first model claims it); ``bm25_*`` is the BM25 index (postings with
term frequency and document length, per-term document frequency, collection totals), kept
exact in the same transaction as the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from indexing.postgres.bm25_restem import restem_postings
from indexing.postgres.database import Database
from officeqa.errors import IndexConsistencyError

#: A migration step: SQL (``{s}`` is the quoted schema) or a function of (connection, quoted schema).
Step = str | Callable[[Any, str], None]
#: (version, steps). Append new versions; never edit old ones.
MIGRATIONS: list[tuple[int, list[Step]]] = [
    (
        1,
        [
            "CREATE TABLE {s}.meta (key text PRIMARY KEY, value text NOT NULL)",
            """CREATE TABLE {s}.documents (
                path bytea PRIMARY KEY, doc_id text NOT NULL, file_type text NOT NULL DEFAULT '',
                size bigint NOT NULL DEFAULT 0, mtime double precision NOT NULL DEFAULT 0, status text NOT NULL,
                chunk_count integer NOT NULL DEFAULT 0, error_kind text, error_message text, embedding_model text,
                indexed_at text, index_settings text)""",
            "CREATE INDEX documents_doc_id ON {s}.documents (doc_id)",
            "CREATE TABLE {s}.chunks (chunk_id text PRIMARY KEY, doc_id text NOT NULL, position integer NOT NULL)",
            "CREATE INDEX chunks_doc_id ON {s}.chunks (doc_id)",
            "CREATE TABLE {s}.parsed (doc_id text PRIMARY KEY, data bytea NOT NULL, profile text NOT NULL)",
            """CREATE TABLE {s}.jobs (
                id bigserial PRIMARY KEY, path bytea NOT NULL, doc_hash text, kind text NOT NULL, state text NOT NULL,
                force integer NOT NULL DEFAULT 0, source text NOT NULL DEFAULT '', attempts integer NOT NULL DEFAULT 0,
                interruptions integer NOT NULL DEFAULT 0, next_attempt_at double precision NOT NULL DEFAULT 0,
                error_kind text, error_message text, outcome text, chunks integer NOT NULL DEFAULT 0,
                rerun_kind text, worker_id text, created_at double precision NOT NULL,
                updated_at double precision NOT NULL, started_at double precision, finished_at double precision,
                heartbeat_at double precision)""",
            "CREATE UNIQUE INDEX jobs_one_live_per_path ON {s}.jobs (path) "
            "WHERE state IN ('PENDING', 'RUNNING', 'RETRY')",
            "CREATE INDEX jobs_due ON {s}.jobs (next_attempt_at, id) WHERE state IN ('PENDING', 'RETRY')",
            "CREATE INDEX jobs_path ON {s}.jobs (path)",
            "CREATE INDEX jobs_state ON {s}.jobs (state)",
            "CREATE TABLE {s}.exclusions (path bytea PRIMARY KEY, created_at text NOT NULL)",
            "CREATE TABLE {s}.dirty (doc_id text PRIMARY KEY, since text NOT NULL)",
            """CREATE TABLE {s}.vectors (
                chunk_id text PRIMARY KEY, doc_id text NOT NULL, text text NOT NULL, metadata jsonb NOT NULL,
                embedding vector NOT NULL)""",
            "CREATE INDEX vectors_doc_id ON {s}.vectors (doc_id)",
            "CREATE SEQUENCE {s}.bm25_seq",
            """CREATE TABLE {s}.bm25_terms (
                term_id serial PRIMARY KEY, term text NOT NULL UNIQUE, df integer NOT NULL DEFAULT 0,
                script smallint NOT NULL DEFAULT 0)""",
            "CREATE INDEX bm25_terms_trgm ON {s}.bm25_terms USING gin (term gin_trgm_ops)",
            """CREATE TABLE {s}.bm25_docs (
                chunk_id text PRIMARY KEY, seq bigint NOT NULL UNIQUE, length integer NOT NULL,
                han integer NOT NULL, latin integer NOT NULL, term_ids integer[] NOT NULL)""",
            """CREATE TABLE {s}.bm25_postings (
                term_id integer NOT NULL, seq bigint NOT NULL, tf integer NOT NULL, dl integer NOT NULL,
                PRIMARY KEY (term_id, seq))""",
            """CREATE TABLE {s}.bm25_stats (
                id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL, total_length bigint NOT NULL,
                df_zh bigint NOT NULL, df_en bigint NOT NULL)""",
            "INSERT INTO {s}.bm25_stats VALUES (1, 0, 0, 0, 0)",
        ],
    ),
    (
        # BM25 search without reading every posting (indexing/postgres/bm25_topk.py): per-term bounds
        # of a posting's contribution (largest tf, shortest chunk; kept by writers, loose after deletes),
        # postings readable by index-only scans in (term, seq) order and in impact order (tf, dl), and
        # vacuum after fewer inserts so new pages become all-visible (index-only scans skip the heap).
        2,
        [
            "ALTER TABLE {s}.bm25_terms ADD COLUMN max_tf integer NOT NULL DEFAULT 0, "
            "ADD COLUMN min_dl integer NOT NULL DEFAULT 0",
            "UPDATE {s}.bm25_terms t SET max_tf = a.max_tf, min_dl = a.min_dl FROM "
            "(SELECT term_id, max(tf) AS max_tf, min(dl) AS min_dl FROM {s}.bm25_postings GROUP BY term_id) a "
            "WHERE a.term_id = t.term_id",
            "ALTER TABLE {s}.bm25_postings DROP CONSTRAINT bm25_postings_pkey, "
            "ADD PRIMARY KEY (term_id, seq) INCLUDE (tf, dl)",
            "CREATE INDEX bm25_postings_impact ON {s}.bm25_postings (term_id, tf DESC, dl) INCLUDE (seq)",
            "ALTER TABLE {s}.bm25_postings SET (autovacuum_vacuum_insert_scale_factor = 0.02)",
        ],
    ),
    (
        # The background model's vectors (indexing/strong.py): the layout of ``vectors``, its own model claim
        # (``strong_vectors.embedder``/``.dim`` in meta) and HNSW index, created when that model first writes.
        3,
        [
            """CREATE TABLE {s}.strong_vectors (
                chunk_id text PRIMARY KEY, doc_id text NOT NULL, text text NOT NULL, metadata jsonb NOT NULL,
                embedding vector NOT NULL)""",
            "CREATE INDEX strong_vectors_doc_id ON {s}.strong_vectors (doc_id)",
        ],
    ),
    # BM25 terms with English words stemmed (officeqa.text_tokens.BM25_TOKENIZER_VERSION 2): the postings of
    # an older schema re-termed in this transaction (indexing/postgres/bm25_restem.py).
    (4, [restem_postings]),
    # Traditional Chinese terms folded to Simplified (BM25_TOKENIZER_VERSION 3), re-termed the same way.
    (5, [restem_postings]),
]

SCHEMA_VERSION = MIGRATIONS[-1][0]


def migrate(db: Database) -> int:
    """Bring the knowledge base's schema to :data:`SCHEMA_VERSION`; returns the version it was at."""
    s = db.s
    with db.transaction() as conn:
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"officeqa:migrate:{db.schema}"])
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {s}.schema_version "
            "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        current = int(conn.execute(f"SELECT coalesce(max(version), 0) FROM {s}.schema_version").fetchone()[0])
        if current > SCHEMA_VERSION:
            raise IndexConsistencyError(
                f"PostgreSQL {db.display} has schema version {current}, newer than this program's "
                f"{SCHEMA_VERSION}; upgrade officeqa or use another storage.postgres_schema"
            )
        for version, statements in MIGRATIONS:
            if version <= current:
                continue
            with conn.transaction():
                for statement in statements:
                    if callable(statement):
                        statement(conn, s)
                    else:
                        conn.execute(statement.format(s=s))
                conn.execute(f"INSERT INTO {s}.schema_version (version) VALUES (%s)", [version])
    return current


def schema_problem(db: Database) -> str | None:
    """None when the schema is at this program's version, else what is wrong (``check``)."""
    version = db.scalar(f"SELECT coalesce(max(version), 0) FROM {db.s}.schema_version")
    if version != SCHEMA_VERSION:
        return f"schema version {version}, this program expects {SCHEMA_VERSION}"
    return None


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "schema_problem"]
