"""Forced cuts inside an over-long sentence; the sentence splitter itself is ``officeqa.sentences``.

The product has one sentence splitter (``officeqa/sentences.py``), shared by the chunker and
the question path; the chunker's modules import it from there. What is here is chunker-only:
where to cut a sentence that alone is longer than the token budget.

Everything works on offsets into the block text with C-speed regexes, because the chunker
must keep up with several MB of text per second.
"""

from __future__ import annotations

import re

from officeqa.sentences import CANDIDATE, End, Span, append_span

# Never between digits: 3.14, 12:30 and 1,000 stay whole even inside a forced cut.
_PUNCT_BREAK = re.compile(r"(?:\.{2,}|[.:](?!\d)|[：;；)）」』”\"…])+\s*")  # \.{2,}: dot leaders
_SOFT_BREAK = re.compile(r"(?:[，、]|,(?!\d))\s*|\s+")
# Characters every match of the patterns above contains: without any, the regex scan is skipped.
_STRONG_CHARS = "。！？；.!?;:：;)）」』”\"…"
_SOFT_CHARS = "，、,"


def _may_match(text: str, chars: str, spaces: bool) -> bool:
    """Whether ``text`` holds one of ``chars`` (or whitespace), at memchr speed."""
    if any(char in text for char in chars):
        return True
    return spaces and (len(text.split(None, 1)) > 1 or text[:1].isspace() or text[-1:].isspace())


def forced_pieces(text: str, base: int = 0, soft: bool = False) -> list[Span]:
    """Candidate pieces of a sentence that has to be cut.

    ``soft=False``: cut at inner sentence ends (inside quotes or brackets; SENTENCE) and after
    other closing punctuation (dot leaders of a table of contents, colons, closing brackets;
    NEWLINE rank), so a cut piece still ends on punctuation. ``soft=True`` (for a piece that
    is still too long): cut after commas and at spaces (FORCED). The caller packs pieces to
    the budget and hard-splits any piece that is still too long.
    """
    cuts: dict[int, End] = {}
    if not _may_match(text, _SOFT_CHARS if soft else _STRONG_CHARS, spaces=soft):
        whole: list[Span] = []
        append_span(whole, text, 0, len(text), End.SENTENCE, base)
        return whole
    if soft:
        for match in _SOFT_BREAK.finditer(text):
            cuts[match.end()] = End.FORCED
    else:
        for match in CANDIDATE.finditer(text):
            if match.group(3) is None:
                cuts[match.end()] = End.SENTENCE
        for match in _PUNCT_BREAK.finditer(text):
            cuts.setdefault(match.end(), End.NEWLINE)
    spans: list[Span] = []
    start = 0
    for pos in sorted(cuts):
        if 0 < pos < len(text):
            append_span(spans, text, start, pos, cuts[pos], base)
            start = pos
    append_span(spans, text, start, len(text), End.SENTENCE, base)
    return spans


__all__ = ["forced_pieces"]
