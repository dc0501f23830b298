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


SAME_LANGUAGE_AGREEMENT = 3
"""Dense's first same-language candidates among which BM25's first chunk must be for the other language's
candidates to be interleaved (:func:`cross_language_order`). Chosen on the tuning halves of xquad_mixed and
annual_pages (1, 2, 3, 5, 10 measured; ``bench/results/fusion_sets.md``): 1-2 leave xquad_mixed below dense
alone, 5 and more lower the annual reports, where the English report's pages are never the answer to a
Chinese question."""


def cross_language_order(ranked: Scored, head_b: Scored, head_d: Scored, signals: QuerySignals) -> list[
        tuple[str, float]]:
    """In a knowledge base of two languages, the other language's candidates ranked by dense alone: BM25 has no say.

    Why: BM25 cannot see a chunk in another script, so any score it gives it (0, or the dense value standing in)
    puts it below or above every same-language chunk for a reason that is not the question: the XQuAD
    paragraphs in English and Chinese in one corpus, hybrid Recall@10 0.914 against dense alone 0.930.
    When the dense side reads the question as BM25 does in the language BM25 reads (BM25's first chunk is among
    dense's first :data:`SAME_LANGUAGE_AGREEMENT` same-language candidates), the two languages' lists are
    interleaved: the same-language chunks in the fused order, the other-language ones in dense's order, one
    each in turn, so each language's best candidates reach the result page. Otherwise dense is not trusted
    to bridge languages on this question and the plain fusion stands (the other language's chunks low).
    Scores are the fused list's own, slot by slot (the order changes, the scale does not).
    """
    other = [doc_id for doc_id, _ in head_d if signals.unreadable_by_bm25(doc_id)]
    same_dense = [doc_id for doc_id, _ in head_d if not signals.unreadable_by_bm25(doc_id)]
    if not other or not head_b or head_b[0][0] not in same_dense[:SAME_LANGUAGE_AGREEMENT]:
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


__all__ = ["SAME_LANGUAGE_AGREEMENT", "cross_language_order", "same_language_rerank"]
