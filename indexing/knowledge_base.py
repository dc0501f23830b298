"""The knowledge base: every store of one ``data_dir`` kept in step, plus indexing, checking and repair.

Why one facade: callers (CLI, HTTP server, eval) open one :class:`KnowledgeBase` from
:class:`Settings` (:func:`indexing.storage.open_knowledge_base` picks the backend's class), use it and
``close()`` it. The stores and the commit protocol live in
:mod:`indexing.stores`, the job queue and workers in :mod:`indexing.jobs` /
:mod:`indexing.workers`, enqueueing in :mod:`indexing.ingest`, ``check``/``repair`` in
:mod:`indexing.repair`; this class only wires them, so none of those modules imports
this one (no import cycle: ``lint-imports`` and ``tests/unit/test_import_graph.py`` check it). The heavy
parts (Chroma, the BM25 index, the embedding model) open lazily, so skipping an unchanged corpus never loads a model.

Layout under ``settings.data_dir``: ``registry.sqlite3`` (documents, chunks, stored parsed
documents, jobs), ``chroma/``, ``bm25`` + ``bm25.log``, ``write.lock``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.registry import INDEXED, PENDING, REMOVED, DocumentRecord, now_iso
from indexing.stores import PreparedDocument, Stores
from indexing.table_store import TableStore
from officeqa.errors import DocumentNotFound

if TYPE_CHECKING:
    from indexing.ingest import IndexReport
    from indexing.repair import ConsistencyReport, RepairReport

#: Re-exported names whose modules load on first use: ``search`` and ``ask`` open a knowledge base but never index,
#: check or repair, and the queue, worker pool, parser guard and chunker they import were ~1/5 of opening one.
_LAZY = {"IndexReport": "indexing.ingest", "ConsistencyReport": "indexing.repair", "RepairReport": "indexing.repair"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(slots=True)
class KBStatus:
    """What ``status`` prints: the documents, a few totals, stale documents and the job queue."""

    data_dir: str
    documents: list[DocumentRecord]
    counts: dict[str, int]
    chunks: int
    embedding_model: str | None
    stale: list[tuple[DocumentRecord, list[str]]]
    jobs: dict[str, int]
    #: the background model and its coverage (indexing/strong.py), and chunks it covers per doc id
    background: dict[str, Any] = field(default_factory=dict)
    background_by_doc: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        documents = []
        for record in self.documents:
            doc = record.to_json()
            if record.status == INDEXED:
                doc["background_chunks"] = self.background_by_doc.get(record.doc_id, 0)
            documents.append(doc)
        return {
            "data_dir": self.data_dir,
            "counts": self.counts,
            "chunks": self.chunks,
            "embedding_model": self.embedding_model,
            "background_embedding": self.background,
            "documents": documents,
            "stale": [{"path": r.to_json()["path"], "changed": changes} for r, changes in self.stale],
            "jobs": self.jobs,
        }


class KnowledgeBase(Stores):
    """Registry, vector store, BM25 index, stored documents, sinks and embedder of one ``data_dir``."""

    @contextmanager
    def tables_for(self, doc_ids: Sequence[str]) -> Iterator[TableStore | None]:
        """The stored tables (read-only) for a table question over ``doc_ids``; None when nothing is stored."""
        store = TableStore.from_settings(self.settings, read_only=True)
        if not store.path.exists():
            yield None
            return
        try:
            yield store
        finally:
            store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- indexing ---------------------------------------------------------------------------------
    def index_paths(
        self,
        paths: Sequence[str | Path],
        progress: bool = False,
        force: bool = False,
        include_removed: bool = False,
        wait: bool = True,
        workers: int | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> IndexReport:
        """Index files and folders (recursively) through the job queue; see :func:`indexing.ingest.index_paths`."""
        from indexing.ingest import index_paths

        return index_paths(
            self, paths, progress=progress, force=force, include_removed=include_removed, wait=wait,
            workers=workers, on_event=on_event,
        )

    def reindex(
        self,
        progress: bool = False,
        stale_only: bool = False,
        wait: bool = True,
        workers: int | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> IndexReport:
        """Index registered files again with the current settings.

        ``stale_only`` queues only documents whose chunking or embedding settings changed
        since they were indexed (all of them, and the stores are emptied first, when the
        embedding model changed: vectors of two models cannot share a store). Otherwise
        every store is emptied and every registered file indexed again. Registered files
        that no longer exist are marked removed.
        """
        from indexing.ingest import enqueue_paths, report_from_jobs, run_jobs

        started = time.perf_counter()
        if stale_only and not self.embedding_changed():
            targets = [record.path for record, _ in self.stale_documents()]
        else:
            self.reset_stores()
            targets = [r.path for r in self.registry.documents(statuses=[PENDING])]
        gone = [p for p in targets if not Path(p).is_file()]
        if gone:
            with self.lock, self.registry.transaction():
                for path in gone:
                    self.registry.set_status(path, REMOVED, chunk_count=0, indexed_at=now_iso())
                self.mark_committed()
        enqueued = enqueue_paths(self, [p for p in targets if p not in set(gone)], force=True)
        if wait and enqueued.job_ids:
            run_jobs(self, enqueued.job_ids, progress=progress, workers=workers, on_event=on_event)
        self.save()
        report = report_from_jobs(self, enqueued, started)
        report.removed.extend(gone)
        return report

    def run_workers(
        self, until: Callable[[], bool] | None = None, workers: int | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Run a worker pool in this thread (``officeqa worker``) until ``until()`` or KeyboardInterrupt."""
        from indexing.workers import WorkerPool

        WorkerPool(self, workers=workers, on_event=on_event).run(until=until)

    # -- checking -------------------------------------------------------------------------------------
    def check(self, limit: int = 50) -> ConsistencyReport:
        """Compare every store with the registry; see :func:`indexing.repair.check`."""
        from indexing.repair import check

        return check(self, limit)

    def repair(self) -> RepairReport:
        """Bring every store back in line with the registry; see :func:`indexing.repair.repair`."""
        from indexing.repair import repair

        return repair(self)

    def status(self) -> KBStatus:
        docs = self.registry.documents()
        recorded = self.recorded_model()
        background, by_doc = self.background_coverage()
        return KBStatus(
            data_dir=str(self.data_dir),
            documents=docs,
            counts=self.registry.counts_by_status(),
            chunks=sum(self.registry.chunk_counts().values()),
            embedding_model=recorded[0] if recorded else None,
            stale=self.stale_documents(),
            jobs=self.jobs.counts(),
            background=background,
            background_by_doc=by_doc,
        )


__all__ = [
    "ConsistencyReport",
    "DocumentNotFound",
    "IndexReport",
    "KBStatus",
    "KnowledgeBase",
    "PreparedDocument",
    "RepairReport",
]
