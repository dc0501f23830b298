"""The knowledge base: registry + Chroma vectors + BM25 + the embedder, kept in step.

Why one facade: a document lives in three stores (the SQLite registry, the Chroma
collection, the BM25 index) and every add, replace and delete must touch all three in
the same order, or searches return stale chunks that ``check`` then reports. Callers
(CLI, HTTP server, eval) open one :class:`KnowledgeBase` from :class:`Settings`, use it,
and ``close()`` it; the heavy parts (Chroma, the BM25 index, the embedding model) open
lazily, so skipping an unchanged corpus never loads a model.

Layout under ``settings.data_dir``: ``registry.sqlite3``, ``chroma/``, ``bm25/``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from indexing.document_store import DocumentStore
from indexing.registry import (
    DUPLICATE,
    INDEXED,
    PENDING,
    REMOVED,
    DocumentRecord,
    Registry,
    now_iso,
)
from indexing.vector_store import VectorStore, chunk_metadata
from officeqa.domain import Chunk, ParsedDocument
from officeqa.errors import DocumentNotFound, IndexConsistencyError, OfficeQAError
from officeqa.settings import Settings

_JOURNAL_MAX_BYTES = 4 << 20  # a journal beyond this is folded in by a full save

if TYPE_CHECKING:
    from indexing.bm25_index import BM25Index
    from indexing.ingest import IndexReport
    from officeqa.embeddings import Embedder


@dataclass(slots=True)
class PreparedDocument:
    """A document ready to be written: its registry row, chunks and (later) their vectors."""

    record: DocumentRecord
    chunks: list[Chunk]
    vectors: np.ndarray | None = None
    replaces: str | None = None  # the doc id this path had before (its chunks go first)
    parsed: ParsedDocument | None = None  # stored beside the registry row for handlers and scope


@dataclass(slots=True)
class ConsistencyReport:
    """What ``check`` found; ``clean`` means the three stores hold the same chunk ids."""

    registry_chunks: int = 0
    chroma_chunks: int = 0
    bm25_chunks: int = 0
    missing_in_chroma: list[str] = field(default_factory=list)
    missing_in_bm25: list[str] = field(default_factory=list)
    orphans_in_chroma: list[str] = field(default_factory=list)
    orphans_in_bm25: list[str] = field(default_factory=list)
    count_mismatches: list[str] = field(default_factory=list)
    model_problem: str | None = None
    missing_files: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (
            self.missing_in_chroma
            or self.missing_in_bm25
            or self.orphans_in_chroma
            or self.orphans_in_bm25
            or self.count_mismatches
            or self.model_problem
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "registry_chunks": self.registry_chunks,
            "chroma_chunks": self.chroma_chunks,
            "bm25_chunks": self.bm25_chunks,
            "missing_in_chroma": self.missing_in_chroma,
            "missing_in_bm25": self.missing_in_bm25,
            "orphans_in_chroma": self.orphans_in_chroma,
            "orphans_in_bm25": self.orphans_in_bm25,
            "count_mismatches": self.count_mismatches,
            "model_problem": self.model_problem,
            "missing_files": self.missing_files,
        }


@dataclass(slots=True)
class KBStatus:
    """What ``status`` prints: the documents and a few totals."""

    data_dir: str
    documents: list[DocumentRecord]
    counts: dict[str, int]
    chunks: int
    embedding_model: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "data_dir": self.data_dir,
            "counts": self.counts,
            "chunks": self.chunks,
            "embedding_model": self.embedding_model,
            "documents": [d.to_json() for d in self.documents],
        }


class KnowledgeBase:
    """Registry, vector store, BM25 index and embedder of one ``data_dir``."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.data_dir = Path(settings.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.registry = Registry(self.data_dir / "registry.sqlite3")
        self.documents = DocumentStore(self.registry)
        self._embedder = embedder
        self._vectors: VectorStore | None = None
        self._bm25: BM25Index | None = None
        self._bm25_dirty = False  # adds happened: the whole index must be written
        self._bm25_deleted: list[str] = []  # removals not yet journalled

    @classmethod
    def open(cls, settings: Settings, embedder: Embedder | None = None) -> KnowledgeBase:
        return cls(settings, embedder)

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- lazily opened parts ------------------------------------------------------------
    @property
    def bm25_path(self) -> Path:
        return self.data_dir / "bm25"

    @property
    def bm25_journal(self) -> Path:
        """Chunk ids deleted from BM25 since its file was last written, one per line.

        Rewriting the whole BM25 file costs seconds at 100k chunks; a removal only appends
        its ids here (deleting a document stays well under a second), and the next full
        save (any index run) folds them in and empties the journal.
        """
        return self.data_dir / "bm25.deleted"

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from officeqa.embeddings import create_embedder

            self._embedder = create_embedder(self.settings.embedding, self.settings.ollama)
        return self._embedder

    @property
    def vectors(self) -> VectorStore:
        if self._vectors is None:
            self._vectors = VectorStore(self.data_dir / "chroma")
        return self._vectors

    @property
    def bm25(self) -> BM25Index:
        if self._bm25 is None:
            from indexing.bm25_index import BM25Index

            self._bm25 = BM25Index.load(self.bm25_path) if self.bm25_path.exists() else BM25Index()
            self._replay_journal(self._bm25)
        return self._bm25

    def _replay_journal(self, index: BM25Index) -> None:
        if not self.bm25_journal.exists():
            return
        deleted = set(self.bm25_journal.read_text(encoding="utf-8").split())
        if deleted:
            # An id deleted and then indexed again is registered: the registry has the last word.
            registered = set(self.registry.chunk_ids())
            index.remove(deleted - registered)

    @property
    def model(self) -> tuple[str, int]:
        """(name, dim) of the configured embedder."""
        return self.embedder.name, int(self.embedder.dim)

    # -- writing ------------------------------------------------------------------------
    def index_paths(
        self, paths: Sequence[str | Path], progress: bool = False, force: bool = False
    ) -> IndexReport:
        """Index files and folders (recursively); see :func:`indexing.ingest.index_paths`."""
        from indexing.ingest import index_paths

        return index_paths(self, paths, progress=progress, force=force)

    def embed(self, docs: Sequence[PreparedDocument], progress: Callable[[int, int], None] | None = None) -> None:
        """Fill ``vectors`` of every document that has none, in batches across documents."""
        todo = [d for d in docs if d.vectors is None and d.chunks]
        texts = [c.text for d in todo for c in d.chunks]
        if not texts:
            return
        self.vectors.ensure_model(*self.model)  # refuse before spending minutes embedding
        matrix = self.embedder.embed_documents(texts, batch_size=self.settings.embedding.batch_size, progress=progress)
        start = 0
        for doc in todo:
            doc.vectors = matrix[start : start + len(doc.chunks)]
            start += len(doc.chunks)

    def write(self, docs: Sequence[PreparedDocument]) -> None:
        """Write prepared documents to every store: old chunks out first, then the new ones in.

        Order: Chroma and BM25 deletes, Chroma and BM25 adds, then the registry in one
        transaction. A crash in between leaves chunks the registry does not list, which
        ``check`` reports and the next index run of that file replaces.
        """
        if not docs:
            return
        self.embed(docs)
        model = self.model
        for doc in docs:
            if doc.replaces and doc.replaces != doc.record.doc_id:
                self._drop_doc_chunks(doc.replaces, keep_if_owned_elsewhere=doc.record.path)
        ids = [c.id for d in docs for c in d.chunks]
        if len(set(ids)) != len(ids):
            raise IndexConsistencyError("two chunks of one write share an id; chunk ids must be unique")
        # Leftovers of the same ids (a crashed run, a forced re-index) are replaced, not duplicated.
        stale = [cid for d in docs for cid in self.registry.chunk_ids(d.record.doc_id)]
        stale.extend(self.vectors.existing(ids))
        if stale:
            self.vectors.delete_ids(sorted(set(stale)))
        self._bm25_remove(set(stale) | set(ids))
        self._put_tables(docs)
        texts = [c.text for d in docs for c in d.chunks]
        metas = [chunk_metadata(c, d.record.path, d.record.file_type) for d in docs for c in d.chunks]
        vectors = [d.vectors for d in docs if d.chunks]
        if ids:
            matrix = np.vstack(vectors).astype(np.float32, copy=False)
            self.vectors.add(ids, matrix, texts, metas, model)
            self.bm25.add(ids, texts)
            self._bm25_dirty = True
        with self.registry.transaction():
            for doc in docs:
                doc.record.status = INDEXED
                doc.record.chunk_count = len(doc.chunks)
                doc.record.embedding_model = model[0]
                doc.record.indexed_at = now_iso()
                doc.record.error_kind = doc.record.error_message = None
                self.registry.upsert(doc.record)
                self.registry.replace_chunks(doc.record.doc_id, ((c.id, c.position) for c in doc.chunks))
                if doc.parsed is not None:
                    self.documents.put(doc.record.doc_id, doc.parsed)
        for doc in docs:
            if doc.replaces and doc.replaces != doc.record.doc_id:
                self._release(doc.replaces)

    def _put_tables(self, docs: Sequence[PreparedDocument]) -> None:
        """Tables as typed rows in the table store (staged before the registry commit; idempotent by doc id)."""
        with_tables = [d for d in docs if d.parsed is not None and any(b.type.value == "table"
                                                                       for b in d.parsed.blocks)]
        if not with_tables:
            return
        from indexing.table_store import TableStore

        with TableStore.from_settings(self.settings) as store:
            for doc in with_tables:
                store.put(doc.record.doc_id, doc.record.path, doc.parsed)

    def _drop_tables(self, doc_id: str) -> None:
        from indexing.table_store import TableStore, table_store_path

        if table_store_path(self.settings).exists():
            with TableStore.from_settings(self.settings) as store:
                store.delete(doc_id)

    def _drop_doc_chunks(self, doc_id: str, keep_if_owned_elsewhere: str | None) -> None:
        """Delete ``doc_id``'s chunks from every store, unless another path still owns them."""
        if keep_if_owned_elsewhere is not None:
            owners = [r for r in self.registry.by_doc_id(doc_id) if r.status == INDEXED]
            if any(r.path != keep_if_owned_elsewhere for r in owners):
                return
        ids = self.registry.chunk_ids(doc_id)
        if self._vectors is not None or (self.data_dir / "chroma").exists():
            self.vectors.delete_doc(doc_id)
        self._bm25_remove(ids)
        self._drop_tables(doc_id)
        with self.registry.transaction():
            self.registry.delete_chunks(doc_id)
            self.documents.delete(doc_id)

    def _bm25_remove(self, ids: Iterable[str]) -> None:
        present = [cid for cid in ids if cid in self.bm25]
        if present:
            self.bm25.remove(present)
            self._bm25_deleted.extend(present)

    def record_only(self, record: DocumentRecord, replaces: str | None = None) -> None:
        """Register a row that owns no chunks (failed, duplicate), dropping the chunks it had."""
        if replaces and replaces != record.doc_id:
            self._drop_doc_chunks(replaces, keep_if_owned_elsewhere=record.path)
            self._release(replaces)
        with self.registry.transaction():
            self.registry.upsert(record)

    def _release(self, doc_id: str) -> list[str]:
        """After ``doc_id``'s owner went away, mark its duplicates pending (they must be indexed)."""
        if self.registry.is_indexed(doc_id):
            return []
        waiting = [r.path for r in self.registry.by_doc_id(doc_id) if r.status == DUPLICATE]
        with self.registry.transaction():
            for path in waiting:
                self.registry.set_status(path, PENDING)
        return waiting

    def remove(self, path_or_id: str) -> list[str]:
        """Remove a document (by path, or by doc id or a unique prefix of 8+ chars) from every store.

        Returns the paths now marked removed. Raises :class:`DocumentNotFound`.
        """
        records = self._resolve(path_or_id)
        for record in records:
            self._drop_doc_chunks(record.doc_id, keep_if_owned_elsewhere=record.path)
            with self.registry.transaction():
                self.registry.set_status(record.path, REMOVED, chunk_count=0, indexed_at=now_iso())
            self._release(record.doc_id)
        self.save()
        return [r.path for r in records]

    def _resolve(self, path_or_id: str) -> list[DocumentRecord]:
        for candidate in (path_or_id, str(Path(path_or_id).expanduser().resolve())):
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

    def reset_stores(self) -> None:
        """Empty Chroma and BM25 and forget every chunk (``reindex`` then indexes all paths again)."""
        from indexing.bm25_index import BM25Index

        self.vectors.reset()
        self._bm25 = BM25Index()
        self._bm25_dirty = True
        self._bm25_deleted = []
        with self.registry.transaction():
            for record in self.registry.documents():
                self.registry.delete_chunks(record.doc_id)
                if record.status != REMOVED:
                    self.registry.set_status(record.path, PENDING, chunk_count=0)
        self.save()

    def reindex(self, progress: bool = False) -> IndexReport:
        """Rebuild Chroma and BM25 from the registered files (after changing the embedding model).

        Every registered file is indexed again with the configured embedder; registered
        files that no longer exist are marked removed.
        """
        self.reset_stores()
        pending = self.registry.documents(statuses=[PENDING])
        report = self.index_paths([r.path for r in pending if Path(r.path).is_file()], progress=progress, force=True)
        for record in pending:
            if not Path(record.path).is_file():
                with self.registry.transaction():
                    self.registry.set_status(record.path, REMOVED, chunk_count=0, indexed_at=now_iso())
                report.removed.append(record.path)
        return report

    def save(self) -> None:
        """Persist the BM25 index if it changed (Chroma and SQLite persist on every write)."""
        if self._bm25 is None:
            return
        journal_big = self.bm25_journal.exists() and self.bm25_journal.stat().st_size > _JOURNAL_MAX_BYTES
        if self._bm25_dirty or journal_big:
            self._bm25.save(self.bm25_path)
            self.bm25_journal.unlink(missing_ok=True)  # after the save: replaying it again is harmless
            self._bm25_dirty = False
            self._bm25_deleted = []
        elif self._bm25_deleted:
            with open(self.bm25_journal, "a", encoding="utf-8") as fh:
                fh.write("".join(f"{cid}\n" for cid in self._bm25_deleted))
                fh.flush()
                os.fsync(fh.fileno())
            self._bm25_deleted = []

    def close(self) -> None:
        try:
            self.save()
        finally:
            self.registry.close()

    # -- reading ------------------------------------------------------------------------
    def status(self) -> KBStatus:
        docs = self.registry.documents()
        recorded = self.vectors.model if (self.data_dir / "chroma").exists() else None
        return KBStatus(
            data_dir=str(self.data_dir),
            documents=docs,
            counts=self.registry.counts_by_status(),
            chunks=sum(self.registry.chunk_counts().values()),
            embedding_model=recorded[0] if recorded else None,
        )

    def check(self, limit: int = 50) -> ConsistencyReport:
        """Compare the chunk ids of registry, Chroma and BM25 (lists cut to ``limit`` ids each)."""
        registry_ids = set(self.registry.chunk_ids())
        chroma_ids = set(self.vectors.all_ids())
        bm25_ids = set(self.bm25.ids())
        report = ConsistencyReport(
            registry_chunks=len(registry_ids), chroma_chunks=len(chroma_ids), bm25_chunks=len(bm25_ids)
        )
        report.missing_in_chroma = sorted(registry_ids - chroma_ids)[:limit]
        report.missing_in_bm25 = sorted(registry_ids - bm25_ids)[:limit]
        report.orphans_in_chroma = sorted(chroma_ids - registry_ids)[:limit]
        report.orphans_in_bm25 = sorted(bm25_ids - registry_ids)[:limit]
        counts = self.registry.chunk_counts()
        owners: set[str] = set()
        for record in self.registry.documents():
            if record.status == INDEXED:
                owners.add(record.doc_id)
                if counts.get(record.doc_id, 0) != record.chunk_count:
                    listed = counts.get(record.doc_id, 0)
                    report.count_mismatches.append(
                        f"{record.path}: registry says {record.chunk_count} chunks, {listed} listed"
                    )
                if not Path(record.path).exists() and "://" not in record.path:
                    report.missing_files.append(record.path)
        for doc_id in sorted(set(counts) - owners):
            report.count_mismatches.append(
                f"doc {doc_id}: {counts[doc_id]} chunks listed but no indexed path owns them"
            )
        recorded = self.vectors.model
        if recorded is not None and chroma_ids:
            try:
                configured = self.model
            except OfficeQAError as exc:  # the configured model cannot be built: say so, still report the rest
                report.model_problem = f"cannot build the configured embedder: {exc}"
            else:
                if recorded != configured:
                    report.model_problem = (
                        f"vectors were made by {recorded[0]!r} (dim {recorded[1]}) but the configured embedder is "
                        f"{configured[0]!r} (dim {configured[1]}); re-index"
                    )
        return report

    def chunk_doc_map(self) -> dict[str, str]:
        return self.registry.chunk_doc_map()

    def fetch(self, ids: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """chunk id -> (text, metadata), read from Chroma (which stores both)."""
        return self.vectors.get(ids)
