"""Which script a text is written in: the one definition of Han, kana, Hangul and CJK every layer uses.

Why in the core: the BM25 index classifies its terms by script (``indexing``), fusion compares the
query's script with the corpus's (``retrieval``), the prompt and the fixed answer texts follow the
question's language (``prompts``, ``retrieval``), cleaning joins lines broken inside CJK text
(``indexing``). Before this module, each kept its own ranges and they disagreed (one counted Hangul as
CJK, one did not). Character classes for regular expressions are exported as strings so a pattern
reads ``f"[{HAN}]"`` instead of repeating code points.

Definitions:
- Han: CJK unified ideographs, extension A, extensions B and later, compatibility ideographs;
- kana: hiragana and katakana;
- Hangul: Hangul syllables;
- CJK: Han, kana or Hangul — the scripts written without spaces between words that are segmented,
  counted and wrapped the same way here;
- CJK punctuation: the CJK symbols block and the full-width forms.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CJK",
    "CJK_PUNCTUATION",
    "HAN",
    "HANGUL",
    "KANA",
    "LANGUAGE_CJK_SHARE",
    "cjk_share",
    "detect_language",
    "detect_script",
    "has_han",
    "is_cjk",
    "is_han",
    "is_hangul",
    "script_counts",
]

#: Regex class body of Han ideographs (BMP and supplementary planes).
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
#: Regex class body of hiragana and katakana.
KANA = "\u3040-\u30ff"
#: Regex class body of Hangul syllables.
HANGUL = "\uac00-\ud7af"
#: Regex class body of every script segmented like Chinese: Han, kana, Hangul.
CJK = HAN + KANA + HANGUL
#: Regex class body of CJK symbols and punctuation and the full-width forms.
CJK_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"

_HAN_CHAR = re.compile(f"[{HAN}]")
_CJK_CHAR = re.compile(f"[{CJK}]")
_HANGUL_CHAR = re.compile(f"[{HANGUL}]")

#: The share of CJK characters among letters from which a text is answered in Chinese (see detect_language).
LANGUAGE_CJK_SHARE = 0.2


def is_han(ch: str) -> bool:
    """A Han ideograph (no kana, no Hangul)."""
    return bool(_HAN_CHAR.match(ch))


def is_hangul(ch: str) -> bool:
    """A Hangul syllable."""
    return bool(_HANGUL_CHAR.match(ch))


def is_cjk(ch: str) -> bool:
    """A character of a script written without spaces between words: Han, kana or Hangul."""
    return bool(_CJK_CHAR.match(ch))


def has_han(text: str) -> bool:
    """Whether ``text`` holds at least one Han ideograph."""
    return bool(_HAN_CHAR.search(text))


def script_counts(text: str) -> tuple[int, int]:
    """(CJK characters, Latin-script words) in ``text``; digits and punctuation count for neither.

    Words, not letters, for Latin, because one Chinese character carries about as much as one
    English word does for retrieval (a 20-character Chinese question ~ a 12-word English one).
    """
    cjk = 0
    words = 0
    in_word = False
    for ch in text:
        if is_cjk(ch):
            cjk += 1
            in_word = False
        elif ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN"):
            if not in_word:
                words += 1
            in_word = True
        else:
            in_word = False
    return cjk, words


def detect_script(text: str) -> str:
    """'zh' (mostly CJK), 'en' (mostly Latin), 'mixed', or '' when there are no letters at all.

    CJK characters are weighed against Latin words (one word ~ two characters): 'zh' from 60%
    CJK, 'en' up to 25%, 'mixed' between, so a Chinese question naming a product or a function
    in English stays 'zh'.
    """
    cjk, words = script_counts(text)
    total = cjk + 2 * words  # a Latin word weighs about two Han characters
    if total == 0:
        return ""
    cjk_part = cjk / total
    if cjk_part >= 0.6:
        return "zh"
    if cjk_part <= 0.25:
        return "en"
    return "mixed"


def _letter_counts(text: str) -> tuple[int, int]:
    """(CJK characters, ASCII letters): the units :func:`detect_language` weighs."""
    cjk = latin = 0
    for ch in text:
        if is_cjk(ch):
            cjk += 1
        elif ch.isascii() and ch.isalpha():
            latin += 1
    return cjk, latin


def cjk_share(text: str) -> float:
    """CJK characters / (CJK characters + Latin letters); 0.0 for text with neither."""
    cjk, latin = _letter_counts(text)
    return cjk / (cjk + latin) if cjk + latin else 0.0


def detect_language(text: str, default: str = "zh") -> str:
    """The language a question is answered in: "zh" when CJK characters make up at least 20% of the
    letters, "en" when Latin letters do, else ``default``.

    Why a share and not "any CJK character": Chinese questions often quote English names
    ("ChatGPT 的提示公式是什么"), and English questions sometimes quote a Chinese file name. A
    Chinese word is one or two characters while an English word is several letters, so a 20% CJK
    share already means the question is mostly Chinese words. Japanese and Korean share the Chinese
    templates rather than the English ones (the product ships two).
    """
    cjk, latin = _letter_counts(text)
    if cjk + latin == 0:
        return default
    return "zh" if cjk / (cjk + latin) >= LANGUAGE_CJK_SHARE else "en"
