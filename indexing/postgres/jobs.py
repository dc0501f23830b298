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
    KIND_INDEX,
    KINDS,
    LIVE,
    PENDING,
    RUNNING,
    Job,
    QueueRules,
)
from indexing.postgres.registry import PostgresRegistry, from_pg_path, pg_path
from officeqa.settings import JobsSettings

_COLUMNS = ", ".join(_JOB_FIELDS)


def _job(row: tuple[Any, ...]) -> Job:
    values = dict(zip(_JOB_FIELDS, row, strict=True))
    values["path"] = from_pg_path(values["path"])
    return Job(**values)


class PostgresJobQueue(QueueRules):
    """The ``jobs`` table of one knowledge-base schema; ``*_in_tx`` methods join the caller's transaction."""

    registry: PostgresRegistry

    def __init__(
        self, registry: PostgresRegistry, settings: JobsSettings | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(settings, clock)
        self.registry = registry
        self.db = registry.db
        self.s = registry.s
        self.path = registry.path

    def _rows(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return self.db.execute(sql.replace("{s}", self.s), params)

    # -- the rows --------------------------------------------------------------------------------
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

    def _update_in_tx(self, job_id: int, values: dict[str, Any]) -> None:
        columns = ", ".join(f"{name} = %s" for name in values)
        self._rows(f"UPDATE {{s}}.jobs SET {columns} WHERE id = %s", [*values.values(), job_id])

    def _take_rerun_in_tx(self, job_id: int) -> tuple[str, bool] | None:
        rows = self._rows("SELECT rerun_kind, force FROM {s}.jobs WHERE id = %s", [job_id])
        if not rows or not rows[0][0]:
            return None
        self._rows("UPDATE {s}.jobs SET rerun_kind = NULL WHERE id = %s", [job_id])
        return str(rows[0][0]), bool(rows[0][1])

    def _running_in_tx(self) -> list[Job]:
        """RUNNING rows, skipping those another process is updating (its requeue or commit)."""
        rows = self._rows(f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE state = %s FOR UPDATE SKIP LOCKED", [RUNNING])
        return [_job(r) for r in rows]

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
        clauses: list[str] = []
        params: list[Any] = []
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
