"""The ingestion job queue: one SQLite table, claimed by worker processes, safe under SIGKILL.

Why a table in the registry's database (not a file of its own): a document's commit
marks its job ``DONE`` in the same transaction that makes the document visible, so a
crash can never leave a document committed with its job still RUNNING (which a restart
would redo) or a job DONE whose document is missing. SQLite in WAL mode gives readers
(``officeqa jobs``, the server) a consistent view while workers write.

States and transitions (every transition is one transaction)::

    PENDING --claim--> RUNNING --commit--> DONE
       ^                  |  \\--permanent failure (encrypted, corrupt, empty...)--> FAILED
       |                  |--transient failure (timeout, worker crash)--> RETRY --due--> (claimed again)
       |                  |--attempts used up--> FAILED
       \\--- the worker died (SIGKILL, power loss): requeued by the next worker to start ---/

A claim is one ``UPDATE ... RETURNING`` inside ``BEGIN IMMEDIATE``, so two workers never
get the same job. "One live job per document": a partial unique index allows a single
PENDING/RUNNING/RETRY row per path; enqueueing a path that has one updates it (or, when
it is RUNNING, asks for a re-run once it finishes).

A RUNNING job records its worker as ``host|pid|start time|nonce``; a worker on this host
whose process no longer exists (or is another process with a recycled pid) is dead, and
one on another host is dead once its heartbeat is older than ``jobs.lease_s``.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from indexing.registry import Registry, damage_guard, db_path, from_db_path
from indexing.walking import display_path
from officeqa.settings import JobsSettings

PENDING = "PENDING"
RUNNING = "RUNNING"
DONE = "DONE"
FAILED = "FAILED"
RETRY = "RETRY"
STATES = (PENDING, RUNNING, DONE, FAILED, RETRY)
LIVE = (PENDING, RUNNING, RETRY)

KIND_INDEX = "index"
KIND_REMOVE = "remove"
KIND_SUMMARISE = "summarise"
KIND_EMBED = "embed"  # the background model's vectors of an indexed document (indexing/background_embed.py)
KINDS = (KIND_INDEX, KIND_REMOVE, KIND_SUMMARISE, KIND_EMBED)

INTERRUPTED = "interrupted"


@dataclass(slots=True)
class Job:
    """One row of the ``jobs`` table."""

    id: int
    path: str
    doc_hash: str | None
    kind: str
    state: str
    force: int
    source: str
    attempts: int
    interruptions: int
    next_attempt_at: float
    error_kind: str | None
    error_message: str | None
    outcome: str | None
    chunks: int
    rerun_kind: str | None
    worker_id: str | None
    created_at: float
    updated_at: float
    started_at: float | None
    finished_at: float | None
    heartbeat_at: float | None

    @property
    def live(self) -> bool:
        return self.state in LIVE

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``officeqa jobs --json`` (times as ISO-8601 UTC, the path shown escaped)."""
        out: dict[str, Any] = {
            "id": self.id,
            "path": display_path(self.path),
            "kind": self.kind,
            "state": self.state,
            "attempts": self.attempts,
            "doc_hash": self.doc_hash,
            "outcome": self.outcome,
            "chunks": self.chunks,
            "error_kind": self.error_kind,
            "error_message": self.error_message,
            "worker_id": self.worker_id,
            "source": self.source,
        }
        for name in ("created_at", "updated_at", "started_at", "finished_at", "next_attempt_at"):
            value = getattr(self, name)
            out[name] = _iso(value) if value else None
        return {k: v for k, v in out.items() if v not in (None, "")}


_JOB_FIELDS = [f.name for f in fields(Job)]


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).replace(microsecond=0).isoformat()


def _job(row: sqlite3.Row) -> Job:
    values = dict(row)
    values["path"] = from_db_path(values["path"])
    return Job(**{k: values[k] for k in _JOB_FIELDS})


