"""Cells of report tables as exact numbers: "3,533,710,584.98", "-275,531,110.00", "(56.9)", "24.69%", "$ 1,681.4".

Why Decimal: a figure is quoted back to a user who checks it against the PDF, and ratios computed from
it must not pick up binary rounding.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = ["CellValue", "parse_value"]

_CELL = re.compile(
    r"^(?P<neg>[-−–]|\()?\s*(?:C?\$|US\$|¥|￥)?\s*(?P<paren>\()?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<close>\))?\s*(?P<pct>%)?\s*(?P<close2>\))?$"
)


@dataclass(frozen=True, slots=True)
class CellValue:
    """A numeric cell: its exact value and whether it is a percentage."""

    value: Decimal
    percent: bool
    text: str


def parse_value(cell: str) -> CellValue | None:
    """The number a table cell holds, or None (text, empty, dashes, several numbers)."""
    text = unicodedata.normalize("NFKC", cell or "").strip().replace(" ", "")
    if not text or len(text) > 32:
        return None
    match = _CELL.match(text)
    if match is None:
        return None
    try:
        value = Decimal(match["num"].replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits digits only
        return None
    negative = bool(match["neg"] and match["neg"] != "(") or bool(
        (match["neg"] == "(" or match["paren"]) and (match["close"] or match["close2"])
    )
    if (match["neg"] == "(" or match["paren"]) and not (match["close"] or match["close2"]):
        return None
    return CellValue(-value if negative else value, bool(match["pct"]), cell.strip())
