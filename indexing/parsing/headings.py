"""Promote lines that are headings by their wording, not their style.

Chinese office documents (and WPS-saved docx in particular) often write headings as
plain paragraphs: "第一章 总则", "第三条 违约责任", "一、项目概况", "（二）付款方式",
"1.1 范围". Every format parser calls :func:`heading_level` on short paragraphs so the
chunker sees the same structure whatever the file's styling.
"""

from __future__ import annotations

import re

_CN_NUM = "一二三四五六七八九十百千零〇两0-9０-９"

# (pattern, level); checked in order, first match wins. Each pattern is anchored and bounded.
_RULES: list[tuple[re.Pattern[str], int]] = [
    (re.compile(rf"^第[{_CN_NUM}]{{1,6}}[编篇部]\s*\S"), 1),
    (re.compile(rf"^第[{_CN_NUM}]{{1,6}}章(\s|$)"), 1),
    (re.compile(rf"^第[{_CN_NUM}]{{1,6}}节(\s|$)"), 2),
    (re.compile(rf"^第[{_CN_NUM}]{{1,6}}条(\s|$)"), 3),
    (re.compile(r"^[一二三四五六七八九十]{1,3}[、．.]\s*\S"), 2),
    (re.compile(r"^[（(][一二三四五六七八九十]{1,3}[）)]\s*\S"), 3),
    (re.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,2}\.?\s*\S"), 3),
    (re.compile(r"^\d{1,2}\.\d{1,2}\.?\s+\S"), 2),
    (re.compile(r"^(chapter|part)\s+[0-9ivxlc]+\b", re.IGNORECASE), 1),
    (re.compile(r"^(section|article)\s+[0-9ivxlc.]+\b", re.IGNORECASE), 2),
]

_SENTENCE_END = re.compile(r"[。！？；;!?.]$|[,，、:：]$")
MAX_HEADING_CHARS = 40


_HAS_WORD = re.compile(r"[^\W\d_]")


def is_heading_candidate(text: str, *, max_chars: int = MAX_HEADING_CHARS) -> bool:
    """Whether a line is shaped like a heading: short, one line, not ending like a sentence.

    Format parsers use it before promoting a line for its looks (a bold or large-font
    paragraph), so "注：" or "Total: 12." never become headings.
    """
    line = text.strip()
    if not line or len(line) > max_chars or "\n" in line:
        return False
    if _SENTENCE_END.search(line):
        return False
    return bool(_HAS_WORD.search(line))


def heading_level(text: str, *, max_chars: int = MAX_HEADING_CHARS) -> int | None:
    """The heading level a line's wording implies, or None if it reads like body text.

    A candidate must be short and must not end like a sentence; "第十一条 违约责任" is a
    heading, "第十一条 甲方应当在三日内付款。" is a clause paragraph (its number still
    starts a new section: see :func:`clause_prefix`).
    """
    if not is_heading_candidate(text, max_chars=max_chars):
        return None
    line = text.strip()
    for pattern, level in _RULES:
        if pattern.match(line):
            return level
    return None


_CLAUSE = re.compile(rf"^(第[{_CN_NUM}]{{1,6}}[章节条])[\s　]*")


def clause_prefix(text: str) -> str | None:
    """ "第十一条" when a paragraph starts with a clause number, else None.

    Contracts often run a clause number straight into its body text; the parser can
    split such a paragraph into a heading ("第十一条") and its body.
    """
    match = _CLAUSE.match(text.strip())
    return match.group(1) if match else None
