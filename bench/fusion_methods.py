"""Published fusion methods to compare the product's against, as pure functions over two hit lists.

Each takes BM25's and the dense side's (chunk id, score) lists (best first, the top ``DEPTH``
of each, as ``rank_chunks`` fuses them) and returns one fused list. ``dense_rerank`` also needs
the dense score of any chunk (BM25's candidates are not all in the dense top 100), so it gets a
lookup. Sources: RRF (Cormack et al. 2009, k=60 and others), convex combination with min-max and
z-score normalisation (Bruch et al. 2023, "An Analysis of Fusion Functions for Hybrid Retrieval"),
CombSUM / CombMNZ (Fox and Shaw 1994, min-max normalised), and re-ranking BM25's top k by the
dense score (the retrieve-then-rerank pipeline).
"""

from __future__ import annotations

from collections.abc import Callable

from retrieval.fusion import DENSE_SHARE, bm25_readability, guarded_fusion, rrf
from retrieval.query_signals import QuerySignals

Hits = list[tuple[str, float]]


def _minmax(hits: Hits) -> dict[str, float]:
    if not hits:
        return {}
    values = [s for _, s in hits]
    low, high = min(values), max(values)
    span = high - low
    return {cid: ((s - low) / span if span > 0 else 1.0) for cid, s in hits}


def _z(hits: Hits) -> dict[str, float]:
    if not hits:
        return {}
    values = [s for _, s in hits]
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    return {cid: ((s - mean) / sd if sd > 0 else 0.0) for cid, s in hits}


def _ordered(scores: dict[str, float], order: list[str]) -> Hits:
    position = {cid: i for i, cid in enumerate(order)}
    return sorted(scores.items(), key=lambda item: (-item[1], position[item[0]]))


def rrf_k(k: int) -> Callable[[Hits, Hits], Hits]:
    def fuse(bm25: Hits, dense: Hits) -> Hits:
        return rrf({"bm25": [c for c, _ in bm25], "dense": [c for c, _ in dense]}, k=k)

    return fuse


def _max_scaled(hits: Hits) -> dict[str, float]:
    """Scores over the list's maximum: the theoretical-minimum normalisation for BM25 (its minimum is 0)."""
    top = max((s for _, s in hits), default=0.0)
    return {cid: (s / top if top > 0 else 0.0) for cid, s in hits}


def convex(norm: str, alpha: float) -> Callable[[Hits, Hits], Hits]:
    """alpha * dense + (1 - alpha) * bm25 after normalising each list; a missing id gets the list's minimum.

    ``norm``: ``minmax`` (both lists), ``z`` (both), ``tmm`` (BM25 over its maximum with 0 for a missing
    id, as Bruch et al.'s theoretical min-max; dense min-max).
    """
    normalise = _minmax if norm in ("minmax", "tmm") else _z

    def fuse(bm25: Hits, dense: Hits) -> Hits:
        nb = _max_scaled(bm25) if norm == "tmm" else normalise(bm25)
        nd = normalise(dense)
        floor_b = 0.0 if norm == "tmm" or not nb else min(nb.values())
        floor_d = min(nd.values()) if nd else 0.0
        order = list(dict.fromkeys([c for c, _ in bm25] + [c for c, _ in dense]))
        scores = {c: (1 - alpha) * nb.get(c, floor_b) + alpha * nd.get(c, floor_d) for c in order}
        return _ordered(scores, order)

    return fuse


def comb_mnz(bm25: Hits, dense: Hits) -> Hits:
    """Sum of min-max scores times the number of lists holding the id."""
    nb, nd = _minmax(bm25), _minmax(dense)
    order = list(dict.fromkeys([c for c, _ in bm25] + [c for c, _ in dense]))
    scores = {c: (nb.get(c, 0.0) + nd.get(c, 0.0)) * ((c in nb) + (c in nd)) for c in order}
    return _ordered(scores, order)


def dense_rerank(k: int) -> Callable[[Hits, Hits, Callable[[str], float]], Hits]:
    """BM25's top ``k`` re-ordered by dense score, then the rest of BM25's list; dense alone when BM25 is empty."""

    def fuse(bm25: Hits, dense: Hits, dense_score: Callable[[str], float]) -> Hits:
        if not bm25:
            return dense
        head = sorted(bm25[:k], key=lambda hit: -dense_score(hit[0]))
        return [(c, dense_score(c)) for c, _ in head] + list(bm25[k:])

    return fuse


def agreement_gated(bm25: Hits, dense: Hits, signals: QuerySignals, k: int = 10) -> Hits:
    """``guarded`` whose dense share is withdrawn when the two top-``k`` lists share no chunk.

    The query-time test of whether the dense list deserves weight: when BM25 reads the query
    (``bm25_readability`` 1) and the embedder's top ``k`` has nothing in common with BM25's, the two
    disagree about what the question is about, and the weaker side (usually the fast embedder) is
    more often the confused one. Cross-lingual queries (readability < 1) keep the guarded shares.
    """
    share = DENSE_SHARE
    if bm25_readability(signals) >= 1.0 and not {c for c, _ in bm25[:k]} & {c for c, _ in dense[:k]}:
        share = 0.0
    return guarded_fusion(bm25, dense, signals, dense_share=share)


def confidence_convex(alpha: float) -> Callable[[Hits, Hits, QuerySignals], Hits]:
    """Convex mix where a flat dense list has little say: dense scaled as (cos - floor) / (1 - floor).

    Min-max stretches any dense list to [0, 1], so a list whose cosines differ by noise decides as
    much as a confident one. Scaling by the distance to the cosine's theoretical maximum (1) keeps the
    list's own spread: the per-query signal of how sure the embedder is. BM25 is scaled as in
    ``guarded``; shares follow ``bm25_readability`` and ``dense_trust`` as there.
    """

    def fuse(bm25: Hits, dense: Hits, signals: QuerySignals) -> Hits:
        w_bm25 = (1.0 - alpha) * bm25_readability(signals)
        w_dense = alpha * signals.dense_trust
        total = w_bm25 + w_dense or 1.0
        floor_b = None if len(bm25) >= 100 else 0.0
        nb = _minmax(bm25) if floor_b is None else _max_scaled(bm25)
        low = min((s for _, s in dense), default=0.0)
        nd = {c: (s - low) / max(1e-9, 1.0 - low) for c, s in dense}
        order = list(dict.fromkeys([c for c, _ in bm25] + [c for c, _ in dense]))
        scores = {c: (w_bm25 * nb.get(c, 0.0) + w_dense * nd.get(c, 0.0)) / total for c in order}
        return _ordered(scores, order)

    return fuse
