"""The unit of a table's amounts, from the line above it ("单位：元", "单位：万元 币种：人民币") or its caption
("in millions of Canadian dollars", "(in thousands, except per share data)", "RMB'000", "HK$ million",
"（人民币千元）", "百万港元", "人民币万元").

Why apart: a figure quoted without its unit is a different figure (117,530.10 万元 is 1,175,301,034.32 元),
and the unit is printed once per table, not per cell.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from indexing.reports.labels import to_simplified

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
_EN = re.compile(r"(?:in|of)\s*(thousands|millions|billions)(?:\s+of\s+([A-Za-z. ]+?dollars|[A-Z]{3}))?", re.IGNORECASE)
_EN_SIGN = re.compile(
    r"(HK\$|NZ\$|S\$|C\$|US\$|A\$|\$|CAD|USD|EUR|GBP|RMB)\s*(thousands|millions|billions)", re.IGNORECASE
)
_CURRENCY = re.compile(r"币种\s*[：:]\s*(人民币|美元|港元|欧元)")
#: A unit printed once in a caption without "单位：": "（人民币千元）", "金额单位为人民币万元", "百万港元", "港币千元".
#: Only beside a currency or inside parentheses, so an amount in a sentence ("增加1,234万元") is not a unit.
_CN_CAPTION = re.compile(
    r"(人民币|港币|港元|美元|欧元)\s*(千元|万元|百万元|亿元)|(百万|千|万|亿)(港元|美元|欧元|人民币)|"
    r"[（(]\s*(?:金额)?(?:单位\s*[：:])?\s*(千元|万元|百万元|亿元)\s*[）)]"
)
_CN_SCALE = {"千": "千元", "万": "万元", "百万": "百万元", "亿": "亿元"}
#: "RMB'000", "HK$'000", "$000", "(000s)", "RMB million", "HK$ millions", "US$m"
_EN_CODE = re.compile(
    r"(RMB|HK\$|US\$|A\$|C\$|S\$|NZ\$|\$|£|€|GBP|EUR|USD)?\s*['’]?000(?:['’]?s)?(?![\d,.])|"
    r"(RMB|HK\$|US\$|A\$|C\$|S\$|NZ\$|£|€)\s*(million|billion|m|bn)s?\b",
    re.IGNORECASE,
)


def table_unit(texts: list[str]) -> tuple[str | None, str | None]:
    """(unit, currency) named by the nearest of ``texts`` (closest last), or (None, None)."""
    for text in reversed(texts):
        folded = to_simplified(unicodedata.normalize("NFKC", text))  # 百萬港元 is 百万港元
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
        found = _caption_unit(folded)
        if found is not None:
            return found
    return None, None


def _caption_unit(folded: str) -> tuple[str, str | None] | None:
    """(unit, currency) of a caption that prints its unit without "单位：" or "in thousands"."""
    match = _CN_CAPTION.search(folded)
    if match:
        if match.group(1):
            return match.group(2), match.group(1)
        if match.group(3):
            return _CN_SCALE[match.group(3)], match.group(4)
        return match.group(5), None
    code = _EN_CODE.search(folded)
    if code is None or not (
        code.group(1)
        or code.group(2)
        or "'" in code.group(0)
        or "’" in code.group(0)
        or re.search(r"\(\s*" + re.escape(code.group(0).strip()), folded)
    ):
        return None
    if code.group(2):
        word = code.group(3).lower()
        return ("billions" if word.startswith("b") else "millions"), code.group(2)
    return "thousands", code.group(1)


def scale_of(unit: str | None) -> Decimal | None:
    """How many base units one unit is (万元 -> 10000), None for counts, per-share amounts and percentages."""
    return SCALES.get(unit or "")
