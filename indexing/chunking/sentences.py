"""Sentence splitting that knows where a cut may never fall.

A cut point is the end of a sentence: 。！？； (with any closing quotes/brackets that follow),
ASCII . ! ? ; followed by whitespace (not after an abbreviation or an initial, never between
digits, so 3.14 and 2024-01-05 stay whole), or a newline. A candidate that falls inside a
matched pair of 《》 “” （） 「」 『』 () is dropped: a citation such as 《中华人民共和国合同法》
or a quoted passage is never cut. Pairs are matched per block with a stack; an opener that
is never closed (OCR noise) protects nothing, so one stray bracket cannot glue a whole
document into a single "sentence".

Everything works on offsets into the block text with C-speed regexes, because the chunker
must keep up with several MB of text per second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum


class End(IntEnum):
    """How strong a boundary is; the packer prefers higher values."""

    NO_CUT = -1  # never cut here (after a heading: it belongs to what follows)
    FORCED = 0  # inside a sentence longer than the budget
    NEWLINE = 1  # a line end without punctuation
    SENTENCE = 2  # 。！？； or . ! ? ; (plus closing quotes)
    BLOCK = 3  # the end of a paragraph / list / code block


@dataclass(slots=True)
class Span:
    """A piece of text [start, end) in document coordinates and the strength of its end."""

    start: int
    end: int
    end_kind: End


_OPEN_TO_CLOSE = {"《": "》", "“": "”", "（": "）", "「": "」", "『": "』", "(": ")"}
_CLOSERS = frozenset(_OPEN_TO_CLOSE.values())
_BRACKETS = re.compile("[《》“”（）「」『』()]")

_CLOSE_TAIL = "”’」』）》)\"'\\]"
# Group 1: CJK sentence punctuation; group 2: ASCII punctuation that must be followed by space/end; group 3: newline.
_CANDIDATE = re.compile(
    rf"([。！？；]+[{_CLOSE_TAIL}]*)"
    rf"|([.!?;]+[{_CLOSE_TAIL}]*(?=\s|$))"
    r"|(\n)"
)
_ABBREVIATIONS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "mt",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "cf",
        "al",
        "fig",
        "figs",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "p",
        "ed",
        "eds",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "approx",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "art",
        "sec",
        "ch",
        "para",
        "ref",
        "eq",
        "u.s",
    }
)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_LOWER_NEXT = re.compile(r"\s+[a-z]")


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Intervals (open, close) of matched bracket/quote pairs; a cut at p is forbidden if open < p <= close."""
    if not _BRACKETS.search(text):
        return []
    stack: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    for match in _BRACKETS.finditer(text):
        char, pos = match.group(), match.start()
        if char in _CLOSERS:
            for depth in range(len(stack) - 1, -1, -1):
                if _OPEN_TO_CLOSE[stack[depth][0]] == char:
                    spans.append((stack[depth][1], pos))
                    del stack[depth:]
                    break
        else:
            stack.append((char, pos))
    if not spans:
        return []
    spans.sort()
    merged = [spans[0]]
    for start, end in spans[1:]:
        last_start, last_end = merged[-1]
        if start <= last_end:
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the '.' at ``dot`` closes an abbreviation or an initial rather than a sentence."""
    word = _WORD_BEFORE.search(text, max(0, dot - 12), dot)
    if word:
        token = word.group(1).lower()
        if token in _ABBREVIATIONS or len(token) == 1:
            return True
    # "approx. the" / "e.g. a": a lowercase word after the dot continues the sentence.
    return bool(_LOWER_NEXT.match(text, dot + 1))


def sentence_ends(text: str) -> list[tuple[int, End]]:
    """Cut positions (offsets just after the end) inside ``text`` with their strength, in order."""
    ends: list[tuple[int, End]] = []
    protected = protected_spans(text)
    for match in _CANDIDATE.finditer(text):
        if match.group(3) is not None:
            pos, kind = match.start(), End.NEWLINE  # cut before the newline; the newline is whitespace
        else:
            pos, kind = match.end(), End.SENTENCE
            if match.group(2) is not None and match.group(2)[0] == "." and _is_abbreviation(text, match.start()):
                continue
        if protected and _inside(protected, pos):
            continue
        ends.append((pos, kind))
    return ends


def _inside(protected: list[tuple[int, int]], pos: int) -> bool:
    # Few spans per block: a linear scan is faster than bisect bookkeeping in practice.
    for start, end in protected:
        if start < pos <= end:
            return True
        if start >= pos:
            return False
    return False


def split_sentences(text: str, base: int = 0) -> list[Span]:
    """Split one block's text into sentence spans in document coordinates (``base`` = block offset).

    Leading/trailing whitespace is excluded from spans; the last span ends with End.BLOCK.
    """
    spans: list[Span] = []
    start = 0
    length = len(text)
    for pos, kind in sentence_ends(text):
        _append(spans, text, start, pos, kind, base)
        start = pos
    _append(spans, text, start, length, End.BLOCK, base)
    if spans:
        spans[-1].end_kind = End.BLOCK
    return spans


def _append(spans: list[Span], text: str, start: int, end: int, kind: End, base: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    stop = end
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    if stop > start:
        spans.append(Span(base + start, base + stop, kind))
    elif spans and kind > spans[-1].end_kind:
        spans[-1].end_kind = kind


# Never between digits: 3.14, 12:30 and 1,000 stay whole even inside a forced cut.
_PUNCT_BREAK = re.compile(r"(?:\.{2,}|[.:](?!\d)|[：;；)）」』”\"…])+\s*")  # \.{2,}: dot leaders
_SOFT_BREAK = re.compile(r"(?:[，、]|,(?!\d))\s*|\s+")


def forced_pieces(text: str, base: int = 0, soft: bool = False) -> list[Span]:
    """Candidate pieces of a sentence that has to be cut.

    ``soft=False``: cut at inner sentence ends (inside quotes or brackets; SENTENCE) and after
    other closing punctuation (dot leaders of a table of contents, colons, closing brackets;
    NEWLINE rank), so a cut piece still ends on punctuation. ``soft=True`` (for a piece that
    is still too long): cut after commas and at spaces (FORCED). The caller packs pieces to
    the budget and hard-splits any piece that is still too long.
    """
    cuts: dict[int, End] = {}
    if soft:
        for match in _SOFT_BREAK.finditer(text):
            cuts[match.end()] = End.FORCED
    else:
        for match in _CANDIDATE.finditer(text):
            if match.group(3) is None:
                cuts[match.end()] = End.SENTENCE
        for match in _PUNCT_BREAK.finditer(text):
            cuts.setdefault(match.end(), End.NEWLINE)
    spans: list[Span] = []
    start = 0
    for pos in sorted(cuts):
        if 0 < pos < len(text):
            _append(spans, text, start, pos, cuts[pos], base)
            start = pos
    _append(spans, text, start, len(text), End.SENTENCE, base)
    return spans


__all__ = ["End", "Span", "forced_pieces", "protected_spans", "sentence_ends", "split_sentences"]
