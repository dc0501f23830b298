"""The materials of a retrieval answer: what earlier answerers handed over, then the retrieved chunks.

Why shared: the model answerer and the extractive answerer read the same materials, and the
search runs once per question whichever of them answers (the hits are kept on the context).
"""

from __future__ import annotations

import time

from prompts.assembler import Material
from retrieval.answering import material_from_hit
from retrieval.context import QuestionContext


def materials(ctx: QuestionContext) -> list[Material]:
    """``ctx.extra`` then one material per retrieved hit (searched on first use, inside the scope)."""
    if ctx.hits is None:
        mark = time.monotonic()
        ctx.hits = list(ctx.tools.retrieve(ctx, ctx.standalone, ctx.tools.settings.retrieval.top_k))
        ctx.timings["retrieval_s"] = time.monotonic() - mark
        ctx.meta["retrieval"] = {"hits": len(ctx.hits), "chunk_ids": [h.chunk_id for h in ctx.hits]}
    return [*ctx.extra, *(material_from_hit(h, ctx.tools.summary_of(h)) for h in ctx.hits)]


__all__ = ["materials"]