# -- worker identity -------------------------------------------------------------------------
def _process_start(pid: int) -> str | None:
    """The start time of ``pid`` (clock ticks since boot, from /proc), or None when it does not exist.

    With the pid, this tells a live worker from an unrelated process that reused its pid.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return None
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: split after its closing ')'.
    rest = raw[raw.rfind(b")") + 2 :].split()
    return rest[19].decode() if len(rest) > 19 else ""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def new_worker_id() -> str:
    """``host|pid|start|nonce`` of the calling process (one per worker pool)."""
    pid = os.getpid()
    return f"{socket.gethostname()}|{pid}|{_process_start(pid) or ''}|{uuid.uuid4().hex[:8]}"


def worker_alive(worker_id: str | None, heartbeat_at: float | None, lease_s: float, now: float) -> bool:
    """Is the worker that holds a RUNNING job still there?"""
    if not worker_id:
        return False
    parts = worker_id.split("|")
    if len(parts) < 3 or parts[0] != socket.gethostname():
        return heartbeat_at is not None and now - heartbeat_at < lease_s
    try:
        pid = int(parts[1])
    except ValueError:
        return False
    start = _process_start(pid)
    if start is None:
        return _pid_alive(pid) if not os.path.isdir("/proc") else False
    return not parts[2] or not start or start == parts[2]


T = TypeVar("T")
#: Jobs enqueued per transaction.
ENQUEUE_BATCH = 500


def in_batches(items: Iterable[T], size: int = ENQUEUE_BATCH) -> Iterator[list[T]]:
    """``items`` in lists of ``size``: one enqueue transaction each, so a huge folder never holds one for long."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class _Transactional(Protocol):
    """What the rules need of a registry: its transactions (a backend's queue narrows the type)."""

    def transaction(self) -> AbstractContextManager[Any]: ...


