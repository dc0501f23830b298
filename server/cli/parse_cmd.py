"""``officeqa parse FILE [--password P] [--json]``: print a file's blocks or its refusal."""

from __future__ import annotations

import argparse

from officeqa.errors import UnreadableDocument
from officeqa.settings import Settings
from server.cli.output import print_json_line, report_unreadable, where


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("parse", help="Parse one file and print its blocks.")
    p.add_argument("file", help="The file to parse.")
    p.add_argument("--password", help="Password of an encrypted docx/xlsx/pdf.")
    p.add_argument("--json", action="store_true", help="JSON lines: one block per line.")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.parsing import parse_file

    try:
        document = parse_file(args.file, password=args.password, settings=settings.parsing)
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

