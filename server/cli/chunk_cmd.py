"""``officeqa chunk FILE [--password P] [--json] [--stats]``: parse a file and print its chunks.

``--json`` prints one chunk per line (``Chunk.to_json``: id, text, heading_path, page/sheet/
slide, tokens, kind, overlap_chars, ...). ``--stats`` adds the run's quality metrics as one
JSON object on the last line (``{"metrics": {...}}``); with ``--stats`` alone only that line
is printed.

Parsing, cleaning and chunking run in the guarded worker (``indexing.parsing.guard``), under
``parsing.timeout_s`` and ``parsing.max_memory_mb``; a refusal exits 3 as with ``parse``.
"""

from __future__ import annotations

import argparse

from officeqa.errors import UnreadableDocument
from officeqa.settings import Settings
from server.cli.output import print_json_line, report_unreadable, where
from server.cli.preflight import FILE


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("chunk", help="Parse and chunk one file; print the chunks and/or their metrics.")
    p.add_argument("file", help="The file to chunk.")
    p.add_argument("--password", help="Password of an encrypted docx/xlsx/pdf.")
    p.add_argument("--json", action="store_true", help="JSON lines: one chunk per line.")
    p.add_argument("--stats", action="store_true", help="Print the chunking metrics as one JSON object.")
    p.set_defaults(handler=run, must_exist={"file": FILE})


def run(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.parsing.guard import GuardedParser

    # Parsing, cleaning and chunking all run in the guarded worker (time limit, memory cap).
    try:
        with GuardedParser(settings.parsing) as guard:
            _document, result = guard.parse_and_chunk(args.file, settings.chunking, password=args.password)
    except UnreadableDocument as exc:
        return report_unreadable(exc, args.json)
    if args.json:
        for chunk in result.chunks:
            print_json_line(chunk.to_json())
    elif not args.stats:
        for chunk in result.chunks:
            print(f"--- #{chunk.position} {chunk.kind.value} {chunk.tokens} tokens{where(chunk)}")
            if chunk.heading_path:
                print("  > " + " > ".join(chunk.heading_path))
            print(chunk.text)
    if args.stats:
        print_json_line({"metrics": result.metrics.to_json()})
    return 0

