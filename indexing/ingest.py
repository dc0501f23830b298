"""Indexing as jobs: walk and hash what the user named, queue what changed, run workers, report.

Why it is shaped like this:

* ``enqueue_paths`` does the cheap part in the calling process: walk folders (special
  files, loops and unreadable entries reported, never fatal), hash each file and compare
  with the registry. Unchanged files are reported as such without a job, so re-indexing
  an unchanged knowledge base hashes files and nothing more (no parser, no Chroma, no
  embedding model). Files registered under a walked folder that no longer exist get
  ``remove`` jobs; files ``remove``d by the user stay out (exclusions) unless named
  explicitly or ``include_removed`` is set.
* The expensive part (parse, chunk, embed, commit) runs in :class:`indexing.workers.WorkerPool`,
  here in the foreground until this run's jobs are finished, or in ``officeqa worker``,
  ``officeqa watch`` or the server's background workers.
* :func:`index_paths` is the one-call API (enqueue + run + report) that the CLI, tests and
  benchmarks use; :class:`IndexReport` keeps the shape the CLI has always printed.

Before anything is reported unchanged, the stores are checked readable
(:meth:`indexing.stores.Stores.verify_readable`): a damaged BM25 or Chroma file is an error
naming the file, not a silent "unchanged".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexing.jobs import DONE, FAILED, KIND_INDEX, KIND_REMOVE, Job
from indexing.registry import DUPLICATE, INDEXED, REMOVED, DocumentRecord, Registry
from indexing.stores import PreparedDocument, Stores
from indexing.walking import Skipped, WalkResult, absolute, display_path, file_sha256, walk
from officeqa.domain import ParsedDocument
from officeqa.settings import ChunkingSettings

#: failure kinds that a new ``index`` run tries again even when the file is unchanged
TRANSIENT_KINDS = frozenset({"timeout", "crashed", "interrupted", "io"})


@dataclass(slots=True)
class FileFailure:
    path: str
    kind: str
    message: str


@dataclass(slots=True)
class IndexReport:
    """What one index run did."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[FileFailure] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    skipped_entries: list[Skipped] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)  # still waiting (``--no-wait``, or retries pending)
    chunks_added: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "skipped": len(self.skipped),
            "duplicates": len(self.duplicates),
            "removed": [display_path(p) for p in self.removed],
            "failed": [{"path": display_path(f.path), "kind": f.kind, "message": f.message} for f in self.failed],
            "not_found": [display_path(p) for p in self.not_found],
            "skipped_entries": [s.to_json() for s in self.skipped_entries],
            "excluded": len(self.excluded),
            "queued": len(self.queued),
            "chunks_added": self.chunks_added,
            "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        text = (
            f"added {len(self.added)}, updated {len(self.updated)}, unchanged {len(self.skipped)}, "
            f"duplicates {len(self.duplicates)}, removed {len(self.removed)}, failed {len(self.failed)}, "
            f"chunks added {self.chunks_added}, {self.seconds:.1f}s"
        )
        extras = []
        if self.skipped_entries:
            extras.append(f"{len(self.skipped_entries)} entries skipped")
        if self.excluded:
            extras.append(f"{len(self.excluded)} excluded (removed earlier; --include-removed brings them back)")
        if self.queued:
            extras.append(f"{len(self.queued)} queued")
        return text + (f"; {', '.join(extras)}" if extras else "")


@dataclass(slots=True)
class EnqueueResult:
    """What :func:`enqueue_paths` queued (job ids) and settled without a job."""

    job_ids: list[int] = field(default_factory=list)
    walk: WalkResult = field(default_factory=WalkResult)
    unchanged: list[str] = field(default_factory=list)
    failed: list[FileFailure] = field(default_factory=list)


def supported_suffixes() -> frozenset[str]:
    from indexing.parsing import SUPPORTED_SUFFIXES

    return SUPPORTED_SUFFIXES


def prepare(chunking: ChunkingSettings, document: ParsedDocument, record: DocumentRecord) -> PreparedDocument:
    """Chunk a parsed document into a :class:`PreparedDocument` (vectors come later, in batches)."""
    from indexing.chunking import chunk_document
    from indexing.reports import attach_report_facts

    if chunking.report_facts:
        attach_report_facts(document)
    result = chunk_document(document, chunking, doc_id=record.doc_id)
    # Whole-table units of oversize tables are for the table handlers, not retrieval: their
    # rows are also emitted as ordinary table chunks, which are what gets indexed.
    chunks = [c for c in result.chunks if c.text.strip() and c.meta.get("retrievable", True)]
    return PreparedDocument(record=record, chunks=chunks, parsed=document)


def prepare_parsed(
    kb: Stores, document: ParsedDocument, record: DocumentRecord, replaces: str | None = None
) -> PreparedDocument:
    """:func:`prepare` with the knowledge base's chunking settings (the eval writes corpora this way)."""
    prepared = prepare(kb.settings.chunking, document, record)
    prepared.replaces = replaces
    return prepared


def still_valid(registry: Registry, previous: DocumentRecord) -> bool:
    """May an unchanged file be skipped? Not while it waits for indexing, its duplicate owner left,
    or its failure was transient (a timeout or a crashed worker deserves another try)."""
    if previous.status == INDEXED:
        return True
    if previous.status == "failed":
        return (previous.error_kind or "") not in TRANSIENT_KINDS
    if previous.status == DUPLICATE:
        return registry.is_indexed(previous.doc_id)
    return False


