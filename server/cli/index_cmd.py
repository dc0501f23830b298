"""Knowledge-base commands: index, reindex, remove, status, check, search.

    officeqa index PATH... [--no-wait] [--include-removed] [--workers N] [--embed-now] [--json]
                                      queue files/folders (recursive) and run workers until they are done;
                                      unchanged files are skipped; --json prints progress events as JSON lines,
                                      then the report; the last line says how many chunks await the
                                      background model (--embed-now: embed them here, as `officeqa embed`)
    officeqa reindex [--stale]        index registered files again (all: stores emptied first; --stale: only
                                      those whose chunking/embedding settings changed); rebuilds a lost registry
    officeqa remove PATH|ID           delete a document from every store (it stays out of its folder's next index)
    officeqa status [--json]          documents, their states, stale documents, the job queue
    officeqa check [--json] [--repair]
                                      do registry, Chroma, BM25 (and sinks) agree? (exit 4 when not);
                                      --repair brings them back in line from the registry
    officeqa search "QUERY" [--mode bm25|dense|hybrid] [-k 10] [--filter field=value] [--json]

Each handler opens the knowledge base from settings, calls one library function and prints.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from indexing.walking import display_path
from officeqa.settings import Settings
from server.cli.output import print_json_line
from server.cli.preflight import ANY

EXIT_PRODUCT_ERROR = 4


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("index", help="Index files and folders into the knowledge base (through the job queue).")
    p.add_argument("paths", nargs="+", help="Files or folders (walked recursively).")
    p.add_argument("--force", action="store_true", help="Re-index unchanged files too.")
    p.add_argument("--include-removed", action="store_true", help="Bring back files `remove`d from these folders.")
    p.add_argument("--embed-now", action="store_true",
                   help="Then run the background embedding model here until it covers every chunk (`officeqa embed`).")
    _add_run_options(p)
    p.set_defaults(handler=run_index, must_exist={"paths": ANY})

    p = subparsers.add_parser("reindex", help="Index every registered file again (after a settings or model change).")
    p.add_argument("--stale", action="store_true", help="Only documents indexed with other chunking/embedding settings")
    _add_run_options(p)
    p.set_defaults(handler=run_reindex, reads_kb=True)

    p = subparsers.add_parser("remove", help="Remove a document (path or doc id) from every store.")
    p.add_argument("target", help="The file path, or the document id (8+ leading characters are enough).")
    p.set_defaults(handler=run_remove, reads_kb=True)

    p = subparsers.add_parser("status", help="List documents, their states, stale documents and the job queue.")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.set_defaults(handler=run_status, reads_kb=True)

    p = subparsers.add_parser("check", help="Verify that the registry, Chroma and BM25 agree.")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.add_argument("--repair", action="store_true", help="Bring the stores back in line from the registry.")
    p.add_argument("--no-progress", action="store_true", help="No progress bar while requeued files are indexed.")
    p.set_defaults(handler=run_check, reads_kb=True)

    p = subparsers.add_parser("search", help="Search the knowledge base.")
    p.add_argument("query", help="The question or keywords.")
    p.add_argument("--mode", choices=["bm25", "dense", "hybrid"], default="hybrid", help="Retriever (default hybrid).")
    p.add_argument("-k", type=int, default=None, help="Number of results (default retrieval.top_k).")
    p.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="Metadata filter: field=value, field=a,b (any of) or field!=value; "
        "fields: doc_id, path, file_type, sheet, page, kind. Repeat to combine.",
    )
    p.add_argument("--json", action="store_true", help="JSON lines: one hit per line.")
    p.set_defaults(handler=run_search, reads_kb=True)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="Progress events as JSON lines, then the report object.")
    p.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")
    p.add_argument("--no-wait", action="store_true", help="Only queue the jobs (run `officeqa worker` for them).")
    p.add_argument("--workers", type=int, default=None, help="Parse worker processes (default jobs.workers).")


def _open(settings: Settings):
    from indexing.storage import open_knowledge_base

    return open_knowledge_base(settings)


def _events(as_json: bool):
    if not as_json:
        return None

    def emit(event: dict[str, Any]) -> None:
        print_json_line(event)
        sys.stdout.flush()

    return emit


def _progress(args: argparse.Namespace) -> bool:
    # a terminal gets a bar, a log file a line every 30 s (ProgressBar); --json and --no-progress get neither
    return not args.no_progress and not getattr(args, "json", False)


def _print_report(report, as_json: bool) -> None:
    if as_json:
        print_json_line({"event": "report", **report.to_json()})
        return
    for failure in report.failed:
        print(f"failed: {display_path(failure.path)}: {failure.kind}: {failure.message}", file=sys.stderr)
    for entry in report.skipped_entries:
        print(f"skipped: {display_path(entry.path)}: {entry.reason}", file=sys.stderr)
    for missing in report.not_found:
        print(f"officeqa: error: not found: {display_path(missing)}", file=sys.stderr)
    for path in report.removed:
        print(f"removed (file gone): {display_path(path)}")
    print(report.summary())


def run_index(args: argparse.Namespace, settings: Settings) -> int:
    from server.cli.embed_cmd import awaiting_line, embed_in_foreground, print_embed_report

    if args.embed_now and args.no_wait:
        print("officeqa: error: --embed-now runs the jobs here: it cannot go with --no-wait", file=sys.stderr)
        return 2
    if not args.no_progress and sys.stderr.isatty():
        print(_estimate(settings, None).describe(), file=sys.stderr)
    embedded, waiting = None, None
    with _open(settings) as kb:
        report = kb.index_paths(
            args.paths,
            progress=_progress(args),
            force=args.force,
            include_removed=args.include_removed,
            wait=not args.no_wait,
            workers=args.workers,
            on_event=_events(args.json),
        )
        stale = len(kb.stale_documents()) if not args.json else 0
        if args.embed_now and kb.strong.enabled:
            _print_report(report, args.json)
            embedded = embed_in_foreground(kb, args.json, _progress(args))
        elif not args.json and not args.no_wait:
            waiting = awaiting_line(kb)
    if embedded is None:
        _print_report(report, args.json)
    if stale:
        print(f"{stale} documents were indexed with other settings: `officeqa reindex --stale` updates them")
    if embedded is not None:
        print_embed_report(embedded, args.json)
    if waiting:
        print(waiting)
    return EXIT_PRODUCT_ERROR if report.not_found and not (report.added or report.updated or report.skipped) else 0


def run_reindex(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.repair import recover_registry, registry_damage

    damage = registry_damage(settings)
    if damage is not None:
        moved, paths = recover_registry(settings)
        print(f"{damage.file} was damaged ({damage.reason}); moved to {moved}; {len(paths)} files queued",
              file=sys.stderr)
    with _open(settings) as kb:
        if damage is not None:
            report = _run_queued(kb, args)
        else:
            report = kb.reindex(
                progress=_progress(args), stale_only=args.stale, wait=not args.no_wait, workers=args.workers,
                on_event=_events(args.json),
            )
    _print_report(report, args.json)
    return 0


def _run_queued(kb, args: argparse.Namespace):
    """Run workers over every live job (after a registry rebuild); the report of those jobs."""
    import time

    from indexing.ingest import EnqueueResult, report_from_jobs, run_jobs

    started = time.perf_counter()
    live = [j.id for j in kb.jobs.find(states=["PENDING", "RETRY", "RUNNING"])]
    if not getattr(args, "no_wait", False) and live:
        run_jobs(kb, live, progress=_progress(args), workers=getattr(args, "workers", None),
                 on_event=_events(getattr(args, "json", False)))
    return report_from_jobs(kb, EnqueueResult(job_ids=live), started)


def run_remove(args: argparse.Namespace, settings: Settings) -> int:
    with _open(settings) as kb:
        removed = kb.remove(args.target)
    for path in removed:
        print(f"removed: {display_path(path)}")
    return 0


def _estimate(settings: Settings, recorded_model: str | None):
    """Indexing-time estimate for the embedder that fills (or will fill) this knowledge base."""
    from officeqa.embeddings.throughput import index_estimate, model_name_for

    model = recorded_model or model_name_for(settings.embedding)
    return index_estimate(model, settings.chunking.target_tokens)


def run_status(args: argparse.Namespace, settings: Settings) -> int:
    with _open(settings) as kb:
        status = kb.status()
    estimate = _estimate(settings, status.embedding_model)
    if args.json:
        print_json_line({**status.to_json(), "index_estimate": estimate.to_json()})
        return 0
    print(f"knowledge base {status.data_dir}: {status.chunks} chunks, embedder {status.embedding_model or '-'}")
    print(estimate.describe())
    background = status.background
    if background.get("model"):
        print(f"background embedder {background['model']}: {background['covered_chunks']}/"
              f"{background['total_chunks']} chunks covered ({100 * float(background['share']):.0f}%)")
    print(", ".join(f"{name} {count}" for name, count in sorted(status.counts.items())) or "no documents")
    if background.get("model") and background["covered_chunks"] != background["total_chunks"]:
        waiting = int(background["total_chunks"]) - int(background["covered_chunks"])
        print(f"{waiting} chunks await the background model: `officeqa embed` embeds them now, "
              "`officeqa worker` (or the server) in the background")
    if status.jobs:
        print("jobs: " + ", ".join(f"{state} {n}" for state, n in sorted(status.jobs.items())))
    for doc in status.documents:
        extra = f"  {doc.error_kind}: {doc.error_message}" if doc.error_kind else ""
        if doc.status == "duplicate" and doc.error_message:
            extra = f"  ({doc.error_message})"
        print(f"{doc.status:9} {doc.chunk_count:6} {doc.doc_id[:12]}  {display_path(doc.path)}{extra}")
    if status.stale:
        print(f"stale ({len(status.stale)}; `officeqa reindex --stale` updates them):")
        for record, changes in status.stale:
            print(f"  {display_path(record.path)}: {'; '.join(changes)}")
    return 0


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    if args.repair:
        from indexing.repair import recover_registry, registry_damage

        damage = registry_damage(settings)
        if damage is not None:
            moved, paths = recover_registry(settings)
            print(f"{damage.file} was damaged ({damage.reason}); moved to {moved}; {len(paths)} files queued",
                  file=sys.stderr)
    with _open(settings) as kb:
        if args.repair:
            repaired = kb.repair()
            for action in repaired.actions:
                print(f"repair: {action}", file=sys.stderr)
            if kb.jobs.next_due_in() is not None:
                _run_queued(kb, args)
        report = kb.check()
    if args.json:
        print_json_line(report.to_json())
    else:
        print(
            f"registry {report.registry_chunks} chunks, chroma {report.chroma_chunks}, bm25 {report.bm25_chunks}: "
            + ("consistent" if report.clean else "DIFFERENCES")
        )
        for label, items in (
            ("damaged", report.damaged),
            ("interrupted write (run `officeqa check --repair`)", report.interrupted),
            ("missing in chroma", report.missing_in_chroma),
            ("missing in bm25", report.missing_in_bm25),
            ("orphan in chroma", report.orphans_in_chroma),
            ("orphan in bm25", report.orphans_in_bm25),
            ("count mismatch", report.count_mismatches),
            ("file gone (run index on its folder or remove it)", [display_path(p) for p in report.missing_files]),
        ):
            for item in items:
                print(f"{label}: {item}")
        for name, diff in report.sinks.items():
            for item in diff["missing"]:
                print(f"missing in {name}: {item}")
            for item in diff["orphans"]:
                print(f"orphan in {name}: {item}")
        if report.model_problem:
            print(f"model: {report.model_problem}")
        if not report.clean and not args.repair:
            print("`officeqa check --repair` brings the stores back in line from the registry")
    return 0 if report.clean else EXIT_PRODUCT_ERROR


def run_search(args: argparse.Namespace, settings: Settings) -> int:
    from retrieval.filters import parse_cli_filter
    from retrieval.search import search

    filters = dict(parse_cli_filter(text) for text in args.filter)
    with _open(settings) as kb:
        hits = search(kb, args.query, mode=args.mode, k=args.k, filters=filters or None)
    for rank, hit in enumerate(hits, start=1):
        if args.json:
            print_json_line({"rank": rank, **hit.to_json()})
            continue
        meta = hit.metadata
        where = [meta.get("path", hit.doc_id)]
        for key in ("page", "sheet", "slide"):
            if key in meta:
                where.append(f"{key} {meta[key]}")
        heading = f" [{meta['heading_path']}]" if meta.get("heading_path") else ""
        print(f"{rank:2}. {hit.score:.4f} {' / '.join(str(w) for w in where)}{heading}")
        print("    " + hit.text.replace("\n", " ")[:300])
    if not hits and not args.json:
        print("no results")
    return 0
