"""List numbering of a .docx: the label ("1.2", "(a)", "第三条") each numbered paragraph shows.

Why a module of its own: Word stores no label text, only ``numbering.xml`` level
definitions and counters, so labels must be computed while walking in document order;
without them "第三条 …" list items lose the words retrieval matches on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from indexing.parsing.docx_xml import W_VAL, to_int, wtag

_CN_DIGITS = "零一二三四五六七八九"
_CHINESE_FORMATS = {
    "chineseCounting",
    "chineseCountingThousand",
    "ideographTraditional",
    "japaneseCounting",
    "taiwaneseCounting",
    "chineseLegalSimplified",
}
_ROMAN_VALUES = (
    (1000, "m"),
    (900, "cm"),
    (500, "d"),
    (400, "cd"),
    (100, "c"),
    (90, "xc"),
    (50, "l"),
    (40, "xl"),
    (10, "x"),
    (9, "ix"),
    (5, "v"),
    (4, "iv"),
    (1, "i"),
)


def _chinese_number(n: int) -> str:
    if n <= 0 or n >= 100:
        return str(n)
    tens, ones = divmod(n, 10)
    if tens == 0:
        return _CN_DIGITS[ones]
    return ("" if tens == 1 else _CN_DIGITS[tens]) + "十" + (_CN_DIGITS[ones] if ones else "")


def _roman(n: int) -> str:
    if n <= 0 or n >= 4000:
        return str(n)
    out = []
    for value, letters in _ROMAN_VALUES:
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def _letters(n: int) -> str:
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str) -> str:
    """``n`` written in the ``w:numFmt`` ``fmt`` (decimal for formats not handled)."""
    if fmt in ("lowerLetter", "upperLetter"):
        text = _letters(n)
        return text.upper() if fmt == "upperLetter" else text
    if fmt in ("lowerRoman", "upperRoman"):
        text = _roman(n)
        return text.upper() if fmt == "upperRoman" else text
    if fmt in _CHINESE_FORMATS:
        return _chinese_number(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt in ("decimalEnclosedCircle", "decimalEnclosedCircleChinese") and 1 <= n <= 20:
        return chr(0x2460 + n - 1)
    return str(n)


@dataclass(slots=True)
class _Level:
    """One ``w:lvl`` of an abstract numbering definition."""

    fmt: str = "decimal"
    text: str = "%1."
    start: int = 1


class Numbering:
    """numbering.xml: computes the label ("1.2", "(a)", "第三条") of each numbered paragraph."""

    def __init__(self, root: etree._Element | None) -> None:
        self._abstract: dict[str, dict[int, _Level]] = {}
        self._num_to_abstract: dict[str, str] = {}
        self._counters: dict[str, list[int]] = {}
        if root is None:
            return
        for abstract in root.iter(wtag("abstractNum")):
            levels: dict[int, _Level] = {}
            for lvl in abstract.iter(wtag("lvl")):
                level = _Level()
                fmt = lvl.find(wtag("numFmt"))
                text = lvl.find(wtag("lvlText"))
                start = lvl.find(wtag("start"))
                level.fmt = (fmt.get(W_VAL) if fmt is not None else None) or "decimal"
                level.text = (text.get(W_VAL) if text is not None else None) or ""
                level.start = (to_int(start.get(W_VAL)) if start is not None else None) or 1
                levels[to_int(lvl.get(wtag("ilvl"))) or 0] = level
            self._abstract[abstract.get(wtag("abstractNumId")) or ""] = levels
        for num in root.iter(wtag("num")):
            ref = num.find(wtag("abstractNumId"))
            if ref is not None:
                self._num_to_abstract[num.get(wtag("numId")) or ""] = ref.get(W_VAL) or ""

    def known(self, num_id: str) -> bool:
        """Whether ``num_id`` names a numbering instance defined in numbering.xml."""
        return num_id in self._num_to_abstract

    def list_key(self, num_id: str) -> str | None:
        """Paragraphs sharing a key belong to one list (Word continues numbering per abstract definition)."""
        return self._num_to_abstract.get(num_id)

    def label(self, num_id: str, ilvl: int) -> str | None:
        """Advance the list's counter and return the item's label; None for bullets."""
        abstract_id = self._num_to_abstract.get(num_id)
        levels = self._abstract.get(abstract_id or "")
        if not levels:
            return None
        counters = self._counters.setdefault(abstract_id or "", [0] * 9)
        ilvl = min(max(ilvl, 0), 8)
        if counters[ilvl] == 0:
            counters[ilvl] = (levels.get(ilvl) or _Level()).start - 1
        counters[ilvl] += 1
        for deeper in range(ilvl + 1, 9):
            counters[deeper] = 0
        level = levels.get(ilvl)
        if level is None or level.fmt in ("bullet", "none") or not level.text:
            return None

        def substitute(match: re.Match[str]) -> str:
            index = int(match.group(1)) - 1
            ref = levels.get(index) or _Level()
            value = counters[index] if counters[index] else ref.start
            return format_number(value, ref.fmt)

        return re.sub(r"%([1-9])", substitute, level.text).strip() or None
