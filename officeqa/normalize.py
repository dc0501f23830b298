"""Normalise an instruction before rule matching: width, case, spaces, Traditional characters.

Why: users type "ＥＭＡＩＬ", "電話號碼" or "提取  手机号" and expect the same answer as for
"email", "电话号码", "提取手机号". Rules are written once, in Simplified Chinese and lower
case, and every instruction is brought to that form first. Traditional characters are
converted by OpenCC (``officeqa.chinese``): a hand table held the characters someone needed
once and missed the rest.
"""

from __future__ import annotations

import re
from functools import lru_cache

from officeqa.chinese import to_simplified as _opencc_simplified

# Full-width ASCII (U+FF01..U+FF5E) -> half-width; ideographic space -> space; yen signs unified.
_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
_WIDTH[0x3000] = 0x20
_WIDTH[0xFFE5] = ord("¥")
_WIDTH = str.maketrans(_WIDTH)

_SPACES = re.compile(r"\s+")


def to_half_width(text: str) -> str:
    """Full-width letters, digits and punctuation to their ASCII forms ("（１）" -> "(1)")."""
    return text.translate(_WIDTH)


def to_simplified(text: str) -> str:
    """Traditional Chinese to Simplified, by OpenCC ("電話" -> "电话")."""
    return _opencc_simplified(text)


@lru_cache(maxsize=131_072)
def normalize(text: str) -> str:
    """The form rules are matched against: half-width, Simplified, case-folded, single spaces, trimmed.

    Cached: the table linker normalises every column name and cell value of every table in scope for each
    question (~200k calls for a question over ten reports' tables), and they are the same strings each time."""
    return _SPACES.sub(" ", to_simplified(to_half_width(text)).casefold()).strip()
