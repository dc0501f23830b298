"""``officeqa embed [--json] [--no-progress]``: the background model's queued work, done now in the foreground.

Every indexed document queues an ``embed`` job for the stronger background model
(``embedding.background_backend``), which only a background pool runs (the server, ``officeqa worker``/``watch``).
This command runs them here with a progress bar in chunks (a terminal gets a bar, a log file a line every 30 s),
and stops when none is left; ``officeqa index --embed-now`` does the same after indexing. Ctrl-C gives the jobs
back and a killed run is requeued by the next one: either way a rerun goes on from the last stored batch.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from officeqa.settings import Settings
from server.cli.output import print_json_line

if TYPE_CHECKING:
    from indexing.embed_now import EmbedReport
    from indexing.stores import Stores

EXIT_PRODUCT_ERROR = 4
LINE_EVERY_S = 30.0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``officeqa embed`` to the command line."""
    p = subparsers.add_parser(
        "embed", help="Run the background embedding model now over the chunks it has not covered (resumable)."
    )
    p.add_argument("--json", action="store_true", help="Job events as JSON lines, then the report object.")
    p.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")
    p.set_defaults(handler=run_embed, reads_kb=True)


def awaiting_line(kb: Stores) -> str | None:
    """One line for ``index`` and ``status``: how many chunks wait for the background model and what runs them
    (None when none waits or the model is off)."""
    from indexing.embed_now import awaiting
    from officeqa.embeddings.throughput import index_estimate

    waiting = awaiting(kb)
    if not waiting:
        return None
    name, _ = kb.strong.model
    per_10k = index_estimate(name, kb.settings.chunking.target_tokens).seconds_per_10k
    eta = f", about {_duration(per_10k * waiting / 10_000)} on 2 CPU cores" if per_10k else ""
    return (f"{waiting} chunks await the background model {name}: `officeqa embed` embeds them now{eta}; "
            "`officeqa worker` (or the server) does it in the background")


class ChunkProgress:
    """Chunks embedded of those waiting at the start: a tqdm bar on a terminal, else a line every 30 s."""

    def __init__(self, total: int, enabled: bool) -> None:
        from tqdm import tqdm

        self.total = total
        self.done = 0
        self.started = self.last_line = time.monotonic()
        terminal = sys.stderr.isatty()
        self._lines = enabled and not terminal
        self._bar = tqdm(total=total, unit="chunk", file=sys.stderr, disable=not (enabled and terminal),
                         dynamic_ncols=True, desc="background model")

    def stored(self, chunks: int) -> None:
        """Count a stored batch of ``chunks``: the bar moves, or a line is printed when 30 s have passed."""
        self.done += chunks
        self._bar.update(chunks)
        now = time.monotonic()
        if self._lines and now - self.last_line >= LINE_EVERY_S:
            self.last_line = now
            rate = self.done / max(1e-6, now - self.started)
            left = f", about {_duration((self.total - self.done) / rate)} left" if rate > 0 else ""
            print(f"progress: {self.done}/{self.total} chunks, {rate:.1f} chunks/s{left}", file=sys.stderr, flush=True)

    def close(self) -> None:
        """End the bar (its last state stays on the terminal)."""
        self._bar.close()


def embed_in_foreground(kb: Stores, as_json: bool, progress: bool) -> EmbedReport:
    """Run the background model's jobs here (progress on stderr, or job events as JSON lines); the report."""
    from indexing.embed_now import awaiting, embed_now
    from server.cli.jobs_cmd import stop_on_signals

    bar = ChunkProgress(awaiting(kb), enabled=progress and not as_json)

    def event(item: dict[str, Any]) -> None:
        if as_json:
            print_json_line(item)
            sys.stdout.flush()

    try:
        return embed_now(kb, on_event=event, on_stored=bar.stored, stop=stop_on_signals)
    finally:
        bar.close()


def print_embed_report(report: EmbedReport, as_json: bool) -> None:
    """The report on stdout (failures on stderr), and how to go on when chunks still wait."""
    if as_json:
        print_json_line({"event": "embed_report", **report.to_json()})
        return
    for path, message in report.failed:
        print(f"failed: {path}: {message}", file=sys.stderr)
    print(report.summary())
    if report.covered_chunks < report.total_chunks:
        print(f"{report.total_chunks - report.covered_chunks} chunks still await the background model: "
              "`officeqa embed` goes on from the last stored batch")


def run_embed(args: argparse.Namespace, settings: Settings) -> int:
    """``officeqa embed``: exit 4 when a document failed, else 0."""
    from indexing.storage import open_knowledge_base

    with open_knowledge_base(settings) as kb:
        report = embed_in_foreground(kb, args.json, not args.no_progress)
    print_embed_report(report, args.json)
    return EXIT_PRODUCT_ERROR if report.failed else 0


def _duration(seconds: float) -> str:
    """A rough duration for a person: seconds, minutes or hours."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