class QueueRules:
    """What a job queue does, written once for both backends: the transitions and their policy.

    Enqueueing in batches, DONE with a re-run or a summary tree queued behind it, a failed attempt
    becoming RETRY with exponential backoff or FAILED, and a dead worker's RUNNING jobs going back
    to the queue (or failing after ``jobs.max_interruptions``). A backend supplies the rows: the
    ``_..._in_tx`` primitives below, each run inside the caller's registry transaction, plus
    ``enqueue_in_tx`` and ``live_for`` (whose SQL differs: a partial unique index on SQLite, an
    ``ON CONFLICT`` retry and row locks on PostgreSQL).
    """

    registry: _Transactional
    settings: JobsSettings
    clock: Callable[[], float]
    #: Queue a ``summarise`` job for a document in the transaction that commits it (added or updated):
    #: set by a worker pool that builds summary trees (``summary.on_index``), so a crash between the
    #: commit and the follow-up cannot lose it.
    summarise_indexed: bool
    #: Queue an ``embed`` job (the background model, ``embedding.background_backend``) for a document once it
    #: is committed, or once its summary tree is built when one is queued first (one live job per path).
    #: Set wherever the background model is on, so documents indexed by ``officeqa index`` in the foreground
    #: are embedded by the next pool that runs these jobs (the server, ``officeqa worker``).
    embed_indexed: bool

    def __init__(self, settings: JobsSettings | None, clock: Callable[[], float]) -> None:
        self.settings = settings or JobsSettings()
        self.clock = clock
        self.summarise_indexed = False
        self.embed_indexed = False

    # -- the backend's rows ----------------------------------------------------------------------------
    def enqueue_in_tx(
        self, path: str, kind: str = KIND_INDEX, doc_hash: str | None = None, force: bool = False, source: str = ""
    ) -> int:
        raise NotImplementedError

    def live_for(self, path: str) -> Job | None:
        raise NotImplementedError

    def _update_in_tx(self, job_id: int, values: dict[str, Any]) -> None:
        """``UPDATE jobs SET <values> WHERE id = job_id``."""
        raise NotImplementedError

    def _take_rerun_in_tx(self, job_id: int) -> tuple[str, bool] | None:
        """The re-run asked while the job ran, (kind, force), cleared from the row; None when none was."""
        raise NotImplementedError

    def _running_in_tx(self) -> list[Job]:
        """Every RUNNING job (locked against other requeuers where the backend can)."""
        raise NotImplementedError

    # -- transitions -------------------------------------------------------------------------------------
    def enqueue(
        self, path: str, kind: str = KIND_INDEX, doc_hash: str | None = None, force: bool = False, source: str = ""
    ) -> int:
        """Queue ``kind`` for ``path`` (one transaction); returns the id of the path's live job."""
        with self.registry.transaction():
            return self.enqueue_in_tx(path, kind, doc_hash, force, source)

    def enqueue_many(self, items: Iterable[tuple[str, str, str | None, bool]], source: str = "") -> list[int]:
        """Queue ``(path, kind, doc_hash, force)`` items, 500 per transaction; returns the live job ids."""
        return [job_id for batch in in_batches(items) for job_id in self._enqueue_batch(batch, source)]

    def _enqueue_batch(self, batch: Sequence[tuple[str, str, str | None, bool]], source: str) -> list[int]:
        with self.registry.transaction():
            return [self.enqueue_in_tx(p, k, h, f, source) for p, k, h, f in batch]

    def done_in_tx(self, job: Job, outcome: str, chunks: int = 0, message: str | None = None) -> None:
        """Mark ``job`` DONE inside the transaction that commits its effect; queue its re-run if one was asked."""
        now = self.clock()
        self._update_in_tx(job.id, {"state": DONE, "outcome": outcome, "chunks": chunks, "error_kind": None,
                                    "error_message": message, "finished_at": now, "updated_at": now})
        self._rerun_in_tx(job)
        if job.kind == KIND_INDEX and outcome in ("added", "updated"):
            if self.summarise_indexed:
                self._summarise_in_tx(job)
            elif self.embed_indexed:
                self.follow_up_in_tx(job.path, KIND_EMBED, job.doc_hash, "indexed")
        elif job.kind == KIND_SUMMARISE and outcome == "summarised" and self.embed_indexed:
            self.follow_up_in_tx(job.path, KIND_EMBED, job.doc_hash, "summarised")

    def failed_in_tx(self, job: Job, kind: str, message: str, transient: bool) -> str:
        """Record a failed attempt: RETRY with backoff while attempts remain (transient only), else FAILED."""
        now = self.clock()
        attempts = job.attempts + 1
        if transient and attempts < self.settings.max_attempts:
            delay = min(self.settings.retry_backoff_max_s, self.settings.retry_backoff_s * 2 ** (attempts - 1))
            self._update_in_tx(job.id, {"state": RETRY, "attempts": attempts, "error_kind": kind,
                                        "error_message": message, "next_attempt_at": now + delay,
                                        "worker_id": None, "updated_at": now})
            return RETRY
        if transient:
            message = f"{message} (gave up after {attempts} attempts: jobs.max_attempts)"
        self._update_in_tx(job.id, {"state": FAILED, "attempts": attempts, "error_kind": kind,
                                    "error_message": message, "outcome": "failed", "finished_at": now,
                                    "updated_at": now})
        self._rerun_in_tx(job)
        return FAILED

    def _rerun_in_tx(self, job: Job) -> None:
        rerun = self._take_rerun_in_tx(job.id)
        if rerun is not None:
            self.enqueue_in_tx(job.path, rerun[0], None, rerun[1], job.source)

    def _summarise_in_tx(self, job: Job) -> None:
        """Queue the summary tree of the document ``job`` just committed, unless the path has a live job
        already (a re-run of the index job: its own commit queues the summary)."""
        if self.live_for(job.path) is None:
            self.enqueue_in_tx(job.path, KIND_SUMMARISE, job.doc_hash, False, "indexed")

    def follow_up_in_tx(self, path: str, kind: str, doc_hash: str | None, source: str) -> bool:
        """Queue a background job for ``path`` unless it has a live job already (which must not be
        overwritten: an index job queued meanwhile runs first, and its commit queues the follow-up again)."""
        if self.live_for(path) is not None:
            return False
        self.enqueue_in_tx(path, kind, doc_hash, False, source)
        return True

    def requeue_dead(self, is_alive: Callable[[Job], bool] | None = None) -> list[Job]:
        """RUNNING jobs whose worker died go back to the queue (or fail after ``max_interruptions``).

        Not counted as a failed attempt of the file: the worker was killed, the file may be fine.
        """
        now = self.clock()
        lease = self.settings.lease_s
        alive = is_alive or (lambda job: worker_alive(job.worker_id, job.heartbeat_at, lease, now))
        requeued: list[Job] = []
        with self.registry.transaction():
            for job in self._running_in_tx():
                if alive(job):
                    continue
                interruptions = job.interruptions + 1
                message = f"the worker {job.worker_id} stopped while handling this job"
                if interruptions >= self.settings.max_interruptions:
                    self._update_in_tx(job.id, {"state": FAILED, "interruptions": interruptions,
                                                "error_kind": INTERRUPTED,
                                                "error_message": f"{message} {interruptions} times",
                                                "outcome": "failed", "finished_at": now, "updated_at": now})
                else:
                    self._update_in_tx(job.id, {"state": RETRY, "interruptions": interruptions,
                                                "error_kind": INTERRUPTED, "error_message": f"{message}; requeued",
                                                "worker_id": None, "next_attempt_at": now, "updated_at": now})
                requeued.append(job)
        return requeued


