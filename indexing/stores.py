"""Every store of one knowledge base, and the commit that keeps them in step.

A document lives in the SQLite registry (its row, its chunk ids, its stored parsed form),
the Chroma collection (vectors and texts), the BM25 index (snapshot + log) and any
further per-document store (:mod:`indexing.sinks`). The registry is the source of truth
and its transaction is the commit point:

1. **stage** (under the cross-process write lock): mark the doc id *dirty* in the
   registry, then write the chunks to Chroma (upsert), BM25 (logged and fsynced) and the
   sinks. Readers that go through the registry do not see them yet.
2. **commit**: one registry transaction writes the document row, its chunk ids, its parsed
   form, the job's DONE state and the settings it was indexed with; it clears the dirty
   mark and marks the doc id it replaced (if any) dirty instead, and bumps the write
   generation.
3. **drop**: chunks the registry no longer lists (the replaced version, leftovers of a
   forced re-index) are deleted from every store and the dirty mark is cleared.

A crash anywhere leaves at worst dirty doc ids whose stores hold chunks the registry does
not list, or lack some it lists; the next writer reconciles exactly those doc ids before
it writes anything (:meth:`Stores.reconcile`). Documents committed before the crash are
untouched, so nothing is redone and nothing is duplicated (chunk ids are content hash +
position, and every store write is an upsert).

Other processes: each commit bumps ``generation`` in the registry's ``meta`` table.
A process that sees a generation it did not write refreshes its in-memory views (BM25
log records since its last look; Chroma's in-memory HNSW graph by reconnecting) before
its next write, and readers before their next read.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock, Timeout

from indexing.bm25_store import BM25Store
from indexing.contracts import DocumentRegistry, JobStore, KeywordIndex, KeywordStore, StoreLock, VectorIndex
from indexing.document_store import DocumentStore
from indexing.jobs import FAILED as JOB_FAILED
from indexing.jobs import KIND_INDEX, Job, JobQueue
from indexing.locking import WriteLock
from indexing.registry import (
    DUPLICATE,
    FAILED,
    INDEXED,
    PENDING,
    REGISTRY_FIX,
    REMOVED,
    DocumentRecord,
    Registry,
    now_iso,
)
from indexing.sinks import DocumentSink
from indexing.strong import StrongVectors, coverage_summary
from indexing.table_store import TableSink
from indexing.vector_store import CHROMA_FIX, VectorStore, chunk_metadata, damaged_file, fingerprint, probe
from indexing.walking import absolute, display_path
from officeqa.domain import Chunk, ParsedDocument
from officeqa.embeddings import Embedder, background_backend, create_embedder
from officeqa.errors import DocumentNotFound, IndexConsistencyError, StoreDamaged
from officeqa.settings import Settings

#: the Chroma generation this process's Chroma system reflects, per Chroma folder
_CHROMA_SEEN: dict[str, int] = {}
_READER_REOPEN_EVERY_S = 5.0  # a reading process reconnects to Chroma at most this often

OUTCOME_ADDED = "added"
OUTCOME_UPDATED = "updated"
OUTCOME_DUPLICATE = "duplicate"
OUTCOME_REMOVED = "removed"


@dataclass(slots=True)
class PreparedDocument:
    """A document ready to be written: its registry row, chunks and (later) their vectors."""

    record: DocumentRecord
    chunks: list[Chunk]
    vectors: np.ndarray | None = None
    replaces: str | None = None  # the doc id this path had before (dropped after the commit)
    parsed: ParsedDocument | None = None  # stored beside the registry row for handlers and scope


def index_settings(settings: Settings) -> dict[str, Any]:
    """The settings a document's chunks and vectors depend on (recorded per document: drift detection)."""
    emb = settings.embedding
    model = {"flag": emb.model_path, "ollama": emb.ollama_model}.get(emb.backend, "")
    return {
        "chunking": settings.chunking.model_dump(mode="json"),
        "embedding": {"backend": emb.backend, "model": model},
    }


def settings_drift(recorded: str | None, current: dict[str, Any]) -> list[str]:
    """What changed since a document was indexed, as ``section.key old -> new`` (empty when nothing did).

    Documents indexed before settings were recorded have nothing to compare and are not listed.
    """
    if not recorded:
        return []
    try:
        old = json.loads(recorded)
    except ValueError:
        return ["recorded settings unreadable"]
    changes = []
    for section, values in current.items():
        before = old.get(section, {})
        for key, value in values.items():
            if before.get(key) != value:
                changes.append(f"{section}.{key} {before.get(key)!r} -> {value!r}")
    return changes


