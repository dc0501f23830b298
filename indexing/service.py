"""The ingestion API a long-running process (the HTTP server) uses: enqueue, background workers, job states.

Why a separate object: the server answers questions on request threads while documents
are indexed in the same process. :class:`IngestService` runs one :class:`indexing.workers.WorkerPool`
on a background thread with its own :class:`indexing.knowledge_base.KnowledgeBase` (SQLite connections
belong to the thread that opened them), and every call from a request thread opens a
short-lived registry connection of its own. Commits bump the registry's write generation,
so the server's reading knowledge base picks new documents up on its next query.

    service = IngestService(settings, summarise=True)   # trees too (summary.on_index), at low priority
    service.start()                      # in the app's lifespan start-up
    ids = service.enqueue([saved_upload], doc_hashes=[its_sha256])
    service.jobs(paths=[saved_upload])   # PENDING / RUNNING / DONE / FAILED / RETRY, with errors
    service.stop()                       # in the lifespan's finally: jobs in flight go back to the queue
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.backends import job_queue, open_stores
from indexing.contracts import JobStore
from indexing.jobs import KIND_INDEX, KIND_REMOVE, Job
from indexing.walking import absolute
from indexing.workers import WorkerPool
from officeqa.settings import Settings

if TYPE_CHECKING:
    from officeqa.embeddings import Embedder
    from officeqa.generation import OllamaGenerator


class IngestService:
    """Enqueue files, run N background workers in this process, report job states."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        workers: int | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        summarise: bool = False,
        generator: OllamaGenerator | None = None,
        background_embed: bool = False,
    ) -> None:
        """``summarise``: build summary trees of indexed documents in the background (``summary.on_index``),
        with ``generator`` when that setting is ``model``; ``background_embed``: run the background model's
        ``embed`` jobs when idle; see :class:`indexing.workers.WorkerPool`."""
        self.settings = settings
        self.embedder = embedder
        self.workers = workers
        self.on_event = on_event
        self.summarise = summarise
        self.generator = generator
        self.background_embed = background_embed
        self._thread: threading.Thread | None = None
        self._pool: WorkerPool | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def _queue(self) -> AbstractContextManager[JobStore]:
        return job_queue(self.settings)  # a handle of this thread's own, in the configured backend

    # -- queue -----------------------------------------------------------------------------------
    def enqueue(
        self, paths: Sequence[str | Path], force: bool = False, source: str = "api",
        doc_hashes: Sequence[str | None] | None = None,
    ) -> list[int]:
        """Queue files for indexing (e.g. saved uploads); returns their live job ids.

        Files named here are indexed even if they were ``remove``d before (naming a file
        lifts its exclusion). The worker hashes each file, so an unchanged one is skipped.
        ``doc_hashes`` (the sha256 of each file, when the caller has it) is recorded on the
        job, so a listing can name the document before it is indexed.
        """
        keys = [absolute(p) for p in paths]
        hashes = list(doc_hashes) if doc_hashes is not None else [None] * len(keys)
        with self._queue() as jobs, jobs.registry.transaction():
            for key in keys:
                jobs.registry.lift_exclusion(key)
            return [jobs.enqueue_in_tx(key, KIND_INDEX, h, force, source) for key, h in zip(keys, hashes, strict=True)]

    def enqueue_removal(self, paths: Sequence[str | Path], source: str = "api", exclude: bool = False) -> list[int]:
        """Queue removal of documents by path (a deleted upload).

        ``exclude`` also records each path as an exclusion, as ``officeqa remove`` does, so a later
        ``officeqa index`` of its folder does not bring the file back (for files indexed in place).
        """
        keys = [absolute(p) for p in paths]
        with self._queue() as jobs, jobs.registry.transaction():
            if exclude:
                for key in keys:
                    jobs.registry.exclude(key)
            return [jobs.enqueue_in_tx(key, KIND_REMOVE, None, False, source) for key in keys]

    def jobs(
        self, states: Sequence[str] | None = None, paths: Sequence[str | Path] | None = None, limit: int | None = 100
    ) -> list[Job]:
        """Jobs newest first, optionally only some states and/or some paths."""
        with self._queue() as jobs:
            return jobs.find(states=states, paths=[absolute(p) for p in paths] if paths else None, limit=limit)

    def counts(self) -> dict[str, int]:
        """Number of jobs per state."""
        with self._queue() as jobs:
            return jobs.counts()

    def depth(self) -> dict[str, dict[str, int]]:
        """Live jobs (PENDING / RUNNING / RETRY) per kind and state."""
        with self._queue() as jobs:
            return jobs.live_counts()

    # -- background workers --------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the background worker pool (returns once it has opened the stores)."""
        if self.running:
            return
        self._ready.clear()
        self._error = None
        self._thread = threading.Thread(target=self._run, name="officeqa-ingest", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            stores = open_stores(self.settings, self.embedder)
        except BaseException as exc:  # noqa: BLE001 - re-raised by start() on the caller's thread
            self._error = exc
            self._ready.set()
            return
        try:
            self._pool = WorkerPool(stores, workers=self.workers, on_event=self.on_event,
                                    summarise=self.summarise, generator=self.generator,
                                    background_embed=self.background_embed)
            self._ready.set()
            self._pool.run()
        finally:
            stores.close()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop the workers: nothing new is claimed, jobs in flight go back to the queue."""
        if self._pool is not None:
            self._pool.stop()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None
        self._pool = None


__all__ = ["IngestService"]
