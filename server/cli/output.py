"""Small helpers the command modules share for printing."""

from __future__ import annotations

import json
import sys
from typing import Any

from officeqa.errors import UnreadableDocument
from officeqa.locations import format_location

EXIT_UNREADABLE = 3


def print_json_line(obj: Any) -> None:
    """One JSON object per line, UTF-8 kept readable (no \\u escapes)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def report_unreadable(exc: UnreadableDocument, as_json: bool) -> int:
    """The CLI contract for a refused file: one stderr line naming it, the JSON error with --json, exit 3."""
    print(f"officeqa: cannot read {exc.path}: {exc.kind.value}: {exc.message}", file=sys.stderr)
    if as_json:
        print_json_line(exc.to_json())
    return EXIT_UNREADABLE


def where(item: Any) -> str:
    """" @ p. 3-4, sheet S, slide 2" for a block or chunk (empty when it has no provenance)."""
    location = format_location(
        page=getattr(item, "page", None),
        page_end=getattr(item, "page_end", None),
        sheet=getattr(item, "sheet", None),
        slide=getattr(item, "slide", None),
    )
    return f" @ {location}" if location else ""
