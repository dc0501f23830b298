"""Retrieval metrics against hand-computed values (binary relevance, log2 discount)."""

from __future__ import annotations

import math

import pytest

from eval.retrieval_metrics import evaluate, mrr_at_k, ndcg_at_k, recall_at_k


def test_ndcg_single_gold_at_rank_three():
    # DCG = 1/log2(4) = 0.5; ideal = 1/log2(2) = 1
    assert ndcg_at_k(["a", "b", "g"], {"g"}, 10) == pytest.approx(0.5)


def test_ndcg_two_gold_ideal_over_min_gold_and_k():
    ranking = ["g1", "x", "g2"]
    dcg = 1.0 + 1.0 / math.log2(4)
    ideal = 1.0 + 1.0 / math.log2(3)
    assert ndcg_at_k(ranking, {"g1", "g2"}, 10) == pytest.approx(dcg / ideal)
    # k = 1: ideal DCG over min(2, 1) = 1 document
    assert ndcg_at_k(ranking, {"g1", "g2"}, 1) == pytest.approx(1.0)


def test_ndcg_gold_beyond_cutoff_counts_nothing():
    assert ndcg_at_k(["a", "b", "g"], {"g"}, 2) == 0.0


def test_recall_is_share_of_gold_found():
    assert recall_at_k(["g1", "x", "g2"], {"g1", "g2", "g3"}, 2) == pytest.approx(1 / 3)
    assert recall_at_k(["g1", "x", "g2"], {"g1", "g2", "g3"}, 3) == pytest.approx(2 / 3)


def test_mrr_uses_first_relevant_rank_within_k():
    assert mrr_at_k(["x", "g", "g2"], {"g", "g2"}, 10) == pytest.approx(0.5)
    assert mrr_at_k(["x", "y", "g"], {"g"}, 2) == 0.0


def test_duplicate_ids_in_a_ranking_count_once():
    assert recall_at_k(["g", "g", "x"], {"g", "h"}, 2) == pytest.approx(0.5)
    assert ndcg_at_k(["x", "x", "g"], {"g"}, 10) == pytest.approx(1 / math.log2(3))


def test_evaluate_averages_over_queries_with_gold():
    run = {"q1": ["g1", "x"], "q2": ["x", "y", "g2"], "q3": ["a"]}
    gold = {"q1": {"g1"}, "q2": {"g2"}, "q3": set(), "q4": {"g4"}}  # q3 skipped; q4 unanswered
    result = evaluate(run, gold)
    assert result["queries"] == 3
    assert result["ndcg@10"] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    assert result["recall@1"] == pytest.approx(1 / 3)
    assert result["recall@5"] == pytest.approx(2 / 3)
    assert result["recall@100"] == pytest.approx(2 / 3)
    assert result["mrr@10"] == pytest.approx((1.0 + 1 / 3) / 3)


def test_evaluate_of_no_queries_is_zero():
    assert evaluate({}, {})["ndcg@10"] == 0.0
