"""Small helpers the command modules share for printing."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json_line(obj: Any) -> None:
    """One JSON object per line, UTF-8 kept readable (no \\u escapes)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
