"""RM3 weights, the kept head and when feedback applies (retrieval/feedback.py), with literals."""

from __future__ import annotations

import pytest

from retrieval.feedback import ORIGINAL_WEIGHT, feedback_applies, keep_head, relevance_model
from retrieval.query_signals import QuerySignals


def test_the_query_and_the_feedback_each_carry_their_share() -> None:
    weights = relevance_model(["春运", "时间"], [(["春运", "1月17日", "1月17日", "铁路"], 3.0)], n_terms=10)
    query_part = {"春运": 0.25, "时间": 0.25}
    feedback_part = {"春运": 0.125, "1月17日": 0.25, "铁路": 0.125}
    for term in set(query_part) | set(feedback_part):
        assert weights[term] == pytest.approx(query_part.get(term, 0) + feedback_part.get(term, 0))
    assert sum(weights.values()) == pytest.approx(1.0)
    assert sum(query_part.values()) == ORIGINAL_WEIGHT


def test_a_higher_scoring_chunk_votes_more_and_only_the_best_terms_are_added() -> None:
    feedback = [(["开始", "一月"], 9.0), (["结束", "二月"], 1.0)]
    weights = relevance_model(["春运"], feedback, n_terms=2)
    assert set(weights) == {"春运", "开始", "一月"}
    assert weights["开始"] == pytest.approx(0.25)


def test_keep_head_keeps_the_first_chunks_in_order_above_the_rest() -> None:
    original = [("a", 9.0), ("b", 8.0), ("c", 7.0), ("d", 6.0)]
    expanded = [("x", 5.0), ("c", 4.0), ("d", 3.0), ("a", 1.0)]
    kept = keep_head(original, expanded, keep=3)
    assert [cid for cid, _ in kept] == ["a", "b", "c", "x", "d"]
    scores = [score for _, score in kept]
    assert scores == sorted(scores, reverse=True)  # a fusion that sorts by score keeps this order
    assert scores[:3] == [5.0, 5.0, 5.0]  # b is missing from the expanded list, a and c scored below x


def test_feedback_applies_only_where_bm25_reads_the_question() -> None:
    chinese = QuerySignals(script="zh", corpus_scripts={"zh": 0.95, "en": 0.05}, coverage=1.0, terms=4)
    assert feedback_applies(chinese, 20)
    assert not feedback_applies(chinese, 0)
    unknown_words = QuerySignals(script="zh", corpus_scripts={"zh": 0.95, "en": 0.05}, coverage=0.2, terms=4)
    assert not feedback_applies(unknown_words, 20)
    english_over_chinese = QuerySignals(script="en", corpus_scripts={"zh": 0.95, "en": 0.05}, coverage=0.9, terms=6)
    assert not feedback_applies(english_over_chinese, 20)
