"""The tree store: node summaries by content key, and each document's finished tree.

Why two tables: a summary is persisted the moment it is made (``summaries``, keyed by the
hash of its inputs), so a crash, a kill or a timeout loses at most the calls in flight,
and a re-run finds every finished node by recomputing its key. A document's tree
(``nodes``) is written in one transaction when all its nodes exist, so readers see the
previous complete tree or the new one, never half of each.

Its own SQLite file (``data_dir/summaries.sqlite3``, WAL): the registry belongs to the
indexer and its job queue; this store can be plugged in beside them as a per-document
store. One connection serialised by a lock: builder threads write summaries as their
model calls return.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from indexing.summary.tree import Span, SummaryNode, SummaryTree
from officeqa.errors import ConfigurationError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS summaries (
    key            TEXT PRIMARY KEY,
    text           TEXT NOT NULL,
    model          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    extractive     INTEGER NOT NULL,
    tokens         INTEGER NOT NULL,
    prompt_tokens  INTEGER NOT NULL DEFAULT 0,
    seconds        REAL NOT NULL DEFAULT 0,
    created_at     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS trees (
    doc_id           TEXT PRIMARY KEY,
    path             TEXT NOT NULL,
    title            TEXT NOT NULL,
    language         TEXT NOT NULL,
    node_count       INTEGER NOT NULL,
    extractive_nodes INTEGER NOT NULL,
    built_at         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trees_path ON trees(path);
CREATE TABLE IF NOT EXISTS nodes (
    doc_id       TEXT NOT NULL,
    node_id      TEXT NOT NULL,
    ord          INTEGER NOT NULL,
    parent       TEXT,
    children     TEXT NOT NULL,
    level        INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    title        TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    span         TEXT NOT NULL,
    chunk_ids    TEXT NOT NULL,
    key          TEXT NOT NULL,
    PRIMARY KEY (doc_id, node_id)
);
CREATE INDEX IF NOT EXISTS nodes_key ON nodes(key);
"""


@dataclass(frozen=True, slots=True)
class StoredSummary:
    """A node summary as stored under its key."""

    key: str
    text: str
    model: str
    prompt_version: str
    extractive: bool
    tokens: int
    prompt_tokens: int = 0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class TreeInfo:
    """One row of ``trees``: what is known about a document's finished tree without loading it."""

    doc_id: str
    path: str
    title: str
    language: str
    node_count: int
    extractive_nodes: int
    built_at: str


