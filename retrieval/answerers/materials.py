"""The materials of a retrieval answer: what earlier answerers handed over, then the retrieved chunks.

Why shared: the model answerer and the extractive answerer read the same materials, and the
search runs once per question whichever of them answers (the hits are kept on the context).

A question of several asks inside a named scope ("which firm audited it, and what opinion did it give?") is
searched once as a whole and once per ask, and the hits are taken from each search in turn: one search for the
whole question ranks the chunks of the ask with the most words first, and the other ask's page (the audit
opinion, the CEO's signature) may fall below the cut, so the model would see only half of what it is asked.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from prompts.assembler import Material
from retrieval.answering import HitLike, material_from_hit
from retrieval.asks import split_asks
from retrieval.context import QuestionContext


def materials(ctx: QuestionContext) -> list[Material]:
    """``ctx.extra`` then one material per retrieved hit (searched on first use, inside the scope), each chunk once."""
    if ctx.hits is None:
        mark = time.monotonic()
        ctx.hits = _search(ctx)
        ctx.timings["retrieval_s"] = time.monotonic() - mark
        ctx.meta["retrieval"] = {"hits": len(ctx.hits), "chunk_ids": [h.chunk_id for h in ctx.hits]}
    found = [*ctx.extra, *(material_from_hit(h, ctx.tools.summary_of(h)) for h in ctx.hits)]
    return _once(found)


def _once(found: Sequence[Material]) -> list[Material]:
    """Each chunk once, where it first comes: two answerers may hand over the same section chunk (the headline
    summary and the summary tree both give an operations section's text), and retrieval may find it again; a
    copy would take the budget another material needs."""
    seen: set[str] = set()
    kept = []
    for material in found:
        if material.chunk_id not in seen:
            seen.add(material.chunk_id)
            kept.append(material)
    return kept


def _search(ctx: QuestionContext) -> list[HitLike]:
    """The question's hits; for several asks inside a named scope, the whole question's and each ask's in turn
    (outside one, an ask without the company's name would bring back other companies' pages)."""
    k = ctx.tools.settings.retrieval.top_k
    hits = list(ctx.tools.retrieve(ctx, ctx.standalone, k))
    asks = split_asks(ctx.standalone)
    if len(asks) < 2 or not ctx.scope.restricts:
        return hits
    per_ask = [list(ctx.tools.retrieve(ctx, ask, k)) for ask in asks]
    return in_turn([hits, *per_ask], k)


def in_turn(rankings: Sequence[Sequence[HitLike]], k: int) -> list[HitLike]:
    """At most ``k`` hits taken from each ranking in turn, each chunk once."""
    taken: list[HitLike] = []
    seen: set[str] = set()
    for depth in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if depth < len(ranking) and ranking[depth].chunk_id not in seen and len(taken) < k:
                seen.add(ranking[depth].chunk_id)
                taken.append(ranking[depth])
    return taken


__all__ = ["in_turn", "materials"]
