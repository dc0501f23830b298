"""The unit of a table's amounts, from the line above it ("单位：元", "单位：万元 币种：人民币") or its caption
("in millions of Canadian dollars", "(in thousands, except per share data)").

Why apart: a figure quoted without its unit is a different figure (117,530.10 万元 is 1,175,301,034.32 元),
and the unit is printed once per table, not per cell.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

__all__ = ["SCALES", "scale_of", "table_unit"]

SCALES: dict[str, Decimal] = {
    "元": Decimal(1),
    "千元": Decimal(1000),
    "万元": Decimal(10_000),
    "百万元": Decimal(1_000_000),
    "亿元": Decimal(100_000_000),
    "thousands": Decimal(1000),
    "millions": Decimal(1_000_000),
    "billions": Decimal(1_000_000_000),
    "units": Decimal(1),
}
_CN = re.compile(r"单位\s*[：:]\s*(人民币)?\s*(千元|万元|百万元|亿元|元)")
_EN = re.compile(r"(?:in|of)\s+(thousands|millions|billions)(?:\s+of\s+([A-Za-z. ]+?dollars|[A-Z]{3}))?", re.IGNORECASE)
_EN_SIGN = re.compile(r"(C\$|US\$|A\$|\$|CAD|USD|EUR|GBP)\s*(thousands|millions|billions)", re.IGNORECASE)
_CURRENCY = re.compile(r"币种\s*[：:]\s*(人民币|美元|港元|欧元)")


def table_unit(texts: list[str]) -> tuple[str | None, str | None]:
    """(unit, currency) named by the nearest of ``texts`` (closest last), or (None, None)."""
    for text in reversed(texts):
        folded = unicodedata.normalize("NFKC", text)
        match = _CN.search(folded)
        if match:
            currency = _CURRENCY.search(folded)
            return match.group(2), currency.group(1) if currency else "人民币"
        english = _EN.search(folded)
        if english:
            return english.group(1).lower(), (english.group(2) or "").strip() or None
        match = _EN_SIGN.search(folded)
        if match:
            return match.group(2).lower(), match.group(1)
    return None, None


def scale_of(unit: str | None) -> Decimal | None:
    """How many base units one unit is (万元 -> 10000), None for counts, per-share amounts and percentages."""
    return SCALES.get(unit or "")