def enqueue_paths(
    kb: Stores,
    paths: Sequence[str | Path],
    force: bool = False,
    include_removed: bool = False,
    source: str = "cli",
) -> EnqueueResult:
    """Walk and hash ``paths`` and queue a job for every file that changed (see the module docstring)."""
    kb.verify_readable()
    kb.jobs.requeue_dead()  # a killed run's RUNNING jobs become due again (and are this run's to finish)
    result = EnqueueResult()
    if include_removed:
        with kb.registry.transaction():
            for raw in paths:
                kb.registry.lift_exclusions_under(absolute(raw))
    exclusions = kb.registry.exclusions()
    result.walk = walk(paths, supported_suffixes(), excluded=exclusions.__contains__ if exclusions else None)
    items: list[tuple[str, str, str | None, bool]] = []
    lifted = [p for p in result.walk.files if p in exclusions]
    if lifted:  # a file named explicitly comes back
        with kb.registry.transaction():
            for path in lifted:
                kb.registry.lift_exclusion(path)
    for path in result.walk.files:
        try:
            digest, _st = file_sha256(path)
        except OSError:
            # Unreadable now (permissions, a FIFO that replaced the file): the worker records why.
            items.append((path, KIND_INDEX, None, force))
            continue
        previous = kb.registry.get(path)
        live = kb.jobs.live_for(path)
        if (
            not force
            and live is None
            and previous is not None
            and previous.doc_id == digest
            and still_valid(kb.registry, previous)
        ):
            result.unchanged.append(path)
            continue
        items.append((path, KIND_INDEX, digest, force))
    for folder in result.walk.folders:
        for record in kb.registry.paths_under(folder):
            if record.status != REMOVED and not Path(record.path).exists():
                items.append((record.path, KIND_REMOVE, None, False))
    result.job_ids = kb.jobs.enqueue_many(items, source=source)
    return result


def report_from_jobs(kb: Stores, enqueued: EnqueueResult, started: float) -> IndexReport:
    """The run's report: files settled at enqueue time plus the final state of its jobs."""
    report = IndexReport(
        skipped=list(enqueued.unchanged),
        not_found=list(enqueued.walk.missing),
        skipped_entries=list(enqueued.walk.skipped),
        excluded=list(enqueued.walk.excluded),
        failed=list(enqueued.failed),
    )
    for job in sorted(kb.jobs.get_many(enqueued.job_ids), key=lambda j: j.path):
        _account(report, job)
    report.seconds = time.perf_counter() - started
    return report


def _account(report: IndexReport, job: Job) -> None:
    if job.state == FAILED:
        report.failed.append(FileFailure(job.path, job.error_kind or "error", job.error_message or ""))
    elif job.state != DONE:
        report.queued.append(job.path)
    elif job.outcome == "added":
        report.added.append(job.path)
        report.chunks_added += job.chunks
    elif job.outcome == "updated":
        report.updated.append(job.path)
        report.chunks_added += job.chunks
    elif job.outcome == "duplicate":
        report.duplicates.append(job.path)
    elif job.outcome == "removed":
        report.removed.append(job.path)
    elif job.outcome == "unchanged":
        report.skipped.append(job.path)


def index_paths(
    kb: Stores,
    paths: Sequence[str | Path],
    progress: bool = False,
    force: bool = False,
    include_removed: bool = False,
    wait: bool = True,
    workers: int | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> IndexReport:
    """Index files and folders into ``kb``: enqueue, then (``wait``) run workers until this run's jobs end.

    ``force`` re-indexes unchanged files too; ``progress`` draws a bar on stderr;
    ``on_event`` receives progress events (dicts, see :mod:`indexing.workers`).
    """
    started = time.perf_counter()
    enqueued = enqueue_paths(kb, paths, force=force, include_removed=include_removed)
    if on_event is not None:
        on_event(
            {
                "event": "queued",
                "jobs": len(enqueued.job_ids),
                "unchanged": len(enqueued.unchanged),
                "skipped_entries": [s.to_json() for s in enqueued.walk.skipped],
            }
        )
    if wait and enqueued.job_ids:
        run_jobs(kb, enqueued.job_ids, progress=progress, workers=workers, on_event=on_event)
    kb.save()
    return report_from_jobs(kb, enqueued, started)


def run_jobs(
    kb: Stores,
    job_ids: Sequence[int],
    progress: bool = False,
    workers: int | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Run a foreground worker pool until every job in ``job_ids`` is DONE or FAILED."""
    from indexing.workers import ProgressBar, WorkerPool

    wanted = set(job_ids)
    bar = ProgressBar(total=len(wanted), enabled=progress)
    finished: set[int] = set()

    def event(data: dict[str, Any]) -> None:
        if data.get("event") == "job" and data.get("job_id") in wanted and data.get("state") in (DONE, FAILED):
            finished.add(int(data["job_id"]))
            bar.update(data)
        if on_event is not None:
            on_event({**data, "run_done": len(finished), "run_total": len(wanted), **bar.rates()})

    def all_done() -> bool:
        if len(finished) >= len(wanted):
            return True
        live = [j for j in kb.jobs.get_many(wanted) if j.live]
        return not live

    pool = WorkerPool(kb, workers=workers, on_event=event)
    try:
        pool.run(until=all_done)
    finally:
        bar.close()


__all__ = [
    "EnqueueResult",
    "FileFailure",
    "IndexReport",
    "enqueue_paths",
    "index_paths",
    "prepare",
    "prepare_parsed",
    "report_from_jobs",
    "run_jobs",
    "still_valid",
    "supported_suffixes",
]
