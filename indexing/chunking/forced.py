"""Cutting a sentence that alone is longer than the token budget (the only cut inside a sentence).

Why a module of its own: prose (``document.py``) and over-long table rows (``tables.py``)
need the same cut, and it is where hostile text ends up -- a 100 MB line of one letter, 10 MB
of Chinese without punctuation, a base64 blob -- so it must stay linear and bounded whatever
the text: every piece it returns is within the budget.

Order of preference: at inner punctuation (sentence ends inside quotes, colons, dot leaders,
closing brackets), then after commas and at spaces, then inside a run of characters. A cut
inside a run is placed where token counts stay additive (:func:`officeqa.tokens.snap_cut`),
so the pieces' counts add up to the count of any stretch of them and the chunk's token count
stays exact. Only when the budget is smaller than the smallest such piece (a budget below
about 200 tokens on a long run of letters) is a run cut between arbitrary characters; that
piece is ``sealed``: its count is padded to the budget so that nothing else joins its chunk,
and the chunker recounts the chunk's text at the end.
"""

from __future__ import annotations

from indexing.chunking.packing import Unit, pack
from indexing.chunking.sentences import forced_pieces
from officeqa.sentences import End
from officeqa.tokens import TokenCounter, snap_cut

__all__ = ["force_split", "hard_split"]

_SHRINK = 0.8  # a piece above the budget is retried at this share of its length


def force_split(
    text: str, start: int, end: int, end_kind: End, budget: int, counter: TokenCounter, item: int = 0
) -> list[Unit]:
    """``text[start:end]`` as units of at most ``budget`` tokens (FORCED ends; the last keeps ``end_kind``).

    An empty or blank stretch gives no units (a table cell whose header alone is above the budget
    and whose value is empty reaches here with nothing to cut).
    """
    small: list[Unit] = []
    for piece, tokens in _pieces(text, start, end, counter, soft=False):
        if tokens <= budget:
            small.append(Unit(piece.start, piece.end, tokens, piece.end_kind, item))
            continue
        for sub, sub_tokens in _pieces(text, piece.start, piece.end, counter, soft=True):
            if sub_tokens <= budget:
                small.append(Unit(sub.start, sub.end, sub_tokens, sub.end_kind, item))
            else:
                small.extend(hard_split(text, sub.start, sub.end, budget, counter, item))
    merged = [
        Unit(p.units[0].start, p.units[-1].end, p.tokens, End.FORCED, item, sealed=any(u.sealed for u in p.units))
        for p in pack(small, budget)
    ]
    if merged:
        merged[-1].end_kind = end_kind
    return merged


def _pieces(text: str, start: int, end: int, counter: TokenCounter, soft: bool) -> list[tuple[Unit, int]]:
    pieces = forced_pieces(text[start:end], start, soft=soft)
    counts = counter.count_many([text[p.start : p.end] for p in pieces])
    return [(Unit(p.start, p.end, c, p.end_kind, 0), c) for p, c in zip(pieces, counts, strict=True)]


def hard_split(text: str, start: int, end: int, budget: int, counter: TokenCounter, item: int = 0) -> list[Unit]:
    """Cuts inside a stretch with no punctuation or space, each piece within ``budget`` tokens.

    Linear: each piece is found from a guess of ``budget`` characters (a token covers at least
    one character, except where normalisation expands characters), shrunk while too large.
    """
    out: list[Unit] = []
    pos = start
    while pos < end:
        cut, tokens = _additive_piece(text, pos, end, budget, counter)
        if cut > pos:
            out.append(Unit(pos, cut, tokens, End.FORCED, item))
        else:
            cut, tokens = _any_piece(text, pos, end, budget, counter)
            out.append(Unit(pos, cut, max(tokens, budget), End.FORCED, item, sealed=True))
        pos = cut
    return out


def _additive_piece(text: str, pos: int, end: int, budget: int, counter: TokenCounter) -> tuple[int, int]:
    """(cut, tokens) of the longest additive piece from ``pos`` found within the budget; cut == pos if none."""
    length = min(budget, end - pos)
    while length > 0:
        cut = snap_cut(counter, text, pos, pos + length, end)
        if cut <= pos:
            return pos, 0
        tokens = counter.count(text[pos:cut])
        if tokens <= budget:
            return cut, tokens
        length = min(cut - pos - 1, int(length * _SHRINK))
    return pos, 0


def _any_piece(text: str, pos: int, end: int, budget: int, counter: TokenCounter) -> tuple[int, int]:
    """(cut, tokens) of the longest piece within the budget, cut between any two characters (at least one)."""
    length = min(budget, end - pos)
    tokens = counter.count(text[pos : pos + length])
    while tokens > budget and length > 1:
        length = max(1, int(length * _SHRINK))
        tokens = counter.count(text[pos : pos + length])
    return pos + length, tokens
