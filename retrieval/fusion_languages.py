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


OTHER_LANGUAGE_RANK = 5
"""Dense's first candidates among which one in the other language must be for the two languages to be interleaved
(:func:`other_language_high`; chosen on the tuning halves of xquad_mixed, mlqa_mixed and the 16 reports)."""


def other_language_high(head_d: Scored, signals: QuerySignals) -> bool:
    """True when dense ranks a candidate BM25 cannot read (another script) among its first :data:`OTHER_LANGUAGE_RANK`.

    Why: a knowledge base keeping the same articles in both languages has the answer's translation next to it in
    dense's list (XQuAD, MLQA mixed: the first other-language candidate is in dense's first 3 for 85 % and 78 % of
    the tuning questions); a knowledge base of different documents in two languages (16 annual reports, 2 of
    them Chinese: 26 % Chinese words) has it there for 22 %, and there the other language's pages are never the
    answer: gold page in the top 10 for 54 of 108 tuning questions when interleaving always, 59 with this test
    (58 before). 5 was chosen on the tuning halves (1-4, 7, 10 and always measured; ``bench/results/fusion_sets.md``):
    below 5 xquad_mixed loses Recall@10, above it the reports lose their pages."""
    return any(signals.unreadable_by_bm25(doc_id) for doc_id, _ in head_d[:OTHER_LANGUAGE_RANK])


def cross_language_order(ranked: Scored, head_d: Scored, signals: QuerySignals) -> list[tuple[str, float]]:
    """In a knowledge base of two languages, the other language's candidates ranked by dense alone: BM25 has no say.

    Why: BM25 cannot see a chunk in another script, so any score it gives it (0, or the dense value standing in)
    puts it below or above every same-language chunk for a reason that is not the question: the XQuAD
    paragraphs in English and Chinese in one corpus, hybrid Recall@10 0.914 against dense alone 0.930.
    The two languages' lists are interleaved: the same-language chunks in the fused order, the other-language
    ones in dense's order, one each in turn, so each language's best candidates reach the result page.
    The caller (``fusion.guarded_fusion``) calls it where dense ranks an other-language candidate high
    (:func:`other_language_high`), whether or not BM25's first chunk is among dense's first same-language
    candidates (the previous rule, with 3): on the tuning halves xquad_mixed 0.8959 / 0.9372 nDCG@10 / Recall@10
    -> 0.9048 / 0.9552 and mlqa_mixed 0.7301 / 0.7723 -> 0.7427 / 0.8004 (``bench/results/fusion_sets.md``).
    Placing the other language at dense's own ranks, or scoring it by dense alone against a per-language
    min-max, reached more Recall@10 on mlqa_mixed (0.797-0.820) but less nDCG@10 on both sets; two
    same-language chunks per other-language one lost on both.
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


__all__ = ["OTHER_LANGUAGE_RANK", "cross_language_order", "other_language_high", "same_language_rerank"]
