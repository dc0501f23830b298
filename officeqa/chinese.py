"""Traditional and Simplified Chinese compared as one: OpenCC's Traditional -> Simplified conversion.

Why a kept library and not a table of our own: a hand table holds the characters someone needed once
("電話號碼") and misses the rest; a Hong Kong report prints "騰訊控股有限公司", "股份代號", "公司資料", and a
question typed in Simplified must find it (and the other way round). OpenCC's dictionaries
(``opencc-python-reimplemented``, pure Python, Apache-2.0) cover the characters and the phrases whose
conversion depends on the neighbour. Both sides of every comparison are folded; the printed text is kept
for quotes and citations.

Why the fast path: most text (Simplified reports, English) has no Traditional character at all, and the
pure-Python converter costs microseconds per character; a scan against the dictionary's character set
returns such text untouched.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources

from opencc import OpenCC

__all__ = ["has_traditional", "to_simplified"]


@cache
def _converter() -> OpenCC:
    return OpenCC("t2s")


@cache
def _traditional() -> frozenset[str]:
    """Every character that starts a Traditional entry of OpenCC's character or phrase dictionary."""
    chars: set[str] = set()
    folder = resources.files("opencc").joinpath("dictionary")
    for name in ("TSCharacters.txt", "TSPhrases.txt"):
        for line in folder.joinpath(name).read_text(encoding="utf-8").splitlines():
            key = line.split("\t", 1)[0].strip()
            if key:
                chars.add(key[0])
    return frozenset(chars)


def has_traditional(text: str) -> bool:
    """True when ``text`` holds a character OpenCC converts to Simplified."""
    return not _traditional().isdisjoint(text)  # one pass in C (a generator over the characters cost ~60 us a sentence)


def to_simplified(text: str) -> str:
    """``text`` with Traditional Chinese converted to Simplified ("騰訊控股" -> "腾讯控股"); other text as it is."""
    if not has_traditional(text):
        return text
    return _convert(text) if len(text) <= 512 else str(_converter().convert(text))


@lru_cache(maxsize=4096)
def _convert(text: str) -> str:
    return str(_converter().convert(text))