def _embedded(doc: PreparedDocument) -> np.ndarray:
    """The vectors of a document about to be committed (the worker pool embeds every chunk first)."""
    if doc.vectors is None:
        raise ValueError(f"{doc.record.path}: committed before its chunks were embedded")
    return doc.vectors


def _writer_identity() -> str:
    return f"{socket.gethostname()}|{os.getpid()}"


class Stores:
    """Registry, vector store, BM25 index, stored documents, sinks and the embedder of one ``data_dir``.

    The four stores are typed by their contracts (:mod:`indexing.contracts`): this class is also the base
    of :class:`indexing.postgres.stores.PostgresStores`, and the commit protocol here is written once for
    both. The embedded backend's own handles (``_sqlite``, ``_bm25_files``, ``_file_lock``) serve only the
    methods that deal with files (fingerprints, damage probes), which the PostgreSQL backend overrides.
    """

    #: "embedded": files under data_dir (see indexing/backends.py for the other backends)
    backend = "embedded"
    #: the stores are files that can be damaged, probed and moved aside (``check --repair``)
    has_store_files = True

    registry: DocumentRegistry
    jobs: JobStore
    lock: StoreLock
    bm25_store: KeywordStore

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.data_dir = Path(settings.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.sinks: list[DocumentSink] = self._default_sinks()
        self._embedder = embedder
        self._vectors: VectorIndex | None = None
        self._open_backend()
        self.strong = StrongVectors(
            settings, self.registry, self._open_strong_store, self._strong_store_exists, self._strong_store_key()
        )
        self.jobs.embed_indexed = background_backend(settings.embedding) != "off"  # commits queue `embed` jobs
        self.documents = DocumentStore(self.registry)
        self._seen_generation = -1
        self._wrote = False  # this instance committed something (only writers fold the BM25 log)
        self._last_reader_reopen = 0.0
        self._index_settings = index_settings(settings)
        self._index_settings_json = json.dumps(self._index_settings, sort_keys=True)

    def _default_sinks(self) -> list[DocumentSink]:
        """Per-document stores every writer keeps in step: the tables as typed rows (exact table questions)."""
        return [TableSink(self.settings)]

    def _open_backend(self) -> None:
        """The registry, job queue, write lock and BM25 files of ``data_dir`` (Chroma opens lazily)."""
        self._sqlite = Registry(self.data_dir / "registry.sqlite3")
        self._bm25_files = BM25Store(self.data_dir)
        self._file_lock = WriteLock(self.data_dir)
        self.registry = self._sqlite
        self.jobs = JobQueue(self._sqlite, settings=self.settings.jobs)
        self.lock = self._file_lock
        self.bm25_store = self._bm25_files

    # -- lazily opened parts ----------------------------------------------------------------
    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"

    def _open_strong_store(self) -> VectorIndex:
        """The background model's vectors (indexing/strong.py): a Chroma folder of their own."""
        return VectorStore(self.data_dir / "chroma-strong", collection="strong")

    def _strong_store_exists(self) -> bool:
        return (self.data_dir / "chroma-strong" / "chroma.sqlite3").exists()

    def _strong_store_key(self) -> str:
        return str((self.data_dir / "chroma-strong").resolve())

    @property
    def bm25_path(self) -> Path:
        return self._bm25_files.snapshot_path

    @property
    def bm25_journal(self) -> Path:
        """The BM25 log (chunk changes since the snapshot was last written)."""
        return self._bm25_files.log_path

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = create_embedder(self.settings.embedding, self.settings.ollama)
        return self._embedder

    @property
    def model(self) -> tuple[str, int]:
        """(name, dim) of the configured embedder."""
        return self.embedder.name, int(self.embedder.dim)

    @property
    def vectors(self) -> VectorIndex:
        if self._vectors is None:
            self._verify_chroma_files()
            self._vectors = VectorStore(self.chroma_path)
            self._remember_opened_chroma()
            _CHROMA_SEEN.setdefault(str(self.chroma_path), self.registry.generation())
        self._sync_reader()
        return self._vectors

    @property
    def bm25(self) -> KeywordIndex:
        """The in-memory BM25 index, caught up with other processes' commits."""
        if self.bm25_store.loaded:
            self._sync_reader()
        index = self.bm25_store.index
        if self._bm25_files.upgrade_pending and not self.lock.held and not self._writer_busy():
            self._persist_bm25_upgrade()
            index = self.bm25_store.index
        return index

    def _persist_bm25_upgrade(self) -> None:
        """Write back a BM25 index re-termed on open from an older tokenizer (indexing/bm25_store.py).

        Readers do it too when no writer is busy, so the one-time cost is paid once, not on every load;
        when a writer is busy, its next change writes it (BM25Store._append). Under the write lock, after
        catching up: another process may have written it meanwhile.
        """
        with self.lock:
            self.sync_for_write()
            if self._bm25_files.persist_upgrade():
                self._record_fingerprints(chroma=False)

    def recorded_model(self) -> tuple[str, int] | None:
        """(name, dim) of the model the vector store holds vectors of; never creates a store that is not there."""
        return self.vectors.model if (self.chroma_path / "chroma.sqlite3").exists() else None

    def add_sink(self, sink: DocumentSink) -> None:
        """Register a further per-document store (see :mod:`indexing.sinks`)."""
        self.sinks.append(sink)

    # -- damage detection -----------------------------------------------------------------------
    def _verify_chroma_files(self) -> None:
        """Probe Chroma in a child process when its files changed since this product last wrote them.

        A garbled HNSW file segfaults the process that loads it; the probe turns that into a
        clear message. Skipped when the files are as recorded, or when a writer is busy
        (their change is expected).
        """
        if not (self.chroma_path / "chroma.sqlite3").exists():
            return
        recorded = self.registry.get_meta("chroma_fingerprint")
        if recorded == fingerprint(self.chroma_path) or (recorded is not None and self._writer_busy()):
            return
        problem = probe(self.chroma_path)
        if problem is not None:
            raise StoreDamaged(damaged_file(self.chroma_path, problem), problem, CHROMA_FIX)
        self._record_fingerprints(bm25=False)

    def _remember_opened_chroma(self) -> None:
        """Record Chroma's files as they are after this process opened them (just verified above).

        Why: opening a Chroma client writes to its ``chroma.sqlite3`` (its system tables), so its modification time
        moved on every open and the next process never found the files as recorded: every ``search`` and ``ask``
        ran the damage probe, a child process that loads Chroma a second time (~2 CPU-seconds, half of a CLI
        search's start-up). Skipped while a writer is busy (it records the files it writes)."""
        path = self.chroma_path / "chroma.sqlite3"
        if not path.exists() or self._writer_busy():
            return
        if self.registry.get_meta("chroma_fingerprint") != fingerprint(self.chroma_path):
            self._record_fingerprints(bm25=False)

    def _writer_busy(self) -> bool:
        if self.lock.held:
            return False
        probe_lock = FileLock(str(self._file_lock.data_dir / "write.lock"), preserve_lock_file=True)
        try:
            probe_lock.acquire(timeout=0)
        except Timeout:
            return True
        probe_lock.release()
        return False

    def _bm25_fingerprint(self) -> str:
        parts = []
        for path in (self._bm25_files.snapshot_path, self._bm25_files.log_path):
            try:
                st = path.stat()
            except FileNotFoundError:
                parts.append("-")
                continue
            parts.append(f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}")
        return "|".join(parts)

    def _record_fingerprints(self, chroma: bool = True, bm25: bool = True) -> None:
        """Remember the store files as written now (call inside a registry transaction, or alone)."""
        values = {}
        if chroma:
            values["chroma_fingerprint"] = fingerprint(self.chroma_path)
        if bm25:
            values["bm25_fingerprint"] = self._bm25_fingerprint()
        if self._sqlite.connection.in_transaction:
            for key, value in values.items():
                self.registry.set_meta(key, value)
        else:
            with self.registry.transaction():
                for key, value in values.items():
                    self.registry.set_meta(key, value)

    def verify_readable(self) -> None:
        """Raise :class:`StoreDamaged` if a store file cannot be read; cheap when nothing changed.

        ``index`` calls this before it reports files as unchanged: skipping by hash never
        opens Chroma or BM25, and must not hide that one of them is damaged.
        """
        problem = self.registry.quick_check()
        if problem is not None:
            raise StoreDamaged(f"the registry {self.registry.path}", problem, REGISTRY_FIX)
        if self.registry.get_meta("bm25_fingerprint") != self._bm25_fingerprint() or not self._bm25_files_exist():
            self.bm25_store.verify()
            if not self.registry.dirty_doc_ids():
                with self.lock:  # readable after all (e.g. a writer was killed after appending): remember it
                    self._record_fingerprints(chroma=False)
        if self.chroma_path.exists():
            self._verify_chroma_files()

    def _bm25_files_exist(self) -> bool:
        has_chunks = bool(self.registry.chunk_counts())
        return not has_chunks or self._bm25_files.snapshot_path.exists() or self._bm25_files.log_path.exists()

    # -- other processes' writes --------------------------------------------------------------------
    def _sync_reader(self) -> None:
        generation = self.registry.generation()
        if generation == self._seen_generation:
            return
        self.bm25_store.refresh()
        if self._vectors is not None and _CHROMA_SEEN.get(str(self.chroma_path)) != generation:
            now = time.monotonic()
            if now - self._last_reader_reopen >= _READER_REOPEN_EVERY_S or self.lock.held:
                self._vectors.reopen()
                self._last_reader_reopen = now
                _CHROMA_SEEN[str(self.chroma_path)] = generation
            else:
                return  # try again on the next read
        self._seen_generation = generation

    def sync_for_write(self) -> None:
        """Under the lock: make every in-memory view match the files (another process may have written)."""
        generation = self.registry.generation()
        if self.bm25_store.loaded:
            self.bm25_store.refresh()
        key = str(self.chroma_path)
        if self._vectors is not None and _CHROMA_SEEN.get(key) != generation:
            self._vectors.reopen()
        _CHROMA_SEEN[key] = generation
        self._seen_generation = generation

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the write lock, with every view synced and leftovers of a crashed writer reconciled."""
        with self.lock:
            self.sync_for_write()
            if self.has_store_files and self._bm25_files.loaded and self._bm25_files.upgrade_pending:
                self._persist_bm25_upgrade()
            dirty = self.registry.dirty_doc_ids()
            if dirty:
                self.reconcile(dirty, scan_bm25=True)
            yield

    def mark_committed(self) -> None:
        """Inside the committing transaction: record file fingerprints and bump the generation."""
        self._record_fingerprints()
        self._wrote = True
        generation = self.registry.bump_generation(_writer_identity())
        _CHROMA_SEEN[str(self.chroma_path)] = generation
        self._seen_generation = generation

    # -- embedding ----------------------------------------------------------------------------------
    def embed(self, docs: Sequence[PreparedDocument]) -> None:
        """Fill ``vectors`` of every document that has none, in batches across documents."""
        todo = [d for d in docs if d.vectors is None and d.chunks]
        texts = [c.text for d in todo for c in d.chunks]
        if not texts:
            return
        self.vectors.ensure_model(*self.model)  # refuse before spending minutes embedding
        matrix = self.embedder.embed_documents(texts, batch_size=self.settings.embedding.batch_size)
        start = 0
        for doc in todo:
            doc.vectors = matrix[start : start + len(doc.chunks)]
            start += len(doc.chunks)

    # -- committing documents -------------------------------------------------------------------------
    def write(self, docs: Sequence[PreparedDocument]) -> None:
        """Embed and commit prepared documents (no jobs): stage all, one registry transaction, drop replaced."""
        if not docs:
            return
        self.embed(docs)
        with self.writing():
            self.commit(docs)

    def commit(
        self, docs: Sequence[PreparedDocument], jobs: Sequence[Job | None] | None = None, worker_id: str = ""
    ) -> list[str]:
        """Stage and commit documents with vectors; call inside :meth:`writing`. Returns each one's outcome.

        A job that is no longer this worker's (``remove`` cancelled it) is skipped
        (outcome ``cancelled``); a document whose content another live path already
        indexes is recorded as a duplicate (no chunks of its own).
        """
        if not self.lock.held:
            raise IndexConsistencyError("Stores.commit() must run inside Stores.writing()")
        job_list = list(jobs) if jobs is not None else [None] * len(docs)
        outcomes: list[str] = []
        staged: list[tuple[PreparedDocument, Job | None, str]] = []
        seen: dict[str, str] = {}
        for doc, job in zip(docs, job_list, strict=True):
            if job is not None and not self.jobs.is_mine_in_tx(job.id, worker_id):
                outcomes.append("cancelled")
                continue
            record = doc.record
            owner = seen.get(record.doc_id) or self._indexed_owner(record.doc_id, record.path)
            if owner is not None:
                self._record_duplicate(doc, owner, job)
                outcomes.append(OUTCOME_DUPLICATE)
                continue
            previous = self.registry.get(record.path)
            doc.replaces = (
                previous.doc_id
                if previous is not None and previous.status in (INDEXED, DUPLICATE) and previous.doc_id != record.doc_id
                else None
            )
            outcome = OUTCOME_UPDATED if previous is not None and previous.status != REMOVED else OUTCOME_ADDED
            seen[record.doc_id] = record.path
            staged.append((doc, job, outcome))
            outcomes.append(outcome)
        if staged:
            self._stage_and_commit(staged)
        return outcomes

    def _stage_and_commit(self, staged: list[tuple[PreparedDocument, Job | None, str]]) -> None:
        docs = [d for d, _, _ in staged]
        ids = [c.id for d in docs for c in d.chunks]
        if len(set(ids)) != len(ids):
            raise IndexConsistencyError("two chunks of one write share an id; chunk ids must be unique")
        leftovers = {d.record.doc_id: set(self.registry.chunk_ids(d.record.doc_id)) for d in docs}
        with self.registry.transaction():
            self.registry.mark_dirty(d.record.doc_id for d in docs)
        # -- stage: every store, upserts only (a rerun after a crash overwrites, never duplicates)
        model = self.model
        if ids:
            texts = [c.text for d in docs for c in d.chunks]
            metas = [chunk_metadata(c, d.record.path, d.record.file_type) for d in docs for c in d.chunks]
            matrix = np.vstack([_embedded(d) for d in docs if d.chunks]).astype(np.float32, copy=False)
            self.vectors.upsert(ids, matrix, texts, metas, model)
            self.bm25_store.add(ids, texts)
        for doc in docs:
            if doc.parsed is not None:
                for sink in self.sinks:
                    sink.put(doc.record.doc_id, doc.record.path, doc.parsed)
        # -- commit: one registry transaction
        still_dirty: list[str] = []
        with self.registry.transaction():
            for doc, job, outcome in staged:
                record = doc.record
                record.status = INDEXED
                record.chunk_count = len(doc.chunks)
                record.embedding_model = model[0]
                record.indexed_at = now_iso()
                record.error_kind = record.error_message = None
                record.index_settings = self._index_settings_json
                self.registry.upsert(record)
                self.registry.replace_chunks(record.doc_id, ((c.id, c.position) for c in doc.chunks))
                if doc.parsed is not None:
                    self.documents.put(record.doc_id, doc.parsed)
                if job is not None:
                    self.jobs.done_in_tx(job, outcome, len(doc.chunks))
                if leftovers[record.doc_id] - {c.id for c in doc.chunks}:
                    still_dirty.append(record.doc_id)  # a forced re-index made fewer chunks: drop the rest
                if doc.replaces:
                    still_dirty.append(doc.replaces)
            self.registry.clear_dirty(d.record.doc_id for d in docs)
            self.registry.mark_dirty(still_dirty)
            self.mark_committed()
        # -- drop what the commit replaced
        if still_dirty:
            self.reconcile(still_dirty)

    def _indexed_owner(self, doc_id: str, path: str) -> str | None:
        for record in self.registry.by_doc_id(doc_id):
            if record.status == INDEXED and record.path != path and Path(record.path).exists():
                return record.path
        return None

    def _record_duplicate(self, doc: PreparedDocument, owner: str, job: Job | None) -> None:
        record = doc.record
        previous = self.registry.get(record.path)
        replaces = previous.doc_id if previous is not None and previous.status in (INDEXED, DUPLICATE) else None
        record.status = DUPLICATE
        record.chunk_count = 0
        record.error_kind = None
        record.error_message = f"same content as {display_path(owner)}"
        record.indexed_at = now_iso()
        record.index_settings = self._index_settings_json
        outcome = OUTCOME_DUPLICATE
        self.record_only(record, replaces if replaces != record.doc_id else None, job=job, outcome=outcome)

    def record_only(
        self, record: DocumentRecord, replaces: str | None = None, job: Job | None = None, outcome: str | None = None
    ) -> None:
        """Register a row that owns no chunks (failed, duplicate), dropping the chunks it had.

        Call inside :meth:`writing` (it takes the lock itself when called alone).
        """
        with self._maybe_writing():
            with self.registry.transaction():
                self.registry.upsert(record)
                if job is not None and outcome is not None:
                    self.jobs.done_in_tx(job, outcome)
                if replaces and replaces != record.doc_id:
                    self.registry.mark_dirty([replaces])
                self.mark_committed()
            if replaces and replaces != record.doc_id:
                self.reconcile([replaces])

    @contextmanager
    def _maybe_writing(self) -> Iterator[None]:
        if self.lock.held:
            yield
        else:
            with self.writing():
                yield

    def record_failure(
        self, job: Job, record: DocumentRecord, previous: DocumentRecord | None, kind: str, message: str,
        transient: bool,
    ) -> str:
        """A job's attempt failed: RETRY (registry untouched) or FAILED (the file recorded as failed).

        A file that was indexed before and has now changed into something unreadable (a save
        interrupted half-way, a password added) keeps its previous version's chunks: the
        registry row stays ``indexed`` for the old content hash and carries the new error.
        Returns the job's new state.
        """
        with self.writing():
            with self.registry.transaction():
                if not self.jobs.is_mine_in_tx(job.id, job.worker_id or ""):
                    return "cancelled"  # `remove` took the file out while it was being parsed
                state = self.jobs.failed_in_tx(job, kind, message, transient)
                if state != JOB_FAILED:
                    return state
                if previous is not None and previous.status == INDEXED and previous.doc_id != record.doc_id:
                    previous.error_kind = kind
                    previous.error_message = (
                        f"the changed file cannot be read ({message}); the previous version stays indexed"
                    )
                    self.registry.upsert(previous)
                    self.mark_committed()
                    return state
                replaces = (
                    previous.doc_id if previous is not None and previous.status in (INDEXED, DUPLICATE) else None
                )
                record.status = FAILED
                record.error_kind = kind
                record.error_message = message
                record.chunk_count = 0
                record.indexed_at = now_iso()
                record.doc_id = record.doc_id or (previous.doc_id if previous else "")
                self.registry.upsert(record)
                if replaces and replaces != record.doc_id:
                    self.registry.mark_dirty([replaces])
                self.mark_committed()
            if replaces and replaces != record.doc_id:
                self.reconcile([replaces])
            return state

    def finish_job(self, job: Job, outcome: str, message: str | None = None) -> None:
        """Mark a job DONE that changed nothing (unchanged file, vanished file already gone)."""
        with self.registry.transaction():
            self.jobs.done_in_tx(job, outcome, 0, message)

    def background_coverage(self) -> tuple[dict[str, object], dict[str, int]]:
        """The background model's coverage: (summary for ``status``/``/api/health``, doc id -> chunks covered)."""
        embedder = self.strong.embedder
        covered = self.strong.covered_by_doc()
        counts = self.registry.chunk_counts()
        per_doc = {doc_id: min(covered.get(doc_id, 0), n) for doc_id, n in counts.items()}
        return coverage_summary(covered, counts, embedder.name if embedder is not None else None), per_doc

    def write_strong(self, doc_id: str, ids: Sequence[str], vectors: np.ndarray) -> int:
        """Store background-model vectors of ``doc_id``'s chunks (under the write lock); how many were kept.

        Chunks the registry no longer lists for ``doc_id`` (the document was removed or replaced while
        they were embedded) are dropped, so a late batch never brings back a deleted document's vectors.
        """
        with self.writing():
            listed = set(self.registry.chunk_ids(doc_id)) if self.registry.is_indexed(doc_id) else set()
            pairs = [(i, cid) for i, cid in enumerate(ids) if cid in listed]
            metas = self.vectors.get(cid for _, cid in pairs) if pairs else {}
            pairs = [(i, cid) for i, cid in pairs if cid in metas]
            if not pairs:
                return 0
            kept = [cid for _, cid in pairs]
            matrix = np.asarray(vectors, dtype=np.float32)[[i for i, _ in pairs]]
            store = self.strong.store(create=True)
            assert store is not None
            store.upsert(kept, matrix, [""] * len(kept), [metas[cid][1] for cid in kept], self.strong.model)
            with self.registry.transaction():
                self.strong.bump_in_tx()
            return len(kept)

    # -- removing ---------------------------------------------------------------------------------------
    def remove(self, path_or_id: str, exclude: bool = True) -> list[str]:
        """Remove a document (by path, or by doc id or a unique prefix of 8+ chars) from every store.

        Its path is recorded as an exclusion (a later ``index`` of its folder skips it) unless
        ``exclude`` is false (the file itself is gone). A queued or running job for the path is
        cancelled. Returns the paths now marked removed. Raises :class:`DocumentNotFound`.
        """
        with self.writing():
            records = self._resolve(path_or_id)
            for record in records:
                self._remove_record(record, exclude=exclude, reason="removed by `officeqa remove`")
            if self.bm25_store.fold():
                self._record_fingerprints()
        return [r.path for r in records]

    def remove_path(self, path: str, job: Job | None = None, reason: str = "the file is gone") -> bool:
        """Remove one registered path (a file deleted from a watched/indexed folder); True if it was live."""
        with self.writing():
            record = self.registry.get(path)
            if record is None or record.status == REMOVED:
                if job is not None:
                    with self.registry.transaction():
                        self.jobs.done_in_tx(job, "unchanged", 0, "not in the knowledge base")
                return False
            self._remove_record(record, exclude=False, reason=reason, job=job)
            return True

    def _remove_record(self, record: DocumentRecord, exclude: bool, reason: str, job: Job | None = None) -> None:
        with self.registry.transaction():
            self.registry.set_status(record.path, REMOVED, chunk_count=0, indexed_at=now_iso(), error_kind=None,
                                     error_message=None)
            if exclude:
                self.registry.exclude(record.path)
            if job is not None:
                self.jobs.done_in_tx(job, OUTCOME_REMOVED)
            self.jobs.cancel_live_in_tx(record.path, reason)
            self.registry.mark_dirty([record.doc_id])
            self.mark_committed()
        self.reconcile([record.doc_id])

    def _resolve(self, path_or_id: str) -> list[DocumentRecord]:
        for candidate in (path_or_id, absolute(path_or_id)):
            record = self.registry.get(candidate)
            if record is not None and record.status != REMOVED:
                return [record]
        if len(path_or_id) >= 8:
            ids = self.registry.find_doc_ids(path_or_id)
            if len(ids) > 1:
                raise DocumentNotFound(f"{path_or_id!r} matches {len(ids)} documents; give more characters")
            if ids:
                live = [r for r in self.registry.by_doc_id(ids[0]) if r.status != REMOVED]
                if live:
                    return live
        raise DocumentNotFound(f"no indexed document has the path or id {path_or_id!r} (see `officeqa status`)")

    # -- reconciling doc ids against the registry --------------------------------------------------------
    def reconcile(self, doc_ids: Iterable[str], scan_bm25: bool = False) -> None:
        """Make every store hold exactly the registry's chunks of ``doc_ids``; clear their dirty marks.

        Call under the write lock. Chunks the registry does not list are dropped; chunks it
        lists but BM25 lacks are re-added from Chroma's texts; a document whose vectors are
        missing is sent back to the queue. ``scan_bm25`` also finds BM25 ids by doc-id prefix
        (after a crash the registry may not list what was staged).
        """
        wanted = sorted(set(doc_ids))
        if not wanted:
            return
        by_prefix: dict[str, set[str]] = {}
        if scan_bm25:
            prefixes = {f"{d}-": d for d in wanted}
            for cid in self.bm25_store.ids():
                head = cid.rsplit("-", 1)[0] + "-"
                if head in prefixes:
                    by_prefix.setdefault(prefixes[head], set()).add(cid)
        chroma_exists = self._vectors is not None or (self.chroma_path / "chroma.sqlite3").exists()
        requeue: list[str] = []
        for doc_id in wanted:
            listed = set(self.registry.chunk_ids(doc_id))
            committed = self.registry.is_indexed(doc_id)
            keep = listed if committed else set()
            in_chroma = set(self.vectors.ids_where({"doc_id": doc_id})) if chroma_exists else set()
            candidates = listed | in_chroma | by_prefix.get(doc_id, set())
            drop = sorted(candidates - keep)
            if drop:
                if chroma_exists:
                    self.vectors.delete_ids([cid for cid in drop if cid in in_chroma])
                self.bm25_store.remove(drop)
            missing_bm25 = sorted(cid for cid in keep if cid not in self.bm25_store.index)
            if missing_bm25:
                texts = self.vectors.texts(missing_bm25) if chroma_exists else {}
                found = [cid for cid in missing_bm25 if cid in texts]
                self.bm25_store.add(found, [texts[cid] for cid in found])
            self.strong.drop_except(doc_id, keep)
            if keep - in_chroma:
                requeue.append(doc_id)  # vectors lost: nothing of it stays, the file is indexed again
                if chroma_exists:
                    self.vectors.delete_ids(sorted(keep & in_chroma))
                self.bm25_store.remove(keep)
            for sink in self.sinks:
                if not committed:
                    sink.delete(doc_id)
                elif doc_id not in sink.doc_ids():
                    self.sink_put(sink, doc_id)
        with self.registry.transaction():
            for doc_id in wanted:
                if not self.registry.is_indexed(doc_id):
                    self.registry.delete_chunks(doc_id)
                    if not any(r.status in (DUPLICATE, PENDING) for r in self.registry.by_doc_id(doc_id)):
                        self.documents.delete(doc_id)
                    self._release_in_tx(doc_id)
            for doc_id in requeue:
                self.send_back_in_tx(doc_id, "its vectors are missing from the vector store")
            self.registry.clear_dirty(wanted)
            self.mark_committed()

    def sink_put(self, sink: DocumentSink, doc_id: str) -> None:
        document = self.documents.get(doc_id)
        owners = [r for r in self.registry.by_doc_id(doc_id) if r.status == INDEXED]
        if document is not None and owners:
            sink.put(doc_id, owners[0].path, document)

    def _release_in_tx(self, doc_id: str) -> None:
        """After ``doc_id``'s owner went away, its duplicates must be indexed themselves: queue them."""
        for record in self.registry.by_doc_id(doc_id):
            if record.status == DUPLICATE:
                self.registry.set_status(record.path, PENDING)
                self.jobs.enqueue_in_tx(record.path, KIND_INDEX, None, True, "owner-removed")

    def send_back(self, doc_id: str, why: str) -> None:
        """A committed document lost data in some store: drop it from every store and queue its file again."""
        ids = self.registry.chunk_ids(doc_id)
        if self._vectors is not None or (self.chroma_path / "chroma.sqlite3").exists():
            self.vectors.delete_ids(self.vectors.existing(ids))
        self.bm25_store.remove(ids)
        with self.registry.transaction():
            self.send_back_in_tx(doc_id, why)
            self.mark_committed()

    def send_back_in_tx(self, doc_id: str, why: str) -> None:
        """The registry half of :meth:`send_back` (the caller dropped the doc's chunks from the stores)."""
        self.registry.delete_chunks(doc_id)
        for record in self.registry.by_doc_id(doc_id):
            if record.status == INDEXED:
                self.registry.set_status(record.path, PENDING, chunk_count=0, error_message=why)
                self.jobs.enqueue_in_tx(record.path, KIND_INDEX, None, True, "repair")

    # -- whole-store operations ------------------------------------------------------------------------------
    def move_bm25_files_aside(self, suffix: str) -> list[Path]:
        """The embedded BM25 snapshot and log renamed with ``suffix`` (kept for inspection); the paths moved.

        Only ``check --repair`` of a damaged file calls it (``has_store_files``)."""
        return self._bm25_files.move_aside(suffix)

    def reset_stores(self) -> None:
        """Empty Chroma, BM25 and the sinks and forget every chunk; live documents become pending."""
        with self.writing():
            self.vectors.reset()
            self.strong.reset()  # chunk ids are kept by a re-chunk with other settings: their texts are not
            self.bm25_store.reset()
            for sink in self.sinks:
                for doc_id in sink.doc_ids():
                    sink.delete(doc_id)
            with self.registry.transaction():
                for record in self.registry.documents():
                    self.registry.delete_chunks(record.doc_id)
                    if record.status != REMOVED:
                        self.registry.set_status(record.path, PENDING, chunk_count=0)
                self.mark_committed()

    def save(self) -> None:
        """Fold the BM25 log into its snapshot when it holds additions (end of an index run).

        Only for an instance that wrote: closing a reader (search, status) never takes the write lock.
        """
        if not self.bm25_store.loaded or not self._wrote:
            return
        with self._maybe_writing():
            self.sync_for_write()
            if self.bm25_store.fold(force=True):
                self._record_fingerprints()

    def close(self) -> None:
        try:
            self.save()
        finally:
            self.registry.close()

    # -- reading ------------------------------------------------------------------------------------------------
    def chunk_doc_map(self) -> dict[str, str]:
        return self.registry.chunk_doc_map()

    def fetch(self, ids: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """chunk id -> (text, metadata), read from Chroma (which stores both)."""
        return self.vectors.get(ids)

    def stale_documents(self) -> list[tuple[DocumentRecord, list[str]]]:
        """Indexed documents whose chunking/embedding settings differ from the current ones, with what changed."""
        out = []
        for record in self.registry.documents(statuses=[INDEXED, DUPLICATE]):
            changes = settings_drift(record.index_settings, self._index_settings)
            if changes:
                out.append((record, changes))
        return out

    def embedding_changed(self) -> bool:
        """Does the configured embedder differ from the one recorded for any indexed document?"""
        current = self._index_settings["embedding"]
        for record in self.registry.documents(statuses=[INDEXED]):
            if record.index_settings:
                try:
                    if json.loads(record.index_settings).get("embedding") != current:
                        return True
                except ValueError:
                    return True
        return False


__all__ = [
    "OUTCOME_ADDED",
    "OUTCOME_DUPLICATE",
    "OUTCOME_REMOVED",
    "OUTCOME_UPDATED",
    "PreparedDocument",
    "Stores",
    "index_settings",
    "settings_drift",
]
