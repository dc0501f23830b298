"""``officeqa chunk FILE [--password P] [--json] [--stats]``: parse a file and print its chunks.

``--json`` prints one chunk per line (``Chunk.to_json``: id, text, heading_path, page/sheet/
slide, tokens, kind, overlap_chars, ...). ``--stats`` adds the run's quality metrics as one
JSON object on the last line (``{"metrics": {...}}``); with ``--stats`` alone only that line
is printed.
"""

from __future__ import annotations

import argparse
import sys

from officeqa.errors import UnreadableDocument
from officeqa.settings import Settings
from server.cli.output import print_json_line


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("chunk", help="Parse and chunk one file; print the chunks and/or their metrics.")
    p.add_argument("file", help="The file to chunk.")
    p.add_argument("--password", help="Password of an encrypted docx/xlsx/pdf.")
    p.add_argument("--json", action="store_true", help="JSON lines: one chunk per line.")
    p.add_argument("--stats", action="store_true", help="Print the chunking metrics as one JSON object.")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.chunking import chunk_document
    from indexing.parsing import parse_file

    try:
        document = parse_file(args.file, password=args.password, settings=settings.parsing)
    except UnreadableDocument as exc:
        print(f"officeqa: cannot read {exc.path}: {exc.kind.value}: {exc.message}", file=sys.stderr)
        if args.json:
            print_json_line(exc.to_json())
        return 3
    result = chunk_document(document, settings.chunking)
    if args.json:
        for chunk in result.chunks:
            print_json_line(chunk.to_json())
    elif not args.stats:
        for chunk in result.chunks:
            print(f"--- #{chunk.position} {chunk.kind.value} {chunk.tokens} tokens{_where(chunk)}")
            if chunk.heading_path:
                print("  > " + " > ".join(chunk.heading_path))
            print(chunk.text)
    if args.stats:
        print_json_line({"metrics": result.metrics.to_json()})
    return 0


def _where(chunk) -> str:
    parts = []
    if chunk.page is not None:
        parts.append(f"page {chunk.page}" + (f"-{chunk.page_end}" if chunk.page_end else ""))
    if chunk.sheet is not None:
        parts.append(f"sheet {chunk.sheet}")
    if chunk.slide is not None:
        parts.append(f"slide {chunk.slide}")
    return f" @ {', '.join(parts)}" if parts else ""
