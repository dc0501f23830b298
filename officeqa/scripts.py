"""Which script a text is written in (Han or Latin): the language signal every layer needs.

Why in the core: the BM25 index classifies its terms by script (``indexing``), fusion compares
the query's script with the corpus's (``retrieval``); both use these same definitions.
"""

from __future__ import annotations

import unicodedata

__all__ = ["detect_script", "is_han", "script_counts"]


def is_han(ch: str) -> bool:
    """A CJK ideograph (and kana/hangul: scripts BM25 segments the same way as Chinese here)."""
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0x20000 <= code <= 0x2FA1F  # extensions B.. and compatibility supplement
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= code <= 0x30FF  # hiragana, katakana
        or 0xAC00 <= code <= 0xD7AF  # hangul syllables
    )


def script_counts(text: str) -> tuple[int, int]:
    """(Han-like characters, Latin-script words) in ``text``; digits and punctuation count for neither.

    Words, not letters, for Latin, because one Chinese character carries about as much as one
    English word does for retrieval (a 20-character Chinese question ~ a 12-word English one).
    """
    han = 0
    words = 0
    in_word = False
    for ch in text:
        if is_han(ch):
            han += 1
            in_word = False
        elif ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN"):
            if not in_word:
                words += 1
            in_word = True
        else:
            in_word = False
    return han, words


def detect_script(text: str) -> str:
    """'zh' (mostly Han), 'en' (mostly Latin), 'mixed', or '' when there are no letters at all.

    Han characters are weighed against Latin words (one word ~ two characters): 'zh' from 60%
    Han, 'en' up to 25%, 'mixed' between, so a Chinese question naming a product or a function
    in English stays 'zh'.
    """
    han, words = script_counts(text)
    total = han + 2 * words  # a Latin word weighs about two Han characters
    if total == 0:
        return ""
    han_share = han / total
    if han_share >= 0.6:
        return "zh"
    if han_share <= 0.25:
        return "en"
    return "mixed"
