"""Detect a question's language from its share of CJK characters.

Why a share and not "any CJK character": Chinese questions often quote English
names ("ChatGPT 的提示公式是什么"), and English questions sometimes quote a Chinese
file name. Counting CJK ideographs against Latin letters picks the language the
question is written in, which decides the template and the answer language.
"""

from __future__ import annotations

CJK_SHARE_THRESHOLD = 0.2


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
        or 0x20000 <= code <= 0x2FA1F  # extensions B-F and compatibility supplement
        or 0x3040 <= code <= 0x30FF  # kana: Japanese shares the Chinese template rather than English
    )


def _letter_counts(text: str) -> tuple[int, int]:
    cjk = latin = 0
    for ch in text:
        if _is_cjk(ch):
            cjk += 1
        elif ch.isascii() and ch.isalpha():
            latin += 1
    return cjk, latin


def cjk_share(text: str) -> float:
    """CJK characters / (CJK characters + Latin letters); 0.0 for text with neither."""
    cjk, latin = _letter_counts(text)
    return cjk / (cjk + latin) if cjk + latin else 0.0


def detect_language(text: str, default: str = "zh") -> str:
    """"zh" when CJK characters make up at least 20% of the letters, "en" when Latin letters do, else ``default``.

    A Chinese word is one or two characters while an English word is several letters,
    so a 20% CJK share already means the question is mostly Chinese words.
    """
    cjk, latin = _letter_counts(text)
    if cjk + latin == 0:
        return default
    return "zh" if cjk / (cjk + latin) >= CJK_SHARE_THRESHOLD else "en"
