"""The worker pool: parse in supervised processes, embed across documents, commit each document when done.

Shape of one pool (one OS process, e.g. ``officeqa index``/``worker``/``watch`` or the server):

* N **slots** (``jobs.workers``, default cores - 1, at least 1). A slot is a thread that
  owns one :class:`indexing.parsing.guard.GuardedParser`, i.e. one parse worker process
  with the per-file time limit (``parsing.timeout_s``; a job over it is killed and counted
  as a failed attempt) and whatever resource limits the guard applies. The slot hashes the
  file, skips it when unchanged, parses and chunks it, and hands the result back.
* One **coordinator** (the thread that calls :meth:`WorkerPool.run`) claims jobs (two per
  slot, so a slot parses the next file while the coordinator commits), embeds chunks in
  batches of ``embedding.batch_size`` taken across the documents that are ready (first
  come, first served: no document waits for another one to be parsed), and commits the
  documents whose vectors are done under the knowledge base's write lock
  (:meth:`indexing.stores.Stores.commit`): at once when nothing else is in flight,
  otherwise within ``_COMMIT_DELAY_S`` together with the others finished meanwhile (a
  vector-store write costs ~50 ms whatever its size). All store writes happen in this thread.

Failures: refusals that will not change on a retry (encrypted, corrupt, unsupported,
empty, too large) fail the job at once; a timeout, a parse worker killed by a signal or an
I/O error is retried with exponential backoff (``jobs.retry_backoff_s``) up to
``jobs.max_attempts``. A SIGKILLed pool leaves RUNNING jobs that the next pool to start
requeues (:meth:`indexing.jobs.JobQueue.requeue_dead`); their documents were either
committed (and their jobs DONE, in the same transaction) or not at all.

Summary trees (``summarise`` jobs, ``summary.on_index``): a pool created with
``summarise=True`` (the server, ``officeqa worker``/``watch``) queues a summarise job in the
transaction that commits each added or updated document, and runs those jobs on one more
thread (:class:`indexing.summary.worker.SummaryWorker`) at low priority: the coordinator hands
it a job only when it has no index or remove work, and makes it yield (the job goes back to
the queue, its finished nodes stay stored) as soon as it claims new index work. A pool without
it (``officeqa index`` in the foreground) leaves summarise jobs in the queue for one that has
it. Every pool deletes the trees of the documents it removes or replaces.

Background vectors (``embed`` jobs, ``embedding.background_backend``): a pool created with
``background_embed=True`` (the server, ``officeqa worker``/``watch``) runs them when it has no index
or remove work (:class:`indexing.background_embed.BackgroundEmbedder`: the model on a thread of its
own, every write here), and at start queues them for indexed documents the model has not covered.

Progress: every finished job is reported to ``on_event`` as a dict (``{"event": "job",
"job_id", "path", "state", "outcome", "chunks", ...}``); :class:`ProgressBar` draws files,
chunks, rate and ETA on stderr.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from indexing.backends import open_registry
from indexing.background_embed import BackgroundEmbedder, backfill
from indexing.contracts import DocumentRegistry
from indexing.jobs import DONE, FAILED, KIND_INDEX, KIND_REMOVE, KIND_SUMMARISE, Job, new_worker_id
from indexing.parsing.guard import GuardedParser
from indexing.preparation import prepare, still_valid
from indexing.registry import INDEXED, REMOVED, DocumentRecord
from indexing.stores import PreparedDocument, Stores
from indexing.summary.worker import SummaryWorker, forget_trees
from indexing.walking import NotARegularFile, display_path, file_sha256
from officeqa.errors import ModelUnavailable, OfficeQAError, RefusalKind, UnreadableDocument
from officeqa.settings import Settings

if TYPE_CHECKING:
    from officeqa.generation import OllamaGenerator

log = logging.getLogger(__name__)

_HEARTBEAT_EVERY_S = 30.0
_REQUEUE_EVERY_S = 60.0
_IDLE_POLL_S = 0.5
_MAX_WAITING_CHUNKS = 2048  # parsed chunks waiting for vectors before slots stop taking new files
_PREFETCH = 2  # jobs handed to a slot at once: it parses the next file while the coordinator commits
_COMMIT_GROUP = 32  # documents committed together at most...
_COMMIT_DELAY_S = 1.0  # ...and a finished document waits at most this long for others to join its commit
_CRASH = re.compile(r"worker exit code (-?\d+|None)")
_COORDINATOR_KINDS = (KIND_INDEX, KIND_REMOVE)  # summarise jobs go to the summary thread, when idle

Event = dict[str, Any]


def default_workers(settings: Settings) -> int:
    """``jobs.workers``, or one per CPU core minus one (the coordinator embeds), at least 1."""
    return settings.jobs.workers or max(1, (os.cpu_count() or 2) - 1)


def classify_refusal(exc: UnreadableDocument) -> tuple[str, bool]:
    """(error kind, transient?) of a parse refusal.

    A timeout and a parse worker that died (a signal: the OOM killer, ``kill -9``, a
    segfault in a native library) are retried: the file may be fine. Everything the parser
    refused on its own is permanent.
    """
    if exc.kind is RefusalKind.TIMEOUT:
        return "timeout", True
    if exc.kind is RefusalKind.CORRUPT and (exc.crash or _CRASH.search(exc.message)):
        return "crashed", True
    return exc.kind.value, False


@dataclass(slots=True)
class _Outcome:
    """What a slot made of one job."""

    job: Job
    kind: str  # prepared | unchanged | failed | gone
    prepared: PreparedDocument | None = None
    record: DocumentRecord | None = None
    previous: DocumentRecord | None = None
    error_kind: str = ""
    message: str = ""
    transient: bool = False


class _Slot(threading.Thread):
    """Hash, parse (in its guarded worker process) and chunk one job at a time."""

    def __init__(self, index: int, settings: Settings, outbox: queue.Queue[tuple[_Slot, _Outcome]]) -> None:
        super().__init__(name=f"officeqa-slot-{index}", daemon=True)
        self.settings = settings
        self.outbox = outbox
        self.inbox: queue.Queue[Job | None] = queue.Queue()
        self.parser = GuardedParser(settings.parsing)

    def run(self) -> None:
        registry = open_registry(self.settings)
        try:
            while (job := self.inbox.get()) is not None:
                try:
                    outcome = self._process(job, registry)
                except Exception as exc:  # noqa: BLE001 - a bug on one file must not kill the slot: reported per job
                    outcome = _Outcome(job, "failed", error_kind="error", message=f"{type(exc).__name__}: {exc}")
                self.outbox.put((self, outcome))
        finally:
            self.parser.close()
            registry.close()

    def _process(self, job: Job, registry: DocumentRegistry) -> _Outcome:
        path = job.path
        previous = registry.get(path)
        try:
            digest, st = file_sha256(path)
        except FileNotFoundError:
            return _Outcome(job, "gone", previous=previous)
        except NotARegularFile as exc:
            return self._failed(job, previous, None, "unsupported", str(exc.strerror), False)
        except PermissionError as exc:
            return self._failed(job, previous, None, "unreadable", f"cannot read the file: {exc.strerror}", False)
        except OSError as exc:
            return self._failed(job, previous, None, "io", f"cannot read the file: {exc}", True)
        record = DocumentRecord(
            path=path, doc_id=digest, file_type=Path(path).suffix.lower().lstrip("."), size=st.st_size,
            mtime=st.st_mtime,
        )
        if not job.force and previous is not None and previous.doc_id == digest and still_valid(registry, previous):
            return _Outcome(job, "unchanged", record=record, previous=previous)
        try:
            document = self.parser.parse(path)
        except UnreadableDocument as exc:
            kind, transient = classify_refusal(exc)
            return self._failed(job, previous, record, kind, exc.message, transient)
        except (EOFError, OSError, OfficeQAError) as exc:
            # The parse worker died before it could answer (e.g. killed while starting): not the file's fault.
            return self._failed(job, previous, record, "crashed", f"the parse worker stopped: {exc!r}", True)
        try:
            prepared = prepare(self.settings.chunking, document, record)
        except (RecursionError, MemoryError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            # A chunker bug on one odd file must not stop a batch of thousands: the type and message are kept.
            return self._failed(job, previous, record, "error", f"{type(exc).__name__}: {exc}", False)
        if not prepared.chunks:
            return self._failed(job, previous, record, RefusalKind.EMPTY.value, "no chunks", False)
        return _Outcome(job, "prepared", prepared=prepared, previous=previous)

    @staticmethod
    def _failed(
        job: Job, previous: DocumentRecord | None, record: DocumentRecord | None, kind: str, message: str,
        transient: bool,
    ) -> _Outcome:
        if record is None:
            record = DocumentRecord(path=job.path, doc_id="", file_type=Path(job.path).suffix.lower().lstrip("."))
        return _Outcome(job, "failed", record=record, previous=previous, error_kind=kind, message=message,
                        transient=transient)

    def abort(self) -> None:
        """Stop the parse worker process (pool shutdown while a file is being parsed)."""
        with contextlib.suppress(Exception):
            self.parser.close()


@dataclass(slots=True)
class _Waiting:
    """A parsed and chunked document waiting for its vectors."""

    job: Job
    doc: PreparedDocument
    filled: int = 0
    ready_at: float = 0.0


class WorkerPool:
    """Slots + a coordinator over one knowledge base (see the module docstring)."""

    def __init__(
        self,
        kb: Stores,
        workers: int | None = None,
        on_event: Callable[[Event], None] | None = None,
        summarise: bool = False,
        generator: OllamaGenerator | None = None,
        background_embed: bool = False,
        on_background_stored: Callable[[int], None] | None = None,
    ) -> None:
        """``summarise``: queue and build summary trees (see the module docstring); ``generator`` is used
        for them when ``summary.on_index`` is ``model`` and it answers. ``background_embed``: run the
        background model's ``embed`` jobs when idle (when ``embedding.background_backend`` is on);
        ``on_background_stored`` hears the chunks each stored batch of theirs added."""
        self.kb = kb
        self.size = max(1, workers or default_workers(kb.settings))
        self.on_event = on_event
        self.summarise = summarise and kb.settings.summary.on_index != "off"
        self.generator = generator
        self.background_embed = background_embed
        self.on_background_stored = on_background_stored
        self.worker_id = new_worker_id()
        self._stop = threading.Event()
        self._model_checked = False
        self._ready: list[_Waiting] = []  # embedded, waiting (briefly) to be committed as a group

    def stop(self) -> None:
        """Ask :meth:`run` to return after the current step (jobs not yet committed go back to the queue)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Work until :meth:`stop`, or until ``until()`` is true while nothing is in flight here."""
        kb = self.kb
        kb.jobs.requeue_dead()
        summariser = self._start_summariser()
        background = self._start_background()
        outbox: queue.Queue[tuple[_Slot, _Outcome]] = queue.Queue()
        slots = [_Slot(i, kb.settings, outbox) for i in range(self.size)]
        for slot in slots:
            slot.start()
        assigned: dict[_Slot, list[Job]] = {slot: [] for slot in slots}
        waiting: list[_Waiting] = []
        last_beat = last_requeue = time.monotonic()
        try:
            while not self._stop.is_set():
                claimed = self._fill(assigned, waiting)
                if claimed and summariser is not None and summariser.busy:
                    summariser.preempt.set()  # index work first: the tree resumes from its stored nodes later
                busy = any(assigned.values())
                results = self._collect(outbox, block=busy and not waiting)
                for slot, outcome in results:
                    if outcome.job in assigned[slot]:
                        assigned[slot].remove(outcome.job)
                    self._handle(outcome, waiting)
                if waiting:
                    self._embed_step(waiting)
                self._commit_ready(force=not waiting and not any(assigned.values()) and not outbox.qsize())
                now = time.monotonic()
                holding = (summariser is not None and summariser.busy) or (background is not None and background.active)
                if (busy or holding) and now - last_beat > _HEARTBEAT_EVERY_S:
                    kb.jobs.heartbeat(self.worker_id)
                    last_beat = now
                if now - last_requeue > _REQUEUE_EVERY_S:
                    kb.jobs.requeue_dead()
                    last_requeue = now
                idle = not (busy or waiting or claimed or results or self._ready)
                if background is not None and background.step(idle):
                    continue
                if not idle:
                    continue
                if summariser is not None and not summariser.busy and self._hand_summary(summariser):
                    continue
                if background is not None and background.active:
                    background.wait(_IDLE_POLL_S)  # the model is on a batch: wake when it is done
                    continue
                if until is not None and until():
                    break
                due = None if summariser is not None and summariser.busy else kb.jobs.next_due_in()
                self._stop.wait(_IDLE_POLL_S if due is None else min(max(due, 0.05), _IDLE_POLL_S))
            if self._ready:  # stopped on request: what is embedded is committed, not redone
                self._commit_ready(force=True)
        finally:
            try:
                self._shutdown(slots, assigned, waiting)
            finally:
                if background is not None:
                    background.stop()
                if summariser is not None:
                    summariser.stop()
                    kb.jobs.summarise_indexed = False

    # -- summary trees ------------------------------------------------------------------------------
    def _start_summariser(self) -> SummaryWorker | None:
        if not self.summarise:
            return None
        summariser = SummaryWorker(
            self.kb.settings, self.worker_id, self.generator,
            emit=lambda job, state, outcome, error: self._emit(job, state, outcome, error=error),
        )
        summariser.start()
        self.kb.jobs.summarise_indexed = True  # commits queue a summarise job with the document
        return summariser

    # -- background vectors ---------------------------------------------------------------------------------
    def _start_background(self) -> BackgroundEmbedder | None:
        if not self.background_embed or not self.kb.strong.enabled:
            return None
        queued = backfill(self.kb)
        if queued:
            log.info("queued the background model for %d documents it has not covered", queued)
        return BackgroundEmbedder(
            self.kb, self.worker_id,
            emit=lambda job, state, outcome, chunks, error: self._emit(job, state, outcome, chunks, error),
            on_stored=self.on_background_stored,
        )

    def _hand_summary(self, summariser: SummaryWorker) -> bool:
        """Nothing else to do: give the summary thread the oldest due summarise job, if any."""
        job = self.kb.jobs.claim(self.worker_id, kinds=(KIND_SUMMARISE,))
        if job is None:
            return False
        summariser.hand(job)
        return True

    def _forget_trees(self, doc_ids: Iterable[str], still_used: Callable[[str], bool] | None = None) -> None:
        """Removed or replaced documents lose their summary trees (a failure here only leaves a stale tree)."""
        try:
            forget_trees(self.kb.settings, doc_ids, still_used or self.kb.registry.is_indexed)
        except sqlite3.Error as exc:
            log.warning("could not delete summary trees of %s: %s", ", ".join(doc_ids), exc)

    def _remove(self, job: Job) -> bool:
        """A remove job, or a vanished file: out of every store, its summary tree deleted first (so the tree is
        gone when the job is DONE; a removal that then fails leaves an indexed document whose tree is rebuilt)."""
        record = self.kb.registry.get(job.path)
        if record is not None and record.status != REMOVED:
            registry = self.kb.registry

            def elsewhere(doc_id: str) -> bool:
                return any(r.status == INDEXED and r.path != job.path for r in registry.by_doc_id(doc_id))

            self._forget_trees([record.doc_id], elsewhere)
        return self.kb.remove_path(job.path, job)

    # -- steps ------------------------------------------------------------------------------------
    def _fill(self, assigned: dict[_Slot, list[Job]], waiting: list[_Waiting]) -> bool:
        """Claim due jobs while a slot has room; remove jobs are done right here. True if any was claimed.

        Each slot holds up to ``_PREFETCH`` jobs, so it parses the next file while the
        coordinator embeds and commits (and commits then group the documents that are
        ready together). Nothing is claimed while many parsed chunks already wait for the
        embedder: parsing faster than embedding must not pile documents up in memory.
        """
        claimed = False
        limit = max(_MAX_WAITING_CHUNKS, 4 * self.kb.settings.embedding.batch_size)
        while not self._stop.is_set():
            free = [slot for slot, jobs in assigned.items() if len(jobs) < _PREFETCH]
            if not free or sum(len(w.doc.chunks) - w.filled for w in waiting) >= limit:
                break
            job = self.kb.jobs.claim(self.worker_id, kinds=_COORDINATOR_KINDS)
            if job is None:
                break
            claimed = True
            if job.kind == KIND_REMOVE:
                removed = self._remove(job)
                self._emit(job, DONE, "removed" if removed else "unchanged")
                continue
            if job.kind != KIND_INDEX:
                self.kb.finish_job(job, "skipped", f"{job.kind} jobs are not handled by this version")
                self._emit(job, DONE, "skipped")
                continue
            slot = min(free, key=lambda s: len(assigned[s]))
            assigned[slot].append(job)
            slot.inbox.put(job)
        return claimed

    @staticmethod
    def _collect(outbox: queue.Queue[tuple[_Slot, _Outcome]], block: bool) -> list[tuple[_Slot, _Outcome]]:
        results = []
        try:
            results.append(outbox.get(timeout=0.2) if block else outbox.get_nowait())
            while True:
                results.append(outbox.get_nowait())
        except queue.Empty:
            pass
        return results

    def _handle(self, outcome: _Outcome, waiting: list[_Waiting]) -> None:
        job = outcome.job
        if outcome.kind == "prepared" and outcome.prepared is not None:
            waiting.append(_Waiting(job, outcome.prepared))
        elif outcome.kind == "unchanged":
            self.kb.finish_job(job, "unchanged")
            self._emit(job, DONE, "unchanged")
        elif outcome.kind == "gone":
            removed = self._remove(job)
            if not removed:
                self.kb.finish_job(job, "gone", "the file no longer exists")
            self._emit(job, DONE, "removed" if removed else "gone")
        else:
            assert outcome.record is not None
            state = self.kb.record_failure(
                job, outcome.record, outcome.previous, outcome.error_kind, outcome.message, outcome.transient
            )
            self._emit(job, state, "failed" if state == FAILED else None, error=(outcome.error_kind, outcome.message))

    def _embed_step(self, waiting: list[_Waiting]) -> None:
        """Embed one batch of chunk texts across the waiting documents; commit those that are complete."""
        kb = self.kb
        if not self._model_checked:
            kb.vectors.ensure_model(*kb.model)  # refuse a mixed-model store before embedding anything
            self._model_checked = True
        batch = kb.settings.embedding.batch_size
        spans: list[tuple[_Waiting, int, int]] = []
        texts: list[str] = []
        for item in waiting:
            take = min(len(item.doc.chunks) - item.filled, batch - len(texts))
            if take <= 0:
                continue
            spans.append((item, item.filled, take))
            texts.extend(c.text for c in item.doc.chunks[item.filled : item.filled + take])
            if len(texts) >= batch:
                break
        try:
            matrix = kb.embedder.embed_batch(texts)
        except ModelUnavailable as exc:
            for item, _, _ in spans:
                waiting.remove(item)
                state = kb.record_failure(item.job, item.doc.record, None, "embedding", str(exc), True)
                self._emit(item.job, state, None, error=("embedding", str(exc)))
            return
        row = 0
        for item, start, take in spans:
            if item.doc.vectors is None:
                item.doc.vectors = np.empty((len(item.doc.chunks), matrix.shape[1]), dtype=np.float32)
            item.doc.vectors[start : start + take] = matrix[row : row + take]
            item.filled += take
            row += take
        now = time.monotonic()
        for item in [item for item in waiting if item.filled >= len(item.doc.chunks)]:
            waiting.remove(item)
            item.ready_at = now
            self._ready.append(item)

    def _commit_ready(self, force: bool) -> None:
        """Commit the documents whose vectors are done, as one group.

        Right away when ``force`` (nothing else is in flight) or when the group is big;
        otherwise a ready document waits at most ``_COMMIT_DELAY_S`` for others to join it:
        every commit costs a vector-store write of ~50 ms whatever its size, and a folder of
        small files would spend most of its time on them.
        """
        if not self._ready:
            return
        chunks = sum(len(i.doc.chunks) for i in self._ready)
        oldest = time.monotonic() - self._ready[0].ready_at
        big = len(self._ready) >= _COMMIT_GROUP or chunks >= 4 * self.kb.settings.embedding.batch_size
        if not (force or big or oldest >= _COMMIT_DELAY_S):
            return
        ready, self._ready = self._ready, []
        with self.kb.writing():
            outcomes = self.kb.commit([i.doc for i in ready], [i.job for i in ready], self.worker_id)
        for item, outcome in zip(ready, outcomes, strict=True):
            chunks = len(item.doc.chunks) if outcome in ("added", "updated") else 0
            self._emit(item.job, DONE, outcome, chunks=chunks)
        replaced = [i.doc.replaces for i, o in zip(ready, outcomes, strict=True) if o == "updated" and i.doc.replaces]
        if replaced:
            self._forget_trees(replaced)

    def _emit(
        self, job: Job, state: str, outcome: str | None, chunks: int = 0, error: tuple[str, str] | None = None
    ) -> None:
        if self.on_event is None:
            return
        event: Event = {
            "event": "job",
            "job_id": job.id,
            "path": display_path(job.path),
            "kind": job.kind,
            "state": state,
            "outcome": outcome,
            "chunks": chunks,
            "attempts": job.attempts + (1 if error else 0),
        }
        if error is not None:
            event["error_kind"], event["message"] = error
        self.on_event(event)

    def _shutdown(self, slots: list[_Slot], assigned: dict[_Slot, list[Job]], waiting: list[_Waiting]) -> None:
        """Give back every job not committed (no attempt counted), stop the slots and their parse workers."""
        for slot in slots:  # jobs queued behind the current one are not started
            with contextlib.suppress(queue.Empty):
                while True:
                    slot.inbox.get_nowait()
            slot.inbox.put(None)
        leftovers = [*(j for jobs in assigned.values() for j in jobs), *(w.job for w in [*waiting, *self._ready])]
        self._ready = []
        for job in leftovers:
            with contextlib.suppress(Exception):
                self.kb.jobs.release(job)
        for slot, jobs in assigned.items():
            if jobs:
                slot.abort()
        for slot in slots:
            slot.join(timeout=10)
        with contextlib.suppress(Exception):
            self.kb.save()


class ProgressBar:
    """Files done of a run, with chunks, failures, rate and ETA on stderr: a tqdm bar on a terminal, else (a log
    file, CI, ``nohup``) one plain line every ``LINE_EVERY_S`` seconds, so a long run is never silent."""

    LINE_EVERY_S = 30.0

    def __init__(self, total: int, enabled: bool) -> None:
        from tqdm import tqdm

        self.total = total
        self.started = time.monotonic()
        self.done = 0
        self.chunks = 0
        self.failed = 0
        terminal = sys.stderr.isatty()
        self._lines = enabled and not terminal
        self._last_line = self.started
        self._bar = tqdm(total=total, unit="file", file=sys.stderr, disable=not (enabled and terminal),
                         dynamic_ncols=True)

    def update(self, event: Event) -> None:
        self.done += 1
        self.chunks += int(event.get("chunks") or 0)
        self.failed += event.get("state") == FAILED
        self._bar.update(1)
        self._bar.set_postfix(chunks=self.chunks, failed=self.failed, refresh=False)
        now = time.monotonic()
        if self._lines and (now - self._last_line >= self.LINE_EVERY_S or self.done == self.total):
            self._last_line = now
            rates = self.rates()
            eta = f", about {rates['eta_s']:.0f}s left" if rates["eta_s"] and self.done < self.total else ""
            print(f"progress: {self.done}/{self.total} files, {self.chunks} chunks, {self.failed} failed, "
                  f"{rates['files_per_min']:.1f} files/min{eta}", file=sys.stderr, flush=True)

    def rates(self) -> dict[str, float | None]:
        elapsed = max(1e-6, time.monotonic() - self.started)
        per_s = self.done / elapsed
        eta = (self.total - self.done) / per_s if per_s > 0 else None
        return {
            "elapsed_s": round(elapsed, 2),
            "files_per_min": round(per_s * 60, 2),
            "chunks_per_s": round(self.chunks / elapsed, 2),
            "eta_s": round(eta, 1) if eta is not None else None,
        }

    def close(self) -> None:
        self._bar.close()


__all__ = ["ProgressBar", "WorkerPool", "classify_refusal", "default_workers"]
