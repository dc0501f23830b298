"""The ``embed`` jobs of the queue: an indexed document's chunks embedded again by the stronger background model.

Why in the background: the fast model (USE, ~190 passages/s here) makes a document searchable at once;
the strong one (multilingual-e5-small, ~10 passages/s on two cores) would make indexing 20x slower. So a
document's commit queues an ``embed`` job (:attr:`indexing.jobs.QueueRules.embed_indexed`) and a worker
pool that runs background work (the server, ``officeqa worker``/``watch``) fills the second vector store
(:mod:`indexing.strong`) when it has nothing else to do.

Who does what: the pool's coordinator thread claims the job, reads the chunks not yet covered, and writes
each finished batch (every store write stays in that thread, under the write lock); a thread of its own
runs the model, which releases the GIL, so the coordinator keeps parsing and committing meanwhile. Two
batches are handed over at a time, so the model never waits for a write, and several jobs are held at
once, so a batch of small documents is as full as one of a long document.

Priority: a batch is handed over only while the coordinator has no index or remove work; new index work
pauses the model after the slice of a batch it is on (the jobs stay claimed and resume when the pool is idle).
The model thread also runs 10 nice levels lower (Linux), so a batch in flight when uploads arrive yields the
cores to parsing and the fast model instead of sharing them equally, and before each slice it waits (at most
``_QUESTION_WAIT_S``) while a question is being answered in this process (:mod:`indexing.questions_first`).

Resuming: every batch is stored the moment it is done, and a job embeds only the chunks the store lacks.
A killed pool leaves the job RUNNING; the next pool requeues it (:meth:`indexing.jobs.QueueRules.requeue_dead`)
and it goes on from the first chunk not stored. A stopped pool gives the job back (PENDING) the same way.

Outcomes: ``embedded`` (chunks embedded now), ``covered`` (nothing was missing), ``skipped`` (nothing
indexed at the path any more), ``superseded`` (the file was queued for indexing again: that job runs
next and queues a fresh ``embed``). A model that cannot run fails the attempt, retried with backoff.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from indexing.jobs import DONE, FAILED, KIND_EMBED, RUNNING, Job
from indexing.questions_first import wait_for_quiet
from indexing.registry import INDEXED
from indexing.stores import Stores
from officeqa.embeddings import Embedder
from officeqa.errors import OfficeQAError

log = logging.getLogger(__name__)

#: batches handed to the model thread at once (one embedding while the coordinator stores the other)
_IN_FLIGHT = 2
#: texts the model thread computes between two looks at the pause flag (e5-small on 2 cores: ~1 s)
_SLICE = 8
#: the longest a slice waits for the questions in flight to finish (a steady stream slows the pass, never stops it)
_QUESTION_WAIT_S = 2.0
#: jobs held at once at most (small documents: a batch takes chunks of many)
_MAX_ACTIVE = 64
#: how often (at most) the held jobs' rows are read: cancelled by ``remove``, or a re-index asked
_ROW_CHECK_EVERY_S = 0.5

Emit = Callable[[Job, str, str | None, int, tuple[str, str] | None], None]
_Result = tuple[list[tuple[int, str]], np.ndarray | None, str]  # (job id, chunk id) per row, vectors, error


class _ModelThread(threading.Thread):
    """Runs the background model on the batches it is handed; answers in ``outbox``.

    A batch is computed in slices of ``_SLICE`` texts, and the thread holds still between two slices while
    ``paused`` is set (the pool has index work): uploads that arrive mid-batch wait for one slice at most,
    not for the batches in flight.
    """

    def __init__(self, embedder: Embedder) -> None:
        super().__init__(name="officeqa-embed", daemon=True)
        self.embedder = embedder
        self.inbox: queue.Queue[tuple[list[tuple[int, str]], list[str]] | None] = queue.Queue()
        self.outbox: queue.Queue[_Result] = queue.Queue()
        self.running = threading.Event()  # cleared = paused
        self.running.set()
        self.stopping = threading.Event()

    def run(self) -> None:
        lower_priority()
        while (item := self.inbox.get()) is not None:
            rows, texts = item
            try:
                self.outbox.put((rows, self._embed(texts), ""))
            except (OfficeQAError, OSError, RuntimeError, ValueError, MemoryError) as exc:
                self.outbox.put((rows, None, str(exc) or type(exc).__name__))

    def _embed(self, texts: list[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), _SLICE):
            while not self.running.wait(0.5):
                if self.stopping.is_set():
                    raise RuntimeError("stopped")
            wait_for_quiet(_QUESTION_WAIT_S)  # questions first (indexing/questions_first.py)
            parts.append(self.embedder.embed_batch(texts[start : start + _SLICE]))
        return np.vstack(parts)


def lower_priority(step: int = 10) -> None:
    """Best effort: the calling thread runs ``step`` nice levels lower (Linux keeps niceness per thread, and the
    OpenMP threads a model starts from here inherit it), so parsing and the fast model get the cores first."""
    with contextlib.suppress(AttributeError, OSError):
        current = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, current + step))


@dataclass(slots=True)
class _Active:
    """A claimed job: its chunks not yet handed over, its batches in flight, what was stored."""

    job: Job
    doc_id: str
    pending: list[str]
    texts: dict[str, str]
    in_flight: int = 0
    stored: int = 0
    error: str = ""


class BackgroundEmbedder:
    """Claims, feeds and finishes ``embed`` jobs for one worker pool (see the module docstring).

    Several jobs are held at once (up to ``_MAX_ACTIVE``) so batches are full whatever the documents' sizes:
    a batch takes chunks across documents in claim order, as the coordinator's own embedding does.
    """

    def __init__(
        self, kb: Stores, worker_id: str, emit: Emit | None = None, on_stored: Callable[[int], None] | None = None
    ) -> None:
        """``on_stored`` hears how many chunks each stored batch added (``officeqa embed``'s progress bar:
        a long document's job takes minutes, so counting finished jobs alone would look stuck)."""
        embedder = kb.strong.embedder
        if embedder is None:
            raise ValueError("the background embedding model is off (embedding.background_backend)")
        self.kb = kb
        self.worker_id = worker_id
        self.emit = emit
        self.on_stored = on_stored
        self.batch = kb.settings.embedding.background_batch_size
        self._thread = _ModelThread(embedder)
        self._thread.start()
        self._active: dict[int, _Active] = {}
        self._in_flight = 0
        self._last_check = 0.0

    @property
    def active(self) -> bool:
        """Jobs are claimed (their RUNNING rows need the pool's heartbeat)."""
        return bool(self._active)

    def step(self, idle: bool) -> bool:
        """One turn of the coordinator's loop: store finished batches, follow the job rows, finish complete
        jobs, and, when the pool is ``idle``, claim jobs and hand over batches. True when something was done."""
        if idle:
            self._thread.running.set()
        else:
            self._thread.running.clear()  # index work first: the model stops after the slice it is on
        did = self._collect()
        did = self._follow_rows() or did
        for active in [a for a in self._active.values() if not a.pending and a.in_flight == 0]:
            self._finish(active)
            did = True
        if idle:
            did = self._claim_enough() or did
            while self._in_flight < _IN_FLIGHT and self._hand():
                did = True
        return did

    def wait(self, timeout: float) -> None:
        """Block until a batch is done (or ``timeout``): the idle pool's sleep while the model works."""
        if self._in_flight == 0:
            return
        with contextlib.suppress(queue.Empty):
            self._thread.outbox.put(self._thread.outbox.get(timeout=timeout))

    def stop(self) -> None:
        """Give the jobs back (PENDING; what is stored stays stored) and stop the model thread."""
        held, self._active = list(self._active.values()), {}
        for active in held:
            with contextlib.suppress(Exception):  # not given back: the next pool requeues it as a dead worker's
                self.kb.jobs.release(active.job)
        self._thread.stopping.set()
        self._thread.running.set()
        self._thread.inbox.put(None)

    # -- steps ------------------------------------------------------------------------------------------
    def _claim_enough(self) -> bool:
        """Claim jobs until two batches' worth of chunks wait (or no job is due)."""
        claimed = False
        while len(self._active) < _MAX_ACTIVE and self._waiting() < _IN_FLIGHT * self.batch:
            job = self.kb.jobs.claim(self.worker_id, kinds=(KIND_EMBED,))
            if job is None:
                break
            claimed = True
            self._start(job)
        return claimed

    def _waiting(self) -> int:
        return sum(len(a.pending) for a in self._active.values())

    def _start(self, job: Job) -> None:
        record = self.kb.registry.get(job.path)
        if record is None or record.status != INDEXED:
            self._done(job, "skipped", 0, "nothing indexed at this path (removed, failed or a duplicate)")
            return
        ids = self.kb.registry.chunk_ids(record.doc_id)
        covered = self.kb.strong.covered_ids(ids)
        todo = [cid for cid in ids if cid not in covered]
        texts = self.kb.vectors.texts(todo) if todo else {}
        todo = [cid for cid in todo if cid in texts]
        if not todo:
            self._done(job, "covered", 0, f"{len(ids)} chunks already embedded")
            return
        self._active[job.id] = _Active(job, record.doc_id, todo, texts)

    def _hand(self) -> bool:
        """Hand the model one batch of pending chunks across the held jobs; False when none is pending."""
        rows: list[tuple[int, str]] = []
        for active in self._active.values():
            take = active.pending[: self.batch - len(rows)]
            if not take:
                continue
            del active.pending[: len(take)]
            active.in_flight += 1
            rows.extend((active.job.id, cid) for cid in take)
            if len(rows) >= self.batch:
                break
        if not rows:
            return False
        texts = [self._active[job_id].texts.pop(cid) for job_id, cid in rows]
        self._in_flight += 1
        self._thread.inbox.put((rows, texts))
        return True

    def _collect(self) -> bool:
        did = False
        while True:
            try:
                rows, vectors, error = self._thread.outbox.get_nowait()
            except queue.Empty:
                return did
            did = True
            self._in_flight -= 1
            by_job: dict[int, list[int]] = {}
            for i, (job_id, _cid) in enumerate(rows):
                by_job.setdefault(job_id, []).append(i)
            for job_id, picks in by_job.items():
                active = self._active.get(job_id)
                if active is None:
                    continue  # given up meanwhile (cancelled, superseded)
                active.in_flight -= 1
                if vectors is None:
                    active.error, active.pending = error, []  # hand over nothing more; fail once the rest is back
                elif not active.error:
                    ids = [rows[i][1] for i in picks]
                    stored = self.kb.write_strong(active.doc_id, ids, vectors[picks])
                    active.stored += stored
                    if self.on_stored is not None and stored:
                        self.on_stored(stored)

    def _follow_rows(self) -> bool:
        """Jobs whose row changed under us: cancelled by ``remove`` (dropped), or the file queued again."""
        now = time.monotonic()
        if not self._active or now - self._last_check < _ROW_CHECK_EVERY_S:
            return False
        self._last_check = now
        changed = False
        rows = {j.id: j for j in self.kb.jobs.get_many(self._active)}
        for job_id, active in list(self._active.items()):
            row = rows.get(job_id)
            if row is None or row.state != RUNNING or row.worker_id != self.worker_id:
                del self._active[job_id]
                self._emit(active.job, DONE, "cancelled", active.stored, None)
                changed = True
            elif row.rerun_kind:
                del self._active[job_id]
                self._done(active.job, "superseded", active.stored, "the file was queued for indexing again")
                changed = True
        return changed

    def _finish(self, active: _Active) -> None:
        del self._active[active.job.id]
        if active.error:
            self._fail(active)
            return
        self._done(active.job, "embedded", active.stored, f"{active.stored} chunks by {self.kb.strong.model[0]}")

    # -- job transitions ---------------------------------------------------------------------------------
    def _done(self, job: Job, outcome: str, chunks: int, message: str) -> None:
        with self.kb.registry.transaction():
            if not self.kb.jobs.is_mine_in_tx(job.id, self.worker_id):
                return
            self.kb.jobs.done_in_tx(job, outcome, chunks, message)
        self._emit(job, DONE, outcome, chunks, None)

    def _fail(self, active: _Active) -> None:
        message = f"the background embedding model failed: {active.error}"
        with self.kb.registry.transaction():
            if not self.kb.jobs.is_mine_in_tx(active.job.id, self.worker_id):
                return
            state = self.kb.jobs.failed_in_tx(active.job, "embedding", message, transient=True)
        self._emit(active.job, state, "failed" if state == FAILED else None, active.stored, ("embedding", message))

    def _emit(self, job: Job, state: str, outcome: str | None, chunks: int, error: tuple[str, str] | None) -> None:
        if self.emit is not None:
            self.emit(job, state, outcome, chunks, error)


def backfill(kb: Stores) -> int:
    """Queue ``embed`` jobs for indexed documents the background model has not fully covered and that have no
    live job (documents indexed before the model was turned on, or by a pool that queued none); how many.

    Run once when a pool that runs these jobs starts: it reads the strong store's per-document counts.
    """
    if not kb.strong.enabled:
        return 0
    covered = kb.strong.covered_by_doc()
    counts = kb.registry.chunk_counts()
    wanted = [r for r in kb.registry.documents(statuses=[INDEXED])
              if covered.get(r.doc_id, 0) < counts.get(r.doc_id, 0)]
    queued = 0
    for start in range(0, len(wanted), 500):
        with kb.registry.transaction():
            for record in wanted[start : start + 500]:
                queued += kb.jobs.follow_up_in_tx(record.path, KIND_EMBED, record.doc_id, "backfill")
    return queued


__all__ = ["BackgroundEmbedder", "backfill", "lower_priority"]
