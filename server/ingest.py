"""Uploads are indexed in the background: one ingestion thread, its own knowledge-base handles,
jobs with states the documents page shows.

Why one thread with its own handles: writes to a knowledge base (registry, Chroma, BM25) must
not interleave, and the answer threads must never wait for a slow parse. The thread drains every
queued job of a knowledge base into ONE ``index_paths`` run (one parser process, full embedding
batches), saves the stores, then moves the knowledge base's generation so the answer threads
reopen their handles and see the new documents. Job states: ``queued`` -> ``running`` ->
``done`` | ``failed`` (with the refusal kind and message); the registry keeps the outcome after
a restart, the job list is this process's memory.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from officeqa.errors import OfficeQAError

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase

log = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
_KEEP_FINISHED = 2000


@dataclass(slots=True)
class Job:
    """One queued file (or removal) of one knowledge base."""

    id: int
    kb: str
    kind: str  # "index" | "remove"
    path: str
    doc_id: str = ""
    state: str = QUEUED
    error_kind: str | None = None
    error_message: str | None = None
    outcome: str | None = None  # added, updated, unchanged, duplicate, removed
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)

    @property
    def live(self) -> bool:
        return self.state in (QUEUED, RUNNING)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "state": self.state, "kind": self.kind}
        if self.outcome:
            out["outcome"] = self.outcome
        if self.error_kind:
            out["error"] = {"kind": self.error_kind, "message": self.error_message}
        return out


class IngestWorker:
    """The background ingestion thread of a server (all of its knowledge bases)."""

    def __init__(self, open_kb: Callable[[str], KnowledgeBase], on_written: Callable[[str], None]) -> None:
        self._open_kb = open_kb
        self._on_written = on_written
        self._wake: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._jobs: OrderedDict[int, Job] = OrderedDict()
        self._removals: dict[int, Future[list[str]]] = {}
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="officeqa-ingest", daemon=True)

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 60.0) -> None:
        """Finish the run in progress, then stop (queued jobs stay queued: the files are on disk)."""
        self._stopping.set()
        self._wake.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- the request side --------------------------------------------------------------------------
    def enqueue(self, kb: str, files: list[tuple[Path, str]]) -> list[Job]:
        """Queue ``(path, doc_id)`` files of ``kb`` for indexing; a file already queued keeps its job."""
        out = []
        with self._lock:
            for path, doc_id in files:
                live = next((j for j in self._jobs.values()
                             if j.kb == kb and j.kind == "index" and j.path == str(path) and j.state == QUEUED), None)
                if live is not None:
                    live.doc_id, live.updated_at = doc_id, time.time()
                    out.append(live)
                    continue
                job = Job(next(self._ids), kb, "index", str(path), doc_id)
                self._jobs[job.id] = job
                out.append(job)
            self._trim()
        self._wake.put(kb)
        return out

    def remove(self, kb: str, doc_id: str, uploads: Path) -> Future[list[str]]:
        """Queue the removal of a document; the future gives the paths removed (uploaded copies are deleted)."""
        future: Future[list[str]] = Future()
        with self._lock:
            job = Job(next(self._ids), kb, "remove", str(uploads), doc_id)
            self._jobs[job.id] = job
            self._removals[job.id] = future
        self._wake.put(kb)
        return future

    def jobs(self, kb: str) -> list[Job]:
        """This knowledge base's jobs, newest first (copies: safe to read on the request thread)."""
        with self._lock:
            return [Job(**{f: getattr(j, f) for f in Job.__slots__}) for j in reversed(self._jobs.values())
                    if j.kb == kb]

    def depth(self, kb: str | None = None) -> dict[str, int]:
        """Jobs queued and running (of one knowledge base, or all)."""
        with self._lock:
            states = [j.state for j in self._jobs.values() if kb is None or j.kb == kb]
        return {QUEUED: states.count(QUEUED), RUNNING: states.count(RUNNING)}

    # -- the ingestion thread ----------------------------------------------------------------------
    def _run(self) -> None:
        handles: dict[str, KnowledgeBase] = {}
        try:
            while not self._stopping.is_set():
                self._wake.get()
                while not self._stopping.is_set() and (batch := self._next_batch()):
                    self._process(handles, batch)
        finally:
            for kb in handles.values():
                kb.close()

    def _next_batch(self) -> list[Job]:
        """The queued jobs of the knowledge base with the oldest queued job (removals go alone)."""
        with self._lock:
            first = next((j for j in self._jobs.values() if j.state == QUEUED), None)
            if first is None:
                return []
            if first.kind == "remove":
                batch = [first]
            else:
                batch = [j for j in self._jobs.values() if j.state == QUEUED and j.kb == first.kb
                         and j.kind == "index"]
            for job in batch:
                job.state, job.updated_at = RUNNING, time.time()
            return batch

    def _process(self, handles: dict[str, KnowledgeBase], batch: list[Job]) -> None:
        kb_name = batch[0].kb
        try:
            kb = handles.get(kb_name) or handles.setdefault(kb_name, self._open_kb(kb_name))
            if batch[0].kind == "remove":
                self._remove(kb, batch[0])
            else:
                self._index(kb, batch)
        except Exception as exc:
            log.exception("ingestion run for knowledge base %s failed", kb_name)
            self._finish(batch, FAILED, error=("error", f"{type(exc).__name__}: {exc}"), exc=exc)
        finally:
            self._on_written(kb_name)

    def _index(self, kb: KnowledgeBase, batch: list[Job]) -> None:
        report = kb.index_paths([j.path for j in batch])
        kb.save()
        failures = {f.path: f for f in report.failed}
        outcomes = {**{p: "added" for p in report.added}, **{p: "updated" for p in report.updated},
                    **{p: "unchanged" for p in report.skipped}, **{p: "duplicate" for p in report.duplicates}}
        for job in batch:
            failure = failures.get(job.path)
            if failure is not None:
                self._finish([job], FAILED, error=(failure.kind, failure.message))
            elif job.path in report.not_found:
                self._finish([job], FAILED, error=("not_found", "the uploaded file is gone"))
            else:
                self._finish([job], DONE, outcome=outcomes.get(job.path, "done"))

    def _remove(self, kb: KnowledgeBase, job: Job) -> None:
        try:
            removed = kb.remove(job.doc_id)
        except OfficeQAError as exc:
            self._finish([job], FAILED, error=(type(exc).__name__, str(exc)), exc=exc)
            return
        uploads = Path(job.path).resolve()
        for path in removed:
            stored = Path(path)
            if stored.parent == uploads and stored.is_file():
                stored.unlink()  # an uploaded copy goes with its document; files indexed in place stay
        self._finish([job], DONE, outcome="removed", result=removed)

    def _finish(self, jobs: list[Job], state: str, *, outcome: str | None = None,
                error: tuple[str, str] | None = None, exc: BaseException | None = None,
                result: list[str] | None = None) -> None:
        with self._lock:
            for job in jobs:
                job.state, job.outcome, job.updated_at = state, outcome, time.time()
                if error is not None:
                    job.error_kind, job.error_message = error
                future = self._removals.pop(job.id, None)
                if future is not None:
                    if exc is not None:
                        future.set_exception(exc)
                    else:
                        future.set_result(result or [])

    def _trim(self) -> None:
        finished = [i for i, j in self._jobs.items() if not j.live]
        for job_id in finished[: max(0, len(finished) - _KEEP_FINISHED)]:
            del self._jobs[job_id]


__all__ = ["DONE", "FAILED", "QUEUED", "RUNNING", "IngestWorker", "Job"]
