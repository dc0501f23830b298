"""Job-queue commands: worker, jobs, watch.

    officeqa worker [--workers N] [--exit-when-idle] [--json]
                                      run workers until stopped (Ctrl-C / SIGTERM: jobs in flight go back)
    officeqa jobs [--state S] [--limit N] [--json]
                                      the job queue, newest first
    officeqa watch DIR... [--poll] [--no-workers] [--workers N] [--json]
                                      queue new, changed and deleted files as they happen, and index them

Each handler opens the knowledge base from settings, calls the library and prints.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from indexing.walking import display_path
from officeqa.settings import Settings
from server.cli.output import print_json_line
from server.cli.preflight import ANY

STATES = ("PENDING", "RUNNING", "DONE", "FAILED", "RETRY")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("worker", help="Run ingestion workers until stopped.")
    p.add_argument("--workers", type=int, default=None, help="Parse worker processes (default jobs.workers).")
    p.add_argument("--exit-when-idle", action="store_true", help="Stop once no job is queued or running.")
    p.add_argument("--json", action="store_true", help="One JSON line per finished job.")
    p.set_defaults(handler=run_worker, reads_kb=True)

    p = subparsers.add_parser("jobs", help="List ingestion jobs, newest first.")
    p.add_argument("--state", choices=STATES, action="append", help="Only jobs in this state (repeatable).")
    p.add_argument("--limit", type=int, default=100, help="At most this many jobs (default 100; 0 = all).")
    p.add_argument("--json", action="store_true", help="One JSON object per line.")
    p.set_defaults(handler=run_jobs, reads_kb=True)

    p = subparsers.add_parser("watch", help="Watch folders and index new, changed and deleted files.")
    p.add_argument("folders", nargs="+", help="Folders to watch (recursively).")
    p.add_argument("--poll", action="store_true", help="Poll instead of OS events (network shares; jobs.watch_poll).")
    p.add_argument("--no-workers", action="store_true", help="Only queue jobs (an `officeqa worker` runs them).")
    p.add_argument("--workers", type=int, default=None, help="Parse worker processes (default jobs.workers).")
    p.add_argument("--json", action="store_true", help="One JSON line per event.")
    p.set_defaults(handler=run_watch, must_exist={"folders": ANY})


def _printer(as_json: bool) -> Callable[[dict[str, Any]], None]:
    def show(event: dict[str, Any]) -> None:
        if as_json:
            print_json_line(event)
        elif event.get("event") == "job":
            detail = f"{event.get('chunks', 0)} chunks" if event.get("outcome") in ("added", "updated") else ""
            if event.get("error_kind"):
                detail = f"{event['error_kind']}: {event.get('message', '')}"
            print(f"{event['state']:7} {event.get('outcome') or '-':9} {event['path']}  {detail}".rstrip())
        elif event.get("event") == "queued":
            print(f"queued {event['jobs']} files ({event.get('unchanged', 0)} unchanged)")
        sys.stdout.flush()

    return show


@contextlib.contextmanager
def stop_on_signals(stop: Callable[[], None]) -> Iterator[None]:
    """SIGINT and SIGTERM ask for a clean stop (jobs in flight go back to the queue) instead of a traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda _signum, _frame: stop())
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_worker(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.storage import open_knowledge_base
    from indexing.workers import WorkerPool

    with open_knowledge_base(settings) as kb:
        pool = WorkerPool(kb, workers=args.workers, on_event=_printer(args.json), background_embed=True)

        def idle() -> bool:
            counts = kb.jobs.counts()
            return not any(counts.get(s) for s in ("PENDING", "RUNNING", "RETRY"))

        with stop_on_signals(pool.stop):
            pool.run(until=idle if args.exit_when_idle else None)
    return 0


def run_jobs(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.storage import open_knowledge_base

    with open_knowledge_base(settings) as kb:
        jobs = kb.jobs.find(states=args.state, limit=args.limit or None)
        counts = kb.jobs.counts()
    if args.json:
        for job in jobs:
            print_json_line(job.to_json())
        return 0
    print(", ".join(f"{state} {counts[state]}" for state in STATES if counts.get(state)) or "no jobs")
    for job in jobs:
        error = f"  {job.error_kind}: {job.error_message}" if job.error_kind and job.state != "DONE" else ""
        outcome = job.outcome or ""
        print(f"{job.id:6} {job.state:7} {job.kind:6} {outcome:9} {job.attempts}  {display_path(job.path)}{error}")
    return 0


def run_watch(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.ingest import enqueue_paths
    from indexing.storage import open_knowledge_base
    from indexing.watch import FolderWatcher
    from indexing.workers import WorkerPool

    if args.poll:
        settings = settings.model_copy(update={"jobs": settings.jobs.model_copy(update={"watch_poll": True})})
    show = _printer(args.json)
    with open_knowledge_base(settings) as kb:
        first = enqueue_paths(kb, args.folders, source="watch")
        show({"event": "queued", "jobs": len(first.job_ids), "unchanged": len(first.unchanged)})
        for entry in first.walk.skipped:
            print(f"skipped: {display_path(entry.path)}: {entry.reason}", file=sys.stderr)
        watcher = FolderWatcher(
            settings,
            args.folders,
            on_enqueue=lambda n: show({"event": "queued", "jobs": n}),
            on_message=lambda text: print(f"officeqa watch: {text}", file=sys.stderr),
        )
        thread = threading.Thread(target=watcher.run, name="officeqa-watch", daemon=True)
        thread.start()
        pool = WorkerPool(kb, workers=args.workers, on_event=show, background_embed=True)

        def stop() -> None:
            watcher.stop()
            pool.stop()

        try:
            with stop_on_signals(stop):
                if args.no_workers:
                    watcher.stop_event.wait()
                else:
                    pool.run()
        finally:
            watcher.stop()
            thread.join(timeout=10)
    return 0
