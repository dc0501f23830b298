"""``officeqa summarize PATH... [--out DIR] [--format md|json] [--concurrency N] [--no-model]``.

Builds (or completes, or upgrades) the summary tree of every document named — files or
folders; files not indexed yet, or changed, are indexed first through the knowledge base —
and writes one report per document: Markdown (the outline with summaries and page ranges)
or JSON (``{"document", "nodes": [{"id", "parent", "level", "title", "pages", "summary",
"extractive"}]}``). Progress (documents, nodes, model calls, ETA) goes to stderr, the
failures list at the end; exit 0 only when every document got a tree.

Re-running is cheap: each node is stored under the hash of its inputs as soon as it is
made, so a killed run resumes where it stopped and an unchanged document makes no model
call. With no model reachable the trees are extractive (marked so) and a later run with
a model replaces them.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from officeqa.errors import OfficeQAError
from officeqa.settings import Settings
from server.cli.preflight import ANY

if TYPE_CHECKING:
    from indexing.summary import BuildProgress, BuildReport

EXIT_PRODUCT_ERROR = 4
PROGRESS_INTERVAL_S = 2.0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("summarize", help="Build each document's summary tree and write a report per document.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="Files or folders (indexed first when needed).")
    p.add_argument("--out", default="summaries", metavar="DIR", help="Folder for the reports (default ./summaries).")
    p.add_argument("--format", choices=["md", "json"], default="md", help="Report format (default md).")
    p.add_argument("--concurrency", type=int, default=None, metavar="N",
                   help="Model calls in flight at once (default summary.concurrency, 1).")
    p.add_argument("--no-model", action="store_true", help="Never call the model: extractive trees.")
    p.set_defaults(handler=run, must_exist={"paths": ANY})


@dataclass(slots=True)
class Failure:
    path: str
    reason: str


class Progress:
    """Documents, nodes, model calls and an ETA on stderr: one rewritten line on a terminal, else a line
    every PROGRESS_INTERVAL_S seconds and one per finished document."""

    def __init__(self, documents: int, nodes: int, concurrency: int, stream: TextIO | None = None) -> None:
        self.documents = documents
        self.nodes_total = nodes
        self.concurrency = concurrency
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.document = 0
        self.path = ""
        self.nodes_before = 0  # nodes of documents already finished
        self.calls_before = 0
        self.last: BuildProgress | None = None
        self._printed = 0.0

    def start(self, index: int, path: str) -> None:
        self.document, self.path, self.last = index, path, None

    def __call__(self, event: BuildProgress) -> None:
        self.last = event
        now = time.monotonic()
        if self.tty or now - self._printed >= PROGRESS_INTERVAL_S:
            self._printed = now
            self._write(self.line(), end="\r" if self.tty else "\n")

    def finish(self, report: BuildReport) -> None:
        self.nodes_before += report.nodes
        self.calls_before += report.model_calls
        self.last = None
        self._write(self.line(), end="\n")

    def line(self) -> str:
        done = self.nodes_before + (self.last.nodes_done if self.last else 0)
        calls = self.calls_before + (self.last.model_calls if self.last else 0)
        doc_nodes = f" · nodes {self.last.nodes_done}/{self.last.nodes_total}" if self.last else ""
        return (f"summarize: document {self.document}/{self.documents} {Path(self.path).name}{doc_nodes}"
                f" · all nodes {done}/{self.nodes_total} · model calls {calls} · ETA {self.eta(done)}")

    def eta(self, done: int) -> str:
        """Remaining nodes x mean call time / concurrency: an upper bound (stored nodes cost nothing)."""
        if self.last is None or not self.last.call_seconds:
            return "-" if done < self.nodes_total else "0s"
        seconds = max(0, self.nodes_total - done) * self.last.call_seconds / self.concurrency
        minutes, secs = divmod(int(seconds + 0.5), 60)
        return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"

    def _write(self, text: str, end: str) -> None:
        self.stream.write(("\r\x1b[K" if self.tty else "") + text + end)
        self.stream.flush()


def run(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.preparation import supported_suffixes
    from indexing.registry import DUPLICATE, INDEXED
    from indexing.storage import open_knowledge_base
    from indexing.summary import SummaryBuilder, SummaryStore, document_source, summary_store_path
    from indexing.walking import walk

    if args.concurrency is not None and args.concurrency < 1:
        print("officeqa: error: --concurrency must be at least 1", file=sys.stderr)
        return 2
    concurrency = args.concurrency or settings.summary.concurrency
    out_dir = Path(args.out)
    failures: list[Failure] = []
    written = 0
    with open_knowledge_base(settings) as kb:
        index_report = kb.index_paths(args.paths, progress=sys.stderr.isatty())
        exclusions = kb.registry.exclusions()
        walked = walk(args.paths, supported_suffixes(), excluded=exclusions.__contains__ if exclusions else None)
        files, missing = walked.files, walked.missing
        failures.extend(Failure(path, "not found") for path in missing)
        targets: list[tuple[str, str]] = []
        for path in files:
            record = kb.registry.get(str(path))
            if record is not None and record.status in (INDEXED, DUPLICATE):
                targets.append((record.path, record.doc_id))
            else:
                why = f"{record.error_kind}: {record.error_message}" if record and record.error_kind else "not indexed"
                failures.append(Failure(str(path), f"cannot be indexed: {why}"))
        if index_report.added or index_report.updated:
            print(f"indexed first: {index_report.summary()}", file=sys.stderr)
        sources = []
        for path, doc_id in targets:
            try:
                sources.append(document_source(kb, doc_id, path))
            except OfficeQAError as exc:
                failures.append(Failure(path, str(exc)))
        generator = None if args.no_model else _generator(settings)
        try:
            with SummaryStore(summary_store_path(settings)) as store, SummaryBuilder(
                settings, store, generator, concurrency=concurrency
            ) as builder:
                total_nodes = sum(len(builder.plan(source)) for source in sources)
                progress = Progress(len(sources), total_nodes, concurrency)
                builder.progress = progress
                for index, source in enumerate(sources, start=1):
                    progress.start(index, source.path)
                    try:
                        report = builder.build(source)
                        target = _write_report(report, out_dir, args.format)
                    except (OfficeQAError, OSError) as exc:
                        failures.append(Failure(source.path, f"{type(exc).__name__}: {exc}"))
                        continue
                    progress.finish(report)
                    written += 1
                    print(_report_line(report, target))
                live = [r.doc_id for r in kb.registry.documents(statuses=[INDEXED, DUPLICATE])]
                store.prune(live, settings.summary.cache_days)
        finally:
            if generator is not None:
                generator.close()
    print(f"summarize: {written} of {written + len(failures)} documents have a tree; reports in {out_dir}",
          file=sys.stderr)
    if failures:
        print("failures:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure.path}: {failure.reason}", file=sys.stderr)
    return EXIT_PRODUCT_ERROR if failures else 0


def _generator(settings: Settings):
    """The generator when a model answers now; else None, with one line saying why (trees are extractive)."""
    from officeqa.errors import GenerationError
    from officeqa.generation import OllamaGenerator

    generator = OllamaGenerator(settings.ollama)
    try:
        generator.check_available()
    except GenerationError as exc:
        generator.close()
        print(f"summarize: no model ({exc}); building extractive trees — run again with the model to upgrade them",
              file=sys.stderr)
        return None
    return generator


def _write_report(report: BuildReport, out_dir: Path, fmt: str) -> Path:
    from indexing.summary import tree_to_json, tree_to_markdown

    assert report.tree is not None
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{Path(report.path).stem}-{report.doc_id[:8]}.{fmt}"
    text = tree_to_json(report.tree) if fmt == "json" else tree_to_markdown(report.tree)
    target.write_text(text, encoding="utf-8")
    return target


def _report_line(report: BuildReport, target: Path) -> str:
    extra = f", extractive {report.extractive_nodes}" if report.extractive_nodes else ""
    why = f" ({report.fallback})" if report.fallback else ""
    return (f"{report.path} -> {target} (nodes {report.nodes}, model calls {report.model_calls}, "
            f"stored {report.cached + report.copied}{extra}){why}")
