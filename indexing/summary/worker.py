"""The ``summarise`` jobs of the queue: a document's summary tree, built in the background after it is indexed.

Why a thread of its own beside the worker pool's coordinator: a tree takes from a second
(extractive, ~100 pages) to many minutes (a local model writing every node), and the
coordinator must go on parsing, embedding and committing uploads meanwhile. The thread owns
its own registry connection (SQLite connections belong to their thread) and the tree store.

Priority: the coordinator hands this thread a job only when it has no index or remove work
(see :class:`indexing.workers.WorkerPool`), and asks it to *yield* as soon as new index work
is claimed. Yielding costs almost nothing: the builder persists every node the moment it
is made (and waits for a model call in flight, whose summary is stored too), so the job goes
back to the queue untouched (PENDING, no attempt counted) and the next run resumes from the
stored nodes. The same happens on shutdown and, through the queue's crash recovery, after a
kill.

The job names a path; it summarises the document indexed at that path when it runs (a newer
version than the one that queued it, possibly). Outcomes: ``summarised`` (message: nodes,
extractive nodes, model calls), ``skipped`` (nothing indexed there any more: removed, failed,
or a duplicate whose owner has the tree), ``superseded`` (the file was queued for indexing
again while its tree was being built: the index job runs next and queues a fresh summary).
A document with no stored parsed form or no text fails the job (``not_found``), permanently.

Model or not (``summary.on_index``): ``extractive`` never calls a model; ``model`` uses the
generator the pool was given when it answers now, else builds extractively (``officeqa
summarize`` upgrades those nodes later, when a model answers).
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.backends import open_queue
from indexing.contracts import DocumentRegistry, JobStore
from indexing.document_store import DocumentStore
from indexing.jobs import DONE, FAILED, RUNNING, Job
from indexing.registry import DUPLICATE, INDEXED
from indexing.summary.builder import BuildProgress, BuildReport, SummaryBuilder
from indexing.summary.source import document_source
from indexing.summary.store import SummaryStore
from officeqa.errors import DocumentNotFound, GenerationError
from officeqa.settings import Settings

if TYPE_CHECKING:
    from officeqa.generation import OllamaGenerator

log = logging.getLogger(__name__)

#: how often (at most) a running build looks at its job row: cancelled by ``remove``, or a re-index asked
_JOB_CHECK_EVERY_S = 0.5

Event = dict[str, Any]


class _Yield(Exception):
    """Raised from the builder's progress callback to stop a build between two nodes."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why  # stop | preempt | cancelled | superseded


@dataclass(slots=True)
class _Source:
    """What :func:`indexing.summary.source.document_source` reads: settings, registry, stored documents."""

    settings: Settings
    registry: DocumentRegistry
    documents: DocumentStore


def _store_path(settings: Settings) -> Path:
    return Path(settings.data_dir) / settings.summary.store_file


def forget_trees(settings: Settings, doc_ids: Iterable[str], still_used: Callable[[str], bool]) -> list[str]:
    """Delete the trees of ``doc_ids`` for which ``still_used(doc_id)`` is false (removed, or replaced by a
    new version, and indexed by no other path).

    Their node summaries stay in the store (``summary.cache_days``): a document added back, or an edit
    that is reverted, reuses them. Returns the doc ids whose trees were deleted.
    """
    gone = sorted({d for d in doc_ids if d and not still_used(d)})
    path = _store_path(settings)
    if not gone or not path.exists():
        return []
    with SummaryStore(path) as store:
        held = [d for d in gone if store.tree_info(d) is not None]
        for doc_id in held:
            store.delete_tree(doc_id)
    return held


