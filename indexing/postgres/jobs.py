"""The ingestion job queue in PostgreSQL: the states and methods of :class:`indexing.jobs.JobQueue`,
claimed across processes and machines with ``SELECT ... FOR UPDATE SKIP LOCKED``.

Why SKIP LOCKED: every server process and ``officeqa worker`` on every machine claims from the
same table. A claim locks the oldest due row it can get and skips rows other claimers hold, so
two workers never take the same job and none waits for another's claim. A document's commit
marks its job DONE in the transaction that makes the document visible (the registry tables are
in the same database), exactly as in SQLite.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from indexing.jobs import (
    _JOB_FIELDS,
    DONE,
    FAILED,
    INTERRUPTED,
    KIND_INDEX,
    KIND_SUMMARISE,
    KINDS,
    LIVE,
    PENDING,
    RETRY,
    RUNNING,
    Job,
    in_batches,
    worker_alive,
)
from indexing.postgres.registry import PostgresRegistry, from_pg_path, pg_path
from officeqa.settings import JobsSettings

_COLUMNS = ", ".join(_JOB_FIELDS)


def _job(row: tuple[Any, ...]) -> Job:
    values = dict(zip(_JOB_FIELDS, row, strict=True))
    values["path"] = from_pg_path(values["path"])
    return Job(**values)


class PostgresJobQueue:
    """The ``jobs`` table of one knowledge-base schema; ``*_in_tx`` methods join the caller's transaction."""

    def __init__(
        self, registry: PostgresRegistry, settings: JobsSettings | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.registry = registry
        self.db = registry.db
        self.s = registry.s
        self.path = registry.path
        self.settings = settings or JobsSettings()
        self.clock = clock
        #: As :attr:`indexing.jobs.JobQueue.summarise_indexed`: a summarising pool queues each committed
        #: document's summary tree in the commit's own transaction.
        self.summarise_indexed = False

    def _rows(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return self.db.execute(sql.replace("{s}", self.s), params)

    # -- enqueue ----------------------------------------------------------------------------
    def enqueue(
        self, path: str, kind: str = KIND_INDEX, doc_hash: str | None = None, force: bool = False, source: str = ""
    ) -> int:
        with self.db.transaction():
            return self.enqueue_in_tx(path, kind, doc_hash, force, source)

    def enqueue_many(self, items: Iterable[tuple[str, str, str | None, bool]], source: str = "") -> list[int]:
        return [job_id for batch in in_batches(items) for job_id in self._enqueue_batch(batch, source)]

    def _enqueue_batch(self, batch: Sequence[tuple[str, str, str | None, bool]], source: str) -> list[int]:
        with self.db.transaction():
            return [self.enqueue_in_tx(p, k, h, f, source) for p, k, h, f in batch]

    def enqueue_in_tx(
        self, path: str, kind: str = KIND_INDEX, doc_hash: str | None = None, force: bool = False, source: str = ""
    ) -> int:
        if kind not in KINDS:
            raise ValueError(f"unknown job kind {kind!r}")
        key = pg_path(path)
        while True:
            now = self.clock()
            rows = self._rows(
                f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE path = %s AND state = ANY(%s) FOR UPDATE",
                [key, list(LIVE)],
            )
            if not rows:
                # Another process may insert the path's live job at the same moment: the partial unique
                # index refuses the second one, which then updates the winner's row instead.
                inserted = self._rows(
                    "INSERT INTO {s}.jobs (path, doc_hash, kind, state, force, source, next_attempt_at, created_at, "
                    "updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (path) WHERE state IN ('PENDING', 'RUNNING', 'RETRY') DO NOTHING RETURNING id",
                    [key, doc_hash, kind, PENDING, int(force), source, now, now, now],
                )
                if inserted:
                    return int(inserted[0][0])
                continue
            job = _job(rows[0])
            if job.state == RUNNING:
                self._rows(
                    "UPDATE {s}.jobs SET rerun_kind = %s, force = greatest(force, %s), updated_at = %s WHERE id = %s",
                    [kind, int(force), now, job.id],
                )
                return job.id
            attempts = job.attempts if (doc_hash is None or doc_hash == job.doc_hash) and kind == job.kind else 0
            self._rows(
                "UPDATE {s}.jobs SET kind = %s, doc_hash = coalesce(%s, doc_hash), force = greatest(force, %s), "
                "state = %s, attempts = %s, next_attempt_at = %s, source = %s, updated_at = %s WHERE id = %s",
                [kind, doc_hash, int(force), PENDING, attempts, now, source or job.source, now, job.id],
            )
            return job.id

    # -- claim / heartbeat ----------------------------------------------------------------------
    def claim(self, worker_id: str, kinds: Sequence[str] = KINDS) -> Job | None:
        """Take the oldest due PENDING/RETRY job, skipping rows other workers are claiming right now."""
        now = self.clock()
        rows = self._rows(
            f"UPDATE {{s}}.jobs SET state = %s, worker_id = %s, started_at = %s, heartbeat_at = %s, updated_at = %s "
            "WHERE id = (SELECT id FROM {s}.jobs WHERE state IN ('PENDING', 'RETRY') AND next_attempt_at <= %s "
            "AND kind = ANY(%s) ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
            f"RETURNING {_COLUMNS}",
            [RUNNING, worker_id, now, now, now, now, list(kinds)],
        )
        return _job(rows[0]) if rows else None

    def heartbeat(self, worker_id: str) -> None:
        self._rows(
            "UPDATE {s}.jobs SET heartbeat_at = %s WHERE state = %s AND worker_id = %s",
            [self.clock(), RUNNING, worker_id],
        )

    # -- finishing --------------------------------------------------------------------------------
    def is_mine_in_tx(self, job_id: int, worker_id: str) -> bool:
        rows = self._rows("SELECT state, worker_id FROM {s}.jobs WHERE id = %s FOR UPDATE", [job_id])
        return bool(rows) and rows[0][0] == RUNNING and rows[0][1] == worker_id

    def done_in_tx(self, job: Job, outcome: str, chunks: int = 0, message: str | None = None) -> None:
        now = self.clock()
        self._rows(
            "UPDATE {s}.jobs SET state = %s, outcome = %s, chunks = %s, error_kind = NULL, error_message = %s, "
            "finished_at = %s, updated_at = %s WHERE id = %s",
            [DONE, outcome, chunks, message, now, now, job.id],
        )
        self._rerun_in_tx(job)
        if self.summarise_indexed and job.kind == KIND_INDEX and outcome in ("added", "updated"):
            self._summarise_in_tx(job)

    def failed_in_tx(self, job: Job, kind: str, message: str, transient: bool) -> str:
        now = self.clock()
        attempts = job.attempts + 1
        if transient and attempts < self.settings.max_attempts:
            delay = min(self.settings.retry_backoff_max_s, self.settings.retry_backoff_s * 2 ** (attempts - 1))
            self._rows(
                "UPDATE {s}.jobs SET state = %s, attempts = %s, error_kind = %s, error_message = %s, "
                "next_attempt_at = %s, worker_id = NULL, updated_at = %s WHERE id = %s",
                [RETRY, attempts, kind, message, now + delay, now, job.id],
            )
            return RETRY
        if transient:
            message = f"{message} (gave up after {attempts} attempts: jobs.max_attempts)"
        self._rows(
            "UPDATE {s}.jobs SET state = %s, attempts = %s, error_kind = %s, error_message = %s, outcome = 'failed', "
            "finished_at = %s, updated_at = %s WHERE id = %s",
            [FAILED, attempts, kind, message, now, now, job.id],
        )
        self._rerun_in_tx(job)
        return FAILED

    def _rerun_in_tx(self, job: Job) -> None:
        rows = self._rows("SELECT rerun_kind, force FROM {s}.jobs WHERE id = %s", [job.id])
        if rows and rows[0][0]:
            self._rows("UPDATE {s}.jobs SET rerun_kind = NULL WHERE id = %s", [job.id])
            self.enqueue_in_tx(job.path, rows[0][0], None, bool(rows[0][1]), job.source)

    def _summarise_in_tx(self, job: Job) -> None:
        """Queue the summary tree of the document ``job`` just committed, unless the path has a live job."""
        if self.live_for(job.path) is None:
            self.enqueue_in_tx(job.path, KIND_SUMMARISE, job.doc_hash, False, "indexed")

    def release(self, job: Job) -> None:
        self._rows(
            "UPDATE {s}.jobs SET state = %s, worker_id = NULL, updated_at = %s WHERE id = %s AND state = %s",
            [PENDING, self.clock(), job.id, RUNNING],
        )

    def cancel_live_in_tx(self, path: str, reason: str) -> int:
        now = self.clock()
        rows = self._rows(
            "UPDATE {s}.jobs SET state = %s, outcome = 'cancelled', error_message = %s, rerun_kind = NULL, "
            "finished_at = %s, updated_at = %s WHERE path = %s AND state = ANY(%s) RETURNING id",
            [DONE, reason, now, now, pg_path(path), list(LIVE)],
        )
        return len(rows)

    # -- crash recovery ---------------------------------------------------------------------------
    def requeue_dead(self, is_alive: Callable[[Job], bool] | None = None) -> list[Job]:
        """RUNNING jobs whose worker died go back to the queue (rows another process is updating are skipped)."""
        now = self.clock()
        lease = self.settings.lease_s
        alive = is_alive or (lambda job: worker_alive(job.worker_id, job.heartbeat_at, lease, now))
        requeued: list[Job] = []
        with self.db.transaction():
            rows = self._rows(
                f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE state = %s FOR UPDATE SKIP LOCKED", [RUNNING]
            )
            for job in (_job(r) for r in rows):
                if alive(job):
                    continue
                interruptions = job.interruptions + 1
                message = f"the worker {job.worker_id} stopped while handling this job"
                if interruptions >= self.settings.max_interruptions:
                    self._rows(
                        "UPDATE {s}.jobs SET state = %s, interruptions = %s, error_kind = %s, error_message = %s, "
                        "outcome = 'failed', finished_at = %s, updated_at = %s WHERE id = %s",
                        [FAILED, interruptions, INTERRUPTED, f"{message} {interruptions} times", now, now, job.id],
                    )
                else:
                    self._rows(
                        "UPDATE {s}.jobs SET state = %s, interruptions = %s, error_kind = %s, error_message = %s, "
                        "worker_id = NULL, next_attempt_at = %s, updated_at = %s WHERE id = %s",
                        [RETRY, interruptions, INTERRUPTED, f"{message}; requeued", now, now, job.id],
                    )
                requeued.append(job)
        return requeued

    # -- reads ----------------------------------------------------------------------------------------
    def get(self, job_id: int) -> Job | None:
        rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE id = %s", [job_id])
        return _job(rows[0]) if rows else None

    def get_many(self, job_ids: Iterable[int]) -> list[Job]:
        wanted = sorted(set(job_ids))
        if not wanted:
            return []
        rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE id = ANY(%s) ORDER BY id", [wanted])
        return [_job(r) for r in rows]

    def live_for(self, path: str) -> Job | None:
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE path = %s AND state = ANY(%s)", [pg_path(path), list(LIVE)]
        )
        return _job(rows[0]) if rows else None

    def find(
        self, states: Sequence[str] | None = None, paths: Sequence[str] | None = None, limit: int | None = None
    ) -> list[Job]:
        clauses, params = [], []
        if states:
            clauses.append("state = ANY(%s)")
            params.append(list(states))
        if paths:
            clauses.append("path = ANY(%s)")
            params.append([pg_path(p) for p in paths])
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        tail = f" LIMIT {int(limit)}" if limit else ""
        rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.jobs {where} ORDER BY id DESC{tail}", params)
        return [_job(r) for r in rows]

    def latest(self, kinds: Sequence[str] = KINDS) -> list[Job]:
        """The newest job of each path among jobs of ``kinds``, newest first."""
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE id IN (SELECT max(id) FROM {{s}}.jobs WHERE kind = ANY(%s) "
            "GROUP BY path) ORDER BY id DESC",
            [list(kinds)],
        )
        return [_job(r) for r in rows]

    def live_counts(self) -> dict[str, dict[str, int]]:
        """Live jobs (PENDING / RUNNING / RETRY) per kind and state: the queue's depth."""
        out: dict[str, dict[str, int]] = {}
        rows = self._rows(
            "SELECT kind, state, count(*) FROM {s}.jobs WHERE state = ANY(%s) GROUP BY kind, state", [list(LIVE)]
        )
        for kind, state, count in rows:
            out.setdefault(kind, {})[state] = int(count)
        return out

    def counts(self) -> dict[str, int]:
        return {r[0]: int(r[1]) for r in self._rows("SELECT state, count(*) FROM {s}.jobs GROUP BY state")}

    def next_due_in(self) -> float | None:
        rows = self._rows("SELECT min(next_attempt_at) FROM {s}.jobs WHERE state IN ('PENDING', 'RETRY')")
        if not rows or rows[0][0] is None:
            return None
        return max(0.0, float(rows[0][0]) - self.clock())


__all__ = ["PostgresJobQueue"]
