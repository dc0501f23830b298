"""Figures as a user reads them: the amount as printed with its unit, converted when asked in another unit."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from indexing.reports.units import SCALES

__all__ = ["convert", "format_amount", "with_unit"]

_EN_UNITS = {
    "元": "yuan",
    "元/股": "yuan per share",
    "人": "",
    "%": "%",
    "thousands": "thousand",
    "millions": "million",
    "billions": "billion",
    "万元": "ten-thousand yuan",
    "亿元": "hundred-million yuan",
}
_ASKED = {"millions": "millions", "thousands": "thousands", "billions": "billions"}


def format_amount(value: Decimal, places: int = 2) -> str:
    """ "1,234,567.89" (thousands separators, fixed decimals)."""
    quantum = Decimal(1).scaleb(-places)
    return f"{value.quantize(quantum, rounding=ROUND_HALF_UP):,.{places}f}"


def with_unit(text: str, unit: str | None, english: bool) -> str:
    """The printed figure followed by its unit ("3,533,710,584.98 元", "1,681.4 million"); a leading minus is
    written as the minus sign (U+2212) so the amount reads apart from a hyphenated code."""
    if text.startswith("-"):
        text = "\u2212" + text[1:]
    elif text.startswith("(") and text.endswith(")"):  # accounting negative "(56.9)"
        text = "\u2212" + text[1:-1]
    if not unit:
        return text
    if unit == "%":
        return text if text.endswith("%") else f"{text}%"
    if english:
        word = _EN_UNITS.get(unit, unit)
        return f"{text} {word}".strip()
    return f"{text} {unit}"


def convert(value: Decimal, unit: str | None, wanted: str | None) -> tuple[Decimal, str] | None:
    """``value`` in ``unit`` expressed in ``wanted`` (万元, 亿元, millions...), or None when not convertible."""
    if not wanted or not unit or unit == wanted:
        return None
    source, target = SCALES.get(unit), SCALES.get(_ASKED.get(wanted, wanted))
    if source is None or target is None:
        return None
    return value * source / target, wanted
