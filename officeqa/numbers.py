"""Parse the numbers people type into spreadsheet cells, exactly, as Decimal.

"1,234.50", "￥1,200", "1200元", "12%", "(1,234)", "1.2万", "-3" all parse; text such as
"暂无" or "N/A" does not (the caller counts it as skipped). Why Decimal: sums of money
must come out to the cent, which float addition does not guarantee.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from officeqa.normalize import to_half_width

_CURRENCY = re.compile(r"^(?:¥|\$|€|rmb|cny|usd|us\$|hk\$|人民币)\s{0,2}|\s{0,2}(?:元|rmb|cny|usd|美元)$", re.I)
_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d{1,3})?$", re.I)
# Fast paths for the common shapes ("1234.5", "1,234.50") before the general clean-up.
_PLAIN = re.compile(r"-?\d{1,30}(?:\.\d{1,30})?")
_GROUPED = re.compile(r"-?\d{1,3}(?:,\d{3}){1,10}(?:\.\d{1,30})?")
_SCALE = {"万": Decimal(10_000), "亿": Decimal(100_000_000), "千": Decimal(1_000)}


def parse_number(cell: object) -> Decimal | None:
    """The cell's value as a Decimal, or None when it is not a number."""
    if cell is None:
        return None
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | Decimal):
        return Decimal(cell)
    if isinstance(cell, float):
        return Decimal(repr(cell))
    if isinstance(cell, str):
        if _PLAIN.fullmatch(cell):
            return Decimal(cell)
        if _GROUPED.fullmatch(cell):
            return Decimal(cell.replace(",", ""))
    text = to_half_width(str(cell)).strip().replace(" ", "")
    if not text:
        return None
    negative = False
    if text.startswith("(") and text.endswith(")"):
        negative, text = True, text[1:-1]
    for _ in range(2):
        text = _CURRENCY.sub("", text)
    percent = text.endswith("%")
    if percent:
        text = text[:-1]
    scale = Decimal(1)
    if text and text[-1] in _SCALE:
        scale, text = _SCALE[text[-1]], text[:-1]
        text = _CURRENCY.sub("", text)
    if not _NUMBER.match(text):
        return None
    try:
        value = Decimal(text.replace(",", "")) * scale
    except InvalidOperation:
        return None
    if percent:
        value = value / 100
    return -value if negative else value


def format_decimal(value: Decimal, *, strip: bool = False) -> str:
    """Plain notation (never 1E+3); ``strip`` drops trailing zeros of computed averages."""
    text = format(value, "f")
    if strip and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
