"""The job queue contract on both backends (a real SQLite file, a real PostgreSQL): one live job per path,
exclusive claims, retries with backoff, dead workers, re-runs. The rules are written once
(:class:`indexing.jobs.QueueRules`); every case here runs on both backends' rows."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_server import new_schema

from indexing.backends import job_queue
from indexing.contracts import JobStore
from indexing.jobs import (
    DONE,
    FAILED,
    PENDING,
    RETRY,
    RUNNING,
    JobQueue,
    new_worker_id,
    worker_alive,
)
from indexing.postgres.jobs import PostgresJobQueue
from indexing.postgres.registry import PostgresRegistry
from indexing.postgres.stores import open_database
from indexing.registry import Registry
from officeqa.settings import JobsSettings, Settings, StorageSettings


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["embedded", "postgres"])
def backend_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """A knowledge base's settings in each backend (PostgreSQL: a schema of its own on the session's server)."""
    if request.param == "embedded":
        return Settings(data_dir=tmp_path / "data")
    dsn = request.getfixturevalue("postgres_dsn")
    storage = StorageSettings(backend="postgres", postgres_dsn=dsn, postgres_schema=new_schema())
    return Settings(data_dir=tmp_path / "data", storage=storage)


@pytest.fixture
def queue(backend_settings: Settings, clock: Clock) -> Iterator[JobStore]:
    """The backend's queue with a clock the test moves (the backends' factory takes none)."""
    settings = JobsSettings(max_attempts=3, retry_backoff_s=10, retry_backoff_max_s=15, max_interruptions=2)
    if backend_settings.storage.backend == "embedded":
        registry = Registry(Path(backend_settings.data_dir) / "registry.sqlite3")
        yield JobQueue(registry, settings, clock=clock)
        registry.close()
    else:
        yield PostgresJobQueue(PostgresRegistry(open_database(backend_settings)), settings, clock=clock)


def test_one_live_job_per_path(queue: JobStore) -> None:
    first = queue.enqueue("/docs/a.txt", doc_hash="h1")
    assert queue.enqueue("/docs/a.txt", doc_hash="h2", force=True) == first
    job = queue.get(first)
    assert (job.state, job.doc_hash, job.force) == (PENDING, "h2", 1)
    assert queue.enqueue("/docs/b.txt") != first
    assert queue.counts() == {PENDING: 2}


def test_claims_are_exclusive_and_a_running_job_gets_a_rerun(queue: JobStore, clock: Clock) -> None:
    job_id = queue.enqueue("/docs/a.txt")
    job = queue.claim("w1")
    assert job is not None and job.id == job_id and job.state == RUNNING
    assert queue.claim("w2") is None
    assert queue.enqueue("/docs/a.txt", kind="remove") == job_id  # the file went away while it ran
    with queue.registry.transaction():
        assert queue.is_mine_in_tx(job.id, "w1") and not queue.is_mine_in_tx(job.id, "w2")
        queue.done_in_tx(job, "added", 3)
    assert queue.get(job_id).state == DONE
    rerun = queue.live_for("/docs/a.txt")
    assert rerun is not None and rerun.kind == "remove" and rerun.id != job_id


def test_transient_failures_back_off_then_fail(queue: JobStore, clock: Clock) -> None:
    queue.enqueue("/docs/slow.pdf")
    job = queue.claim("w")
    with queue.registry.transaction():
        assert queue.failed_in_tx(job, "timeout", "took too long", transient=True) == RETRY
    assert queue.claim("w") is None  # not due yet
    assert queue.next_due_in() == pytest.approx(10)
    clock.now += 10
    job = queue.claim("w")
    with queue.registry.transaction():
        assert queue.failed_in_tx(job, "timeout", "took too long", transient=True) == RETRY
    assert queue.next_due_in() == pytest.approx(15)  # doubled, capped by retry_backoff_max_s
    clock.now += 15
    job = queue.claim("w")
    with queue.registry.transaction():
        assert queue.failed_in_tx(job, "timeout", "took too long", transient=True) == FAILED
    final = queue.get(job.id)
    assert (final.state, final.attempts, final.error_kind) == (FAILED, 3, "timeout")
    assert "jobs.max_attempts" in final.error_message


def test_permanent_failures_are_not_retried(queue: JobStore) -> None:
    queue.enqueue("/docs/locked.docx")
    job = queue.claim("w")
    with queue.registry.transaction():
        assert queue.failed_in_tx(job, "encrypted", "password protected", transient=False) == FAILED
    assert queue.get(job.id).attempts == 1 and queue.claim("w") is None


def test_jobs_of_dead_workers_are_requeued_not_failed(queue: JobStore, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(done.stdout)  # that process has exited
    dead = new_worker_id().split("|")
    dead[1], dead[2] = str(dead_pid), "1"
    queue.enqueue("/docs/a.txt")
    queue.enqueue("/docs/b.txt")
    orphan = queue.claim("|".join(dead))
    mine = queue.claim(new_worker_id())
    requeued = queue.requeue_dead()
    assert [j.id for j in requeued] == [orphan.id]
    again = queue.get(orphan.id)
    assert (again.state, again.attempts, again.interruptions, again.error_kind) == (RETRY, 0, 1, "interrupted")
    assert queue.get(mine.id).state == RUNNING  # a live worker keeps its job
    # a job whose worker keeps dying fails after jobs.max_interruptions, with the reason
    queue.claim("|".join(dead))
    queue.requeue_dead()
    final = queue.get(orphan.id)
    assert (final.state, final.error_kind) == (FAILED, "interrupted") and "2 times" in final.error_message


def test_worker_identity_tells_live_from_dead() -> None:
    me = new_worker_id()
    assert worker_alive(me, None, 60, 0)
    host, _, start, nonce = me.split("|")
    assert not worker_alive(f"{host}|{os.getpid()}|{int(start or 0) + 1}|{nonce}", None, 60, 0)  # pid reused
    assert worker_alive("elsewhere|1|1|x", heartbeat_at=100.0, lease_s=60, now=130.0)
    assert not worker_alive("elsewhere|1|1|x", heartbeat_at=100.0, lease_s=60, now=200.0)


def test_cancel_and_release(queue: JobStore) -> None:
    queue.enqueue("/docs/a.txt")
    job = queue.claim("w")
    queue.release(job)
    assert queue.get(job.id).state == PENDING and queue.get(job.id).attempts == 0
    job = queue.claim("w")
    with queue.registry.transaction():
        assert queue.cancel_live_in_tx("/docs/a.txt", "removed by the user") == 1
        assert not queue.is_mine_in_tx(job.id, "w")
    cancelled = queue.get(job.id)
    assert (cancelled.state, cancelled.outcome) == (DONE, "cancelled")


def test_concurrent_claims_from_many_connections_never_share_a_job(backend_settings: Settings) -> None:
    """Eight threads, each with a handle (connection) of its own, claim from one queue: no job twice, none left."""
    with job_queue(backend_settings) as setup:
        ids = setup.enqueue_many((f"/docs/{i}.txt", "index", None, False) for i in range(200))
    claimed: list[int] = []
    lock = threading.Lock()

    def worker(name: str) -> None:
        with job_queue(backend_settings) as jobs:
            while (job := jobs.claim(name)) is not None:
                with lock:
                    claimed.append(job.id)

    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(ids) and len(set(claimed)) == len(claimed) == 200


def test_paths_with_undecodable_bytes_are_kept_exactly(queue: JobStore) -> None:
    path = os.fsdecode(b"/docs/caf\xe9.txt")
    job_id = queue.enqueue(path)
    job = queue.get(job_id)
    assert os.fsencode(job.path) == b"/docs/caf\xe9.txt"
    assert job.to_json()["path"] == "/docs/caf\\xe9.txt"
    assert queue.live_for(path).id == job_id and queue.find(paths=[path])[0].id == job_id
