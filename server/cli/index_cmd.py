"""Knowledge-base commands: index, reindex, remove, status, check, search.

    officeqa index PATH...            files or folders (recursive); unchanged files are skipped
    officeqa reindex                  rebuild every store from the registered files (after a model change)
    officeqa remove PATH|ID           delete a document from every store
    officeqa status [--json]          documents and their states
    officeqa check [--json]           do registry, Chroma and BM25 agree? (exit 4 when not)
    officeqa search "QUERY" [--mode bm25|dense|hybrid] [-k 10] [--filter field=value] [--json]

Each handler opens the knowledge base from settings, calls one library function and prints.
"""

from __future__ import annotations

import argparse
import sys

from officeqa.settings import Settings
from server.cli.output import print_json_line

EXIT_PRODUCT_ERROR = 4


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("index", help="Index files and folders into the knowledge base.")
    p.add_argument("paths", nargs="+", help="Files or folders (walked recursively).")
    p.add_argument("--force", action="store_true", help="Re-index unchanged files too.")
    p.add_argument("--json", action="store_true", help="Print the report as one JSON object.")
    p.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")
    p.set_defaults(handler=run_index)

    p = subparsers.add_parser("reindex", help="Empty the vector and BM25 stores and index every registered file again.")
    p.add_argument("--json", action="store_true", help="Print the report as one JSON object.")
    p.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")
    p.set_defaults(handler=run_reindex)

    p = subparsers.add_parser("remove", help="Remove a document (path or doc id) from every store.")
    p.add_argument("target", help="The file path, or the document id (8+ leading characters are enough).")
    p.set_defaults(handler=run_remove)

    p = subparsers.add_parser("status", help="List documents and their states.")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.set_defaults(handler=run_status)

    p = subparsers.add_parser("check", help="Verify that the registry, Chroma and BM25 agree.")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.set_defaults(handler=run_check)

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
    p.set_defaults(handler=run_search)


def _open(settings: Settings):
    from indexing.knowledge_base import KnowledgeBase

    return KnowledgeBase.open(settings)


def _print_report(report, as_json: bool) -> None:
    if as_json:
        print_json_line(report.to_json())
        return
    for failure in report.failed:
        print(f"failed: {failure.path}: {failure.kind}: {failure.message}", file=sys.stderr)
    for missing in report.not_found:
        print(f"not found: {missing}", file=sys.stderr)
    for path in report.removed:
        print(f"removed (file gone): {path}")
    print(report.summary())


def run_index(args: argparse.Namespace, settings: Settings) -> int:
    if not args.no_progress and sys.stderr.isatty():
        print(_estimate(settings, None).describe(), file=sys.stderr)
    with _open(settings) as kb:
        report = kb.index_paths(args.paths, progress=not args.no_progress and sys.stderr.isatty(), force=args.force)
    _print_report(report, args.json)
    return EXIT_PRODUCT_ERROR if report.not_found and not (report.added or report.updated or report.skipped) else 0


def run_reindex(args: argparse.Namespace, settings: Settings) -> int:
    with _open(settings) as kb:
        report = kb.reindex(progress=not args.no_progress and sys.stderr.isatty())
    _print_report(report, args.json)
    return 0


def run_remove(args: argparse.Namespace, settings: Settings) -> int:
    with _open(settings) as kb:
        removed = kb.remove(args.target)
    for path in removed:
        print(f"removed: {path}")
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
    print(", ".join(f"{name} {count}" for name, count in sorted(status.counts.items())) or "no documents")
    for doc in status.documents:
        extra = f"  {doc.error_kind}: {doc.error_message}" if doc.error_kind else ""
        if doc.status == "duplicate" and doc.error_message:
            extra = f"  ({doc.error_message})"
        print(f"{doc.status:9} {doc.chunk_count:6} {doc.doc_id[:12]}  {doc.path}{extra}")
    return 0


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    with _open(settings) as kb:
        report = kb.check()
    if args.json:
        print_json_line(report.to_json())
    else:
        print(
            f"registry {report.registry_chunks} chunks, chroma {report.chroma_chunks}, bm25 {report.bm25_chunks}: "
            + ("consistent" if report.clean else "DIFFERENCES")
        )
        for label, items in (
            ("missing in chroma", report.missing_in_chroma),
            ("missing in bm25", report.missing_in_bm25),
            ("orphan in chroma", report.orphans_in_chroma),
            ("orphan in bm25", report.orphans_in_bm25),
            ("count mismatch", report.count_mismatches),
            ("file gone (run index on its folder or remove it)", report.missing_files),
        ):
            for item in items:
                print(f"{label}: {item}")
        if report.model_problem:
            print(f"model: {report.model_problem}")
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
