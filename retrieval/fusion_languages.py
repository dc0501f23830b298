"""The two languages of a bilingual knowledge base in the hybrid's order: pure functions over (id, score) lists.

Why a module of their own: BM25 matches terms, so it cannot judge a chunk written in another script than the
question; where a knowledge base holds both languages (a team keeping English and Chinese paragraphs of the same
articles together), those chunks are ranked by the dense side alone, and the BM25 feedback terms move only the
chunks of the question's language. ``retrieval/fusion.py`` decides when (``guarded_abstain``); the XQuAD mixed
set (``eval/datasets.xquad_mixed_set``) measures it (``bench/results/fusion_sets.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.query_signals import QuerySignals

Scored = Sequence[tuple[str, float]]


def cross_language_order(ranked: Scored, head_d: Scored, signals: QuerySignals) -> list[tuple[str, float]]:
    """In a knowledge base of two languages, the other language's candidates ranked by dense alone: BM25 has no say.

    Why: BM25 cannot see a chunk in another script, so any score it gives it (0, or the dense value standing in)
    puts it below or above every same-language chunk for a reason that is not the question: the XQuAD
    paragraphs in English and Chinese in one corpus, hybrid Recall@10 0.914 against dense alone 0.930.
    The two languages' lists are interleaved: the same-language chunks in the fused order, the other-language
    ones in dense's order, one each in turn, so each language's best candidates reach the result page.
    Always, not only when BM25's first chunk is among dense's first same-language candidates (the previous
    rule, with 3): on the tuning halves interleaving always gave xquad_mixed 0.9048 / 0.9552 nDCG@10 /
    Recall@10 against 0.8959 / 0.9372 and mlqa_mixed 0.7484 / 0.8056 against 0.7301 / 0.7723, above 5 and 10
    (``bench/results/fusion_sets.md``); the annual reports the agreement test once protected are no
    bilingual knowledge base by ``fusion._reads_own_language`` (13 % English) and never reach here. Placing the
    other language at dense's own ranks, or scoring it by dense alone against a per-language min-max, reached
    more Recall@10 on mlqa_mixed (0.797-0.820) but less nDCG@10 on both sets; two same-language chunks per
    other-language one lost on both.
    Scores are the fused list's own, slot by slot (the order changes, the scale does not).
    """
    other = [doc_id for doc_id, _ in head_d if signals.unreadable_by_bm25(doc_id)]
    if not other:
        return list(ranked)
    taken = set(other)
    same = iter([doc_id for doc_id, _ in ranked if doc_id not in taken])
    others = iter(other)
    order: list[str] = []
    for pair in zip(same, others, strict=False):
        order.extend(pair)
    order.extend(same)
    order.extend(others)
    placed = set(order)
    order += [doc_id for doc_id, _ in ranked if doc_id not in placed]
    return [(doc_id, score) for doc_id, (_, score) in zip(order, ranked, strict=True)]


def same_language_rerank(plain: Scored, reranked: Scored, signals: QuerySignals) -> list[tuple[str, float]]:
    """``reranked`` (the fusion with feedback, ``retrieval/feedback.py``) moving only same-language chunks:
    each other-language chunk keeps its place in ``plain``, the other places are filled in ``reranked``'s order.

    Why: the feedback terms are the first BM25 hits' words, all in the question's language; they know nothing
    of the other language's candidates, so they may not move them (``bench/results/fusion_sets.md``)."""
    other = {doc_id for doc_id, _ in plain if signals.unreadable_by_bm25(doc_id)}
    if not other:
        return list(reranked)
    fill = iter([item for item in reranked if item[0] not in other])
    out: list[tuple[str, float]] = []
    for doc_id, score in plain:
        if doc_id in other:
            out.append((doc_id, score))
        elif (item := next(fill, None)) is not None:
            out.append((item[0], score))
    floor = out[-1][1] if out else 0.0
    out += [(doc_id, min(score, floor)) for doc_id, score in fill]
    return out


__all__ = ["cross_language_order", "same_language_rerank"]
