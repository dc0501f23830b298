"""The one sentence splitter of the product: where a sentence ends and where a cut may never fall.

Why one module in the shared core: the chunker cuts documents at sentence ends, and the
question path (prompt truncation, extractive answers, citation quotes) cuts chunk text at
sentence ends too. Two splitters disagreed ("e.g." ended a sentence for one, a quoted
passage was cut for the other), so a quote the chunker kept whole came back in halves.
Every layer imports this module; ``indexing.chunking.sentences`` adds only the forced cuts
the chunker needs inside over-long sentences.

A cut point is the end of a sentence: 。！？； (with any closing quotes/brackets that follow),
ASCII . ! ? ; followed by whitespace (not after an abbreviation such as "e.g." or "Dr." or an
initial, never between digits, so 3.14 and 2024-01-05 stay whole), or a newline. A candidate
that falls inside a matched pair of 《》 “” （） 「」 『』 () is dropped: a citation such as
《中华人民共和国合同法》 or a quoted passage (他说：“今天付款。明天交货。”) is never cut. Pairs
are matched per text with a stack; an opener that is never closed (OCR noise) protects
nothing, so one stray bracket cannot glue a whole document into a single "sentence".

Linear time on any input (a hostile file is one long line of dots, brackets or spaces): the
candidate regex is possessive and only starts at the first character of a punctuation run,
bracket matching keeps one stack per bracket kind, and candidates are checked against the
protected intervals with a moving pointer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "End",
    "Span",
    "protected_spans",
    "sentence_ends",
    "sentence_pieces",
    "split_sentences",
]


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
_CLOSE_TO_OPEN = {close: open_ for open_, close in _OPEN_TO_CLOSE.items()}
_BRACKETS = re.compile("[《》“”（）「」『』()]")

CLOSE_TAIL = "”’」』）》)\"'\\]"
# Group 1: CJK sentence punctuation; group 2: ASCII punctuation that must be followed by space/end
# (possessive, and starting only at the first character of a run: "....x" is one failed attempt, not
# one per dot); group 3: newline.
CANDIDATE = re.compile(
    rf"([。！？；]++[{CLOSE_TAIL}]*+)"
    rf"|((?<![.!?;])[.!?;]++[{CLOSE_TAIL}]*+(?=\s|$))"
    r"|(\n)"
)
# Every candidate contains one of these: a text without any skips the regex scan (about 150 ns per character
# in Python's re, which adds up on a 100 MB line of one letter).
_CANDIDATE_CHARS = "。！？；.!?;\n"
_ABBREVIATIONS = frozenset(
    (
        *("mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "cf", "al"),
        *("fig", "figs", "no", "nos", "vol", "vols", "pp", "p", "ed", "eds", "inc", "ltd", "co", "corp"),
        *("dept", "approx", "est", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct"),
        *("nov", "dec", "art", "sec", "ch", "para", "ref", "eq", "u.s"),
    )
)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_LOWER_NEXT = re.compile(r"\s+[a-z]")


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Intervals (open, close) of matched bracket/quote pairs; a cut at p is forbidden if open < p <= close.

    A closer matches the nearest open bracket of its own kind; brackets opened above that one
    and still unclosed are abandoned (they protect nothing). One stack of positions per kind
    plus one overall order keeps this linear: every opener is pushed and dropped once.
    """
    if not _BRACKETS.search(text):
        return []
    order: list[tuple[str, int]] = []  # open brackets in document order: (kind, position)
    by_kind: dict[str, list[int]] = {kind: [] for kind in _OPEN_TO_CLOSE}  # indexes into ``order``
    spans: list[tuple[int, int]] = []
    for match in _BRACKETS.finditer(text):
        char, pos = match.group(), match.start()
        opener = _CLOSE_TO_OPEN.get(char)
        if opener is None:
            by_kind[char].append(len(order))
            order.append((char, pos))
            continue
        same = by_kind[opener]
        if not same:
            continue  # a closer nobody opened
        depth = same[-1]
        spans.append((order[depth][1], pos))
        for kind, _ in order[depth:]:  # drop the matched opener and everything opened after it
            by_kind[kind].pop()
        del order[depth:]
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
    """Cut positions (offsets just after the end) inside ``text`` with their strength, in order.

    A NEWLINE cut lies before the newline (the newline is whitespace between sentences).
    """
    ends: list[tuple[int, End]] = []
    if not any(char in text for char in _CANDIDATE_CHARS):
        return ends
    protected = protected_spans(text)
    at = 0  # first protected interval that may still contain a candidate (candidates come in order)
    for match in CANDIDATE.finditer(text):
        if match.group(3) is not None:
            pos, kind = match.start(), End.NEWLINE
        else:
            pos, kind = match.end(), End.SENTENCE
            if match.group(2) is not None and match.group(2)[0] == "." and _is_abbreviation(text, match.start()):
                continue
        while at < len(protected) and protected[at][1] < pos:
            at += 1
        if at < len(protected) and protected[at][0] < pos <= protected[at][1]:
            continue
        ends.append((pos, kind))
    return ends


def split_sentences(text: str, base: int = 0) -> list[Span]:
    """Split a text into sentence spans in document coordinates (``base`` = the text's offset).

    Leading/trailing whitespace is excluded from spans; the last span ends with End.BLOCK.
    """
    spans: list[Span] = []
    start = 0
    for pos, kind in sentence_ends(text):
        append_span(spans, text, start, pos, kind, base)
        start = pos
    append_span(spans, text, start, len(text), End.BLOCK, base)
    if spans:
        spans[-1].end_kind = End.BLOCK
    return spans


def sentence_pieces(text: str) -> list[str]:
    """The sentences of ``text`` as strings that join back to exactly ``text``.

    For callers that rebuild or quote text (prompt truncation, extractive answers,
    citations): the same cut points as :func:`split_sentences`, whitespace kept, a newline
    kept at the end of the line it closes.
    """
    pieces: list[str] = []
    start = 0
    for pos, kind in sentence_ends(text):
        cut = pos + 1 if kind is End.NEWLINE else pos
        if cut > start:
            pieces.append(text[start:cut])
            start = cut
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def append_span(spans: list[Span], text: str, start: int, end: int, kind: End, base: int) -> None:
    """Add text[start:end] without its surrounding whitespace; an all-blank piece strengthens the previous end."""
    while start < end and text[start].isspace():
        start += 1
    stop = end
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    if stop > start:
        spans.append(Span(base + start, base + stop, kind))
    elif spans and kind > spans[-1].end_kind:
        spans[-1].end_kind = kind
