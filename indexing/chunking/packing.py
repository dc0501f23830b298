"""Pack sentence units into chunks under a token budget, with sentence overlap.

Units are sentences (or whole paragraphs not yet split, whole list/code blocks, or pieces
of an over-long sentence), each with its token count and the strength of the boundary
after it. When the next unit does
not fit, the chunk is cut at the best boundary it contains:

1. the last paragraph end, if the chunk is at least half full there;
2. else the last sentence end (。！？；.!? or a paragraph end);
3. else the last line end;
4. else the last forced piece boundary (only inside a sentence longer than the budget);
5. else, as a last resort, the boundary after a heading: only when headings alone (a run of
   empty sections, thousands of them in a generated file) fill the budget, so that no chunk
   grows past it.

A boundary right after a heading is otherwise never used. Overlap: the next chunk starts with the
trailing whole sentences of the previous one, up to ``overlap_tokens``, and only when they
fit; overlap never starts inside a sentence and never follows a forced cut.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from officeqa.sentences import End


@dataclass(slots=True)
class Unit:
    start: int
    end: int
    tokens: int
    end_kind: End
    item: int  # index of the item (block) it comes from
    whole: bool = False  # a whole paragraph, not yet split into sentences (see ``pack``)
    sealed: bool = False  # cut between characters of a run: its tokens are padded to its budget (see ``forced.py``)


@dataclass(slots=True)
class Packed:
    units: list[Unit]
    overlap: list[Unit] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(u.tokens for u in self.units) + sum(u.tokens for u in self.overlap)

    @property
    def forced(self) -> bool:
        return self.units[-1].end_kind is End.FORCED


Expand = Callable[[Unit], list[Unit]]

_BLOCK_FULL, _SENTENCE, _LINE, _FORCED, _AFTER_HEADING = range(5)


def pack(units: list[Unit], budget: int, overlap_tokens: int = 0, expand: Expand | None = None) -> list[Packed]:
    """Group ``units`` into chunks of at most ``budget`` tokens.

    Paragraphs arrive ``whole`` (counted once, not split) and are expanded into their
    sentences by ``expand`` only where it matters: when one does not fit and the chunk
    cannot simply end before it at a paragraph end, and when the overlap needs the
    trailing sentences of the paragraph that ends a chunk. Most paragraphs are never
    split, which keeps chunking fast; the result equals splitting everything up front.
    """
    out: list[Packed] = []
    cur: list[Unit] = []
    cur_tokens = 0
    overlap: list[Unit] = []
    overlap_sum = 0
    queue = deque(units)
    while queue:
        unit = queue.popleft()
        while True:
            if overlap_sum + cur_tokens + unit.tokens <= budget:
                cur.append(unit)
                cur_tokens += unit.tokens
                break
            cut, rank = _cut_index(cur, overlap_sum, budget)
            if unit.whole and expand is not None and (unit.tokens > budget or rank != _BLOCK_FULL):
                queue.extendleft(reversed(expand(unit)))
                unit = queue.popleft()
                continue
            if cut is None:
                if overlap:
                    overlap, overlap_sum = [], 0
                    continue
                cur.append(unit)  # a unit that cannot be separated from what precedes it (after a heading)
                cur_tokens += unit.tokens
                break
            emitted, cur = cur[: cut + 1], cur[cut + 1 :]
            out.append(Packed(emitted, overlap))
            cur_tokens = sum(u.tokens for u in cur)
            overlap = _choose_overlap(emitted, overlap_tokens, expand)
            overlap_sum = sum(u.tokens for u in overlap)
            if overlap_sum + cur_tokens > budget:
                overlap, overlap_sum = [], 0
    if cur:
        out.append(Packed(cur, overlap))
    return out


def _cut_index(cur: list[Unit], offset: int, budget: int) -> tuple[int | None, int]:
    """(index of the unit after which to cut, rank of that boundary); (None, -1) if no boundary is allowed."""
    half = budget // 2
    best: list[int | None] = [None, None, None, None, None]
    acc = offset
    for idx, unit in enumerate(cur):
        acc += unit.tokens
        kind = unit.end_kind
        if kind is End.BLOCK:
            best[_SENTENCE] = idx
            if acc >= half:
                best[_BLOCK_FULL] = idx
        elif kind is End.SENTENCE:
            best[_SENTENCE] = idx
        elif kind is End.NEWLINE:
            best[_LINE] = idx
        elif kind is End.FORCED:
            best[_FORCED] = idx
        elif kind is End.NO_CUT and idx < len(cur) - 1:
            best[_AFTER_HEADING] = idx
    for rank, choice in enumerate(best):
        if choice is not None:
            return choice, rank
    return None, -1


def _choose_overlap(emitted: list[Unit], overlap_tokens: int, expand: Expand | None) -> list[Unit]:
    """Trailing whole sentences of ``emitted`` within ``overlap_tokens`` (never the whole chunk)."""
    if overlap_tokens <= 0 or emitted[-1].end_kind is End.FORCED:
        return []
    tail = emitted
    if emitted[-1].whole and emitted[-1].tokens > overlap_tokens and expand is not None:
        tail = emitted[:-1] + expand(emitted[-1])
    if len(tail) < 2:
        return []
    total = 0
    start = len(tail)
    for idx in range(len(tail) - 1, 0, -1):
        unit = tail[idx]
        if total + unit.tokens > overlap_tokens:
            break
        total += unit.tokens
        if tail[idx - 1].end_kind >= End.NEWLINE:  # a sentence starts at idx
            start = idx
    return tail[start:]


__all__ = ["Expand", "Packed", "Unit", "pack"]