class SummaryStore:
    """Open with a path (``settings.data_dir / settings.summary.store_file``); ``close()`` when done."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise ConfigurationError(
                f"{self.path}: summary store schema {version} is newer than this program's ({SCHEMA_VERSION})"
            )
        self._conn.executescript(_SCHEMA)
        self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SummaryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- node summaries -------------------------------------------------------------------------

    def get_summary(self, key: str) -> StoredSummary | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM summaries WHERE key = ?", (key,)).fetchone()
        return _summary(row) if row is not None else None

    def put_summary(self, summary: StoredSummary) -> None:
        """Persist one node's summary at once (autocommit): the unit a crash cannot lose."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO summaries (key, text, model, prompt_version, extractive, tokens, "
                "prompt_tokens, seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (summary.key, summary.text, summary.model, summary.prompt_version, int(summary.extractive),
                 summary.tokens, summary.prompt_tokens, summary.seconds, time.time()),
            )

    def summary_count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0])

    # -- trees ----------------------------------------------------------------------------------

    def put_tree(self, tree: SummaryTree) -> None:
        """Replace ``tree.doc_id``'s tree in one transaction (every node's key must be stored)."""
        rows = [
            (tree.doc_id, n.id, order, n.parent, json.dumps(n.children), n.level, n.kind, n.title,
             json.dumps(n.heading_path, ensure_ascii=False), json.dumps(_span_dict(n.span)),
             json.dumps(n.chunk_ids), n.key)
            for order, n in enumerate(tree.nodes)
        ]
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM nodes WHERE doc_id = ?", (tree.doc_id,))
                self._conn.executemany("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
                self._conn.execute(
                    "INSERT OR REPLACE INTO trees VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (tree.doc_id, tree.path, tree.title, tree.language, len(tree.nodes), tree.extractive_nodes,
                     tree.built_at or now_iso()),
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def tree_info(self, doc_id: str) -> TreeInfo | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM trees WHERE doc_id = ?", (doc_id,)).fetchone()
        return TreeInfo(**dict(row)) if row is not None else None

    def trees(self) -> list[TreeInfo]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM trees ORDER BY path").fetchall()
        return [TreeInfo(**dict(r)) for r in rows]

    def tree(self, doc_id: str) -> SummaryTree | None:
        """The finished tree of ``doc_id``, or None when none was built."""
        with self._lock:
            info = self._conn.execute("SELECT * FROM trees WHERE doc_id = ?", (doc_id,)).fetchone()
            if info is None:
                return None
            rows = self._conn.execute(
                "SELECT n.*, s.text, s.model, s.prompt_version, s.extractive, s.tokens FROM nodes n "
                "JOIN summaries s ON s.key = n.key WHERE n.doc_id = ? ORDER BY n.ord",
                (doc_id,),
            ).fetchall()
        if len(rows) != info["node_count"]:
            return None  # a summary row was removed by hand: treat the tree as absent (a build restores it)
        nodes = [
            SummaryNode(
                id=r["node_id"], parent=r["parent"], children=json.loads(r["children"]), level=r["level"],
                kind=r["kind"], title=r["title"], heading_path=json.loads(r["heading_path"]),
                span=Span(**json.loads(r["span"])), chunk_ids=json.loads(r["chunk_ids"]), key=r["key"],
                summary=r["text"], tokens=r["tokens"], model=r["model"], prompt_version=r["prompt_version"],
                extractive=bool(r["extractive"]),
            )
            for r in rows
        ]
        return SummaryTree(doc_id=doc_id, path=info["path"], title=info["title"], language=info["language"],
                           nodes=nodes, built_at=info["built_at"])

    def delete_tree(self, doc_id: str) -> None:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM nodes WHERE doc_id = ?", (doc_id,))
            self._conn.execute("DELETE FROM trees WHERE doc_id = ?", (doc_id,))
            self._conn.execute("COMMIT")

    def prune(self, live_doc_ids: Iterable[str], keep_unused_days: float) -> tuple[int, int]:
        """Drop trees of documents not in ``live_doc_ids``, then summaries no tree uses that are older
        than ``keep_unused_days`` (a younger one may be the progress of an interrupted build, or the
        old version of a document that is about to be summarised again). Returns (trees, summaries)."""
        live = set(live_doc_ids)
        gone = [info.doc_id for info in self.trees() if info.doc_id not in live]
        for doc_id in gone:
            self.delete_tree(doc_id)
        cutoff = time.time() - keep_unused_days * 86400
        with self._lock:
            cursor = self._conn.execute(
                "DELETE FROM summaries WHERE created_at < ? AND key NOT IN (SELECT key FROM nodes)", (cutoff,)
            )
        return len(gone), cursor.rowcount

    def keys_in_use(self, doc_ids: Sequence[str] | None = None) -> set[str]:
        with self._lock:
            if doc_ids is None:
                rows = self._conn.execute("SELECT key FROM nodes").fetchall()
            else:
                marks = ",".join("?" * len(doc_ids))
                rows = self._conn.execute(
                    f"SELECT key FROM nodes WHERE doc_id IN ({marks})", list(doc_ids)
                ).fetchall()
        return {r[0] for r in rows}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _span_dict(span: Span) -> dict[str, object]:
    return {"page": span.page, "page_end": span.page_end, "slide": span.slide, "slide_end": span.slide_end,
            "chunk_first": span.chunk_first, "chunk_last": span.chunk_last}


def _summary(row: sqlite3.Row) -> StoredSummary:
    return StoredSummary(key=row["key"], text=row["text"], model=row["model"], prompt_version=row["prompt_version"],
                         extractive=bool(row["extractive"]), tokens=row["tokens"], prompt_tokens=row["prompt_tokens"],
                         seconds=row["seconds"])


__all__ = ["StoredSummary", "SummaryStore", "TreeInfo", "now_iso"]