class SummaryWorker(threading.Thread):
    """Builds the trees of the ``summarise`` jobs the coordinator hands it, one at a time."""

    def __init__(
        self,
        settings: Settings,
        worker_id: str,
        generator: OllamaGenerator | None = None,
        emit: Callable[[Job, str, str | None, tuple[str, str] | None], None] | None = None,
    ) -> None:
        super().__init__(name="officeqa-summarise", daemon=True)
        self.settings = settings
        self.worker_id = worker_id
        self.generator = generator if settings.summary.on_index == "model" else None
        self.emit = emit
        self.inbox: queue.Queue[Job | None] = queue.Queue()
        self.preempt = threading.Event()
        self._stopping = threading.Event()
        self._job: Job | None = None
        self._ready = threading.Event()

    # -- the coordinator's side -------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A job is handed over and not finished (the coordinator hands over the next one only then)."""
        return self._job is not None

    def hand(self, job: Job) -> None:
        self._job = job
        self.preempt.clear()
        self.inbox.put(job)

    def stop(self, timeout: float = 120.0) -> None:
        """Stop after the node in progress (the job goes back to the queue); waits for the thread."""
        self._stopping.set()
        self.inbox.put(None)
        if self.is_alive():
            self.join(timeout)
            if self.is_alive():
                log.warning("the summary thread is still waiting for a model call after %.0fs; leaving it", timeout)

    # -- the thread -------------------------------------------------------------------------------
    def run(self) -> None:
        jobs = open_queue(self.settings)  # this thread's own registry handle, in the configured backend
        registry = jobs.registry
        source = _Source(self.settings, registry, DocumentStore(registry))
        store = SummaryStore(_store_path(self.settings))
        try:
            self._prune(registry, store)
            while (job := self.inbox.get()) is not None:
                try:
                    self._run_job(job, jobs, source, store)
                except Exception as exc:  # a bug on one document must not stop the thread: logged, the job fails
                    log.exception("summary tree of %s failed", job.path)
                    try:
                        self._fail(jobs, job, "error", f"{type(exc).__name__}: {exc}")
                    except sqlite3.Error:
                        log.exception("could not record the failed summary job %d", job.id)
                finally:
                    self._job = None
        finally:
            store.close()
            registry.close()

    def _prune(self, registry: DocumentRegistry, store: SummaryStore) -> None:
        """Trees of documents removed while no summarising pool ran (``officeqa remove``) go at start-up."""
        live = {r.doc_id for r in registry.documents(statuses=[INDEXED, DUPLICATE])}
        trees, _ = store.prune(live, self.settings.summary.cache_days)
        if trees:
            log.info("summary trees of %d removed documents deleted", trees)

    def _run_job(self, job: Job, jobs: JobStore, source: _Source, store: SummaryStore) -> None:
        record = source.registry.get(job.path)
        if record is None or record.status != INDEXED:
            self._done(jobs, job, "skipped", "nothing indexed at this path (removed, failed or a duplicate)")
            return
        try:
            document = document_source(source, record.doc_id, record.path)
        except DocumentNotFound as exc:
            self._fail(jobs, job, "not_found", str(exc))
            return
        last_check = [time.monotonic()]

        def checkpoint(_progress: BuildProgress) -> None:
            if self._stopping.is_set():
                raise _Yield("stop")
            if self.preempt.is_set():
                raise _Yield("preempt")
            now = time.monotonic()
            if now - last_check[0] < _JOB_CHECK_EVERY_S:
                return
            last_check[0] = now
            row = jobs.get(job.id)
            if row is None or row.state != RUNNING or row.worker_id != self.worker_id:
                raise _Yield("cancelled")
            if row.rerun_kind:
                raise _Yield("superseded")

        try:
            with SummaryBuilder(self.settings, store, self._model(), progress=checkpoint) as builder:
                report = builder.build(document)
        except _Yield as stopped:
            self._yielded(jobs, job, stopped.why)
            return
        replaced = [t.doc_id for t in store.trees() if t.path == record.path and t.doc_id != record.doc_id]
        forget_trees(self.settings, replaced, source.registry.is_indexed)
        if not source.registry.is_indexed(record.doc_id):
            # removed while its tree was built (``officeqa remove``): the tree stored just now goes too
            forget_trees(self.settings, [record.doc_id], source.registry.is_indexed)
        self._done(jobs, job, "summarised", _describe(report))

    def _model(self) -> OllamaGenerator | None:
        """The generator when ``summary.on_index`` is ``model`` and it answers now; else None (extractive)."""
        if self.generator is None:
            return None
        try:
            self.generator.check_available()
        except GenerationError as exc:
            log.info("summary tree: no model (%s); building it extractively", exc)
            return None
        return self.generator

    # -- job transitions (this thread's own registry connection) ------------------------------------
    def _yielded(self, jobs: JobStore, job: Job, why: str) -> None:
        if why in ("stop", "preempt"):
            jobs.release(job)  # PENDING again, no attempt counted: the stored nodes make the next run short
        elif why == "superseded":
            self._done(jobs, job, "superseded", "the file was queued for indexing again")
        # cancelled: ``remove`` ended the job already

    def _done(self, jobs: JobStore, job: Job, outcome: str, message: str) -> None:
        with jobs.registry.transaction():
            if not jobs.is_mine_in_tx(job.id, self.worker_id):
                return
            jobs.done_in_tx(job, outcome, 0, message)
        self._emit(job, DONE, outcome, None)

    def _fail(self, jobs: JobStore, job: Job, kind: str, message: str) -> None:
        with jobs.registry.transaction():
            if not jobs.is_mine_in_tx(job.id, self.worker_id):
                return
            jobs.failed_in_tx(job, kind, message, transient=False)
        self._emit(job, FAILED, "failed", (kind, message))

    def _emit(self, job: Job, state: str, outcome: str | None, error: tuple[str, str] | None) -> None:
        if self.emit is not None:
            self.emit(job, state, outcome, error)


def _describe(report: BuildReport) -> str:
    extractive = f" ({report.extractive_nodes} extractive)" if report.extractive_nodes else ""
    return f"{report.nodes} nodes{extractive}, {report.model_calls} model calls"


__all__ = ["SummaryWorker", "forget_trees"]
