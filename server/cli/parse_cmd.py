"""``officeqa parse FILE [--password P] [--json]``: print a file's blocks or its refusal.

Parsing runs in the guarded worker (``indexing.parsing.guard``): a file that takes longer
than ``parsing.timeout_s`` or needs more than ``parsing.max_memory_mb`` is refused as
``timeout``/``too_large`` (exit 3) instead of hanging or exhausting this process.
"""

from __future__ import annotations

import argparse

from officeqa.errors import UnreadableDocument
from officeqa.settings import Settings
from server.cli.output import print_json_line, report_unreadable, where
from server.cli.preflight import FILE


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("parse", help="Parse one file and print its blocks.")
    p.add_argument("file", help="The file to parse.")
    p.add_argument("--password", help="Password of an encrypted docx/xlsx/pdf.")
    p.add_argument("--json", action="store_true", help="JSON lines: one block per line.")
    p.set_defaults(handler=run, must_exist={"file": FILE})


def run(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.parsing.guard import GuardedParser

    # The file is untrusted: it is read in the guarded worker (time limit, memory cap), never in this process.
    try:
        with GuardedParser(settings.parsing) as guard:
            document = guard.parse(args.file, password=args.password)
    except UnreadableDocument as exc:
        return report_unreadable(exc, args.json)
    for block in document.blocks:
        if args.json:
            print_json_line(block.to_json())
        else:
            label = block.type.value + (f"(h{block.level})" if block.level else "")
            role = f" [{block.role.value}]" if block.role.value != "body" else ""
            print(f"--- {label}{role}{where(block)}\n{block.text}")
    return 0