class JobQueue(QueueRules):
    """The ``jobs`` table of one registry; methods named ``*_in_tx`` run inside the caller's transaction."""

    registry: Registry

    def __init__(
        self, registry: Registry, settings: JobsSettings | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(settings, clock)
        self.registry = registry
        self.path = registry.path  # for damage messages

    @property
    def _conn(self) -> sqlite3.Connection:
        return self.registry.connection

    # -- the rows --------------------------------------------------------------------------------
    @damage_guard
    def enqueue_in_tx(
        self, path: str, kind: str = KIND_INDEX, doc_hash: str | None = None, force: bool = False, source: str = ""
    ) -> int:
        if kind not in KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        now = self.clock()
        key = db_path(path)
        row = self._conn.execute(
            f"SELECT * FROM jobs WHERE path = ? AND state IN ({_marks(LIVE)})", (key, *LIVE)
        ).fetchone()
        if row is None:
            cur = self._conn.execute(
                "INSERT INTO jobs (path, doc_hash, kind, state, force, source, next_attempt_at, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, doc_hash, kind, PENDING, int(force), source, now, now, now),
            )
            return int(cur.lastrowid or 0)
        job = _job(row)
        if job.state == RUNNING:
            # The file changed (or was removed) while a worker handles it: run again once it finishes.
            self._conn.execute(
                "UPDATE jobs SET rerun_kind = ?, force = max(force, ?), updated_at = ? WHERE id = ?",
                (kind, int(force), now, job.id),
            )
            return job.id
        attempts = job.attempts if (doc_hash is None or doc_hash == job.doc_hash) and kind == job.kind else 0
        self._conn.execute(
            "UPDATE jobs SET kind = ?, doc_hash = coalesce(?, doc_hash), force = max(force, ?), state = ?, "
            "attempts = ?, next_attempt_at = ?, source = ?, updated_at = ? WHERE id = ?",
            (kind, doc_hash, int(force), PENDING, attempts, now, source or job.source, now, job.id),
        )
        return job.id

    # -- claim / heartbeat ----------------------------------------------------------------------
    @damage_guard
    def claim(self, worker_id: str, kinds: Sequence[str] = KINDS) -> Job | None:
        """Take the oldest due PENDING/RETRY job for ``worker_id`` (one transaction), or None."""
        now = self.clock()
        with self.registry.transaction():
            row = self._conn.execute(
                "UPDATE jobs SET state = ?, worker_id = ?, started_at = ?, heartbeat_at = ?, updated_at = ? "
                "WHERE id = (SELECT id FROM jobs WHERE state IN (?, ?) AND next_attempt_at <= ? "
                f"AND kind IN ({_marks(kinds)}) ORDER BY next_attempt_at, id LIMIT 1) RETURNING *",
                (RUNNING, worker_id, now, now, now, PENDING, RETRY, now, *kinds),
            ).fetchone()
        return _job(row) if row else None

    @damage_guard
    def heartbeat(self, worker_id: str) -> None:
        now = self.clock()
        with self.registry.transaction():
            self._conn.execute(
                "UPDATE jobs SET heartbeat_at = ? WHERE state = ? AND worker_id = ?", (now, RUNNING, worker_id)
            )

    # -- finishing --------------------------------------------------------------------------------
    def is_mine_in_tx(self, job_id: int, worker_id: str) -> bool:
        """Is ``job_id`` still RUNNING for ``worker_id``? (False once ``remove`` cancelled it or it was requeued.)"""
        row = self._conn.execute("SELECT state, worker_id FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return row is not None and row[0] == RUNNING and row[1] == worker_id

    @damage_guard
    def _update_in_tx(self, job_id: int, values: dict[str, Any]) -> None:
        columns = ", ".join(f"{name} = ?" for name in values)
        self._conn.execute(f"UPDATE jobs SET {columns} WHERE id = ?", (*values.values(), job_id))

    @damage_guard
    def _take_rerun_in_tx(self, job_id: int) -> tuple[str, bool] | None:
        row = self._conn.execute("SELECT rerun_kind, force FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None or not row[0]:
            return None
        self._conn.execute("UPDATE jobs SET rerun_kind = NULL WHERE id = ?", (job_id,))
        return str(row[0]), bool(row[1])

    @damage_guard
    def _running_in_tx(self) -> list[Job]:
        return [_job(r) for r in self._conn.execute("SELECT * FROM jobs WHERE state = ?", (RUNNING,)).fetchall()]

    @damage_guard
    def release(self, job: Job) -> None:
        """Give a claimed job back untouched (the pool is stopping): PENDING again, no attempt counted."""
        with self.registry.transaction():
            self._conn.execute(
                "UPDATE jobs SET state = ?, worker_id = NULL, updated_at = ? WHERE id = ? AND state = ?",
                (PENDING, self.clock(), job.id, RUNNING),
            )

    def cancel_live_in_tx(self, path: str, reason: str) -> int:
        """End the path's live job (``remove`` wins over a queued or running index job)."""
        now = self.clock()
        return self._conn.execute(
            f"UPDATE jobs SET state = ?, outcome = 'cancelled', error_message = ?, rerun_kind = NULL, "
            f"finished_at = ?, updated_at = ? WHERE path = ? AND state IN ({_marks(LIVE)})",
            (DONE, reason, now, now, db_path(path), *LIVE),
        ).rowcount

    # -- reads ----------------------------------------------------------------------------------------
    @damage_guard
    def get(self, job_id: int) -> Job | None:
        row = self._conn.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return _job(row) if row else None

    @damage_guard
    def get_many(self, job_ids: Iterable[int]) -> list[Job]:
        wanted = sorted(set(job_ids))
        out: list[Job] = []
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            rows = self._conn.execute(f"SELECT * FROM jobs WHERE id IN ({_marks(part)})", part).fetchall()
            out.extend(_job(r) for r in rows)
        return out

    @damage_guard
    def live_for(self, path: str) -> Job | None:
        row = self._conn.execute(
            f"SELECT * FROM jobs WHERE path = ? AND state IN ({_marks(LIVE)})", (db_path(path), *LIVE)
        ).fetchone()
        return _job(row) if row else None

    @damage_guard
    def find(
        self, states: Sequence[str] | None = None, paths: Sequence[str] | None = None, limit: int | None = None
    ) -> list[Job]:
        """Jobs newest first, filtered by state and/or path (the latest job of each path comes first)."""
        clauses: list[str] = []
        params: list[Any] = []
        if states:
            clauses.append(f"state IN ({_marks(states)})")
            params.extend(states)
        if paths:
            clauses.append(f"path IN ({_marks(paths)})")
            params.extend(db_path(p) for p in paths)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        tail = f" LIMIT {int(limit)}" if limit else ""
        rows = self._conn.execute(f"SELECT * FROM jobs {where} ORDER BY id DESC{tail}", params).fetchall()
        return [_job(r) for r in rows]

    @damage_guard
    def latest(self, kinds: Sequence[str] = KINDS) -> list[Job]:
        """The newest job of each path among jobs of ``kinds`` (what a documents page shows), newest first."""
        rows = self._conn.execute(
            f"SELECT * FROM jobs WHERE id IN (SELECT max(id) FROM jobs WHERE kind IN ({_marks(kinds)}) "
            "GROUP BY path) ORDER BY id DESC",
            list(kinds),
        ).fetchall()
        return [_job(r) for r in rows]

    @damage_guard
    def live_counts(self) -> dict[str, dict[str, int]]:
        """Live jobs (PENDING / RUNNING / RETRY) per kind and state: the queue's depth."""
        out: dict[str, dict[str, int]] = {}
        rows = self._conn.execute(
            f"SELECT kind, state, count(*) FROM jobs WHERE state IN ({_marks(LIVE)}) GROUP BY kind, state", LIVE
        )
        for kind, state, count in rows:
            out.setdefault(kind, {})[state] = count
        return out

    @damage_guard
    def counts(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self._conn.execute("SELECT state, count(*) FROM jobs GROUP BY state")}

    @damage_guard
    def next_due_in(self) -> float | None:
        """Seconds until the next PENDING/RETRY job is due (0 when one is due now), None when none waits."""
        row = self._conn.execute(
            "SELECT min(next_attempt_at) FROM jobs WHERE state IN (?, ?)", (PENDING, RETRY)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return max(0.0, float(row[0]) - self.clock())


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


__all__ = [
    "DONE",
    "FAILED",
    "KINDS",
    "KIND_EMBED",
    "KIND_INDEX",
    "KIND_REMOVE",
    "KIND_SUMMARISE",
    "LIVE",
    "PENDING",
    "RETRY",
    "RUNNING",
    "STATES",
    "Job",
    "JobQueue",
    "in_batches",
    "new_worker_id",
    "worker_alive",
]
