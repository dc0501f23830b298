"""Page diversity for the first hits of a search over paged documents.

Why: a chunk is a part of a page, so a page that matches a question well (a key-figures table, a share-capital
table) fills two to four of the ten places with its own chunks; the ten hits then show seven to nine pages, and a
page that ranks for every question crowds the asked page out. A reader (and the gold-page measure) wants distinct
pages, yet a page's second chunk is often the evidence itself (the table under the sentence that announces it).
So a further chunk of a page already among the hits is not dropped but moves ``gap`` places down per earlier
chunk of that page (an MMR-like penalty on rank, by (document, page)): the next distinct pages come first, and
the held-back chunk still follows close behind. Chunks without a page or slide number (plain text, markdown) are
never moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class _Hit(Protocol):
    doc_id: str
    metadata: dict[str, object]


H = TypeVar("H", bound=_Hit)


def page_key(hit: _Hit) -> tuple[str, str, int] | None:
    """(document, "page"/"slide", number) of the hit's first page, or None for a chunk of an unpaged document."""
    for name in ("page", "slide"):
        value = hit.metadata.get(name)
        if isinstance(value, int | float | str) and str(value).lstrip("-").isdigit():
            return hit.doc_id, name, int(value)
    return None


def _places(hits: Sequence[_Hit], gap: int) -> list[int]:
    """Each hit's place after the penalty: its rank plus ``gap`` per earlier hit of its page."""
    counts: dict[tuple[str, str, int], int] = {}
    places = []
    for rank, hit in enumerate(hits):
        key = page_key(hit)
        earlier = counts.get(key, 0) if key is not None else 0
        if key is not None:
            counts[key] = earlier + 1
        places.append(rank + gap * earlier)
    return places


def page_diverse(hits: Sequence[H], gap: int) -> list[H]:
    """``hits`` reordered by :func:`_places` (ties keep rank order; 0: unchanged). Pure: tested with literal
    hits."""
    if gap <= 0:
        return list(hits)
    places = _places(hits, gap)
    return [hits[i] for i in sorted(range(len(hits)), key=lambda i: (places[i], i))]


def settled(hits: Sequence[_Hit], gap: int) -> int:
    """How many of :func:`page_diverse`'s first places are final: a hit not fetched yet ranks at ``len(hits)`` or
    below, so only the places above that are sure (the search fetches more candidates until ``k`` are)."""
    if gap <= 0:
        return len(hits)
    return sum(place < len(hits) for place in _places(hits, gap))
