"""The default fusion weighs and scales the dense side by which model ranked it: the strong background model's
list min-max scaled with the neutral equal share, the fast model's scaled by cosine confidence with its small
share (one language); a rule, not a constant fitted on a set."""

from __future__ import annotations

import pytest

from officeqa.settings import RetrievalSettings
from retrieval.fusion import DENSE_SHARE, EQUAL_SHARE, fuse_hybrid, guarded_fusion
from retrieval.query_signals import QuerySignals, query_signals

# One language: BM25 reads the question and every candidate. BM25 has "a" and "b" nearly tied; the dense
# list puts "b" just ahead of "a", with the cosines packed in 0.80-0.86 (as e5's are).
BM25 = [("a", 10.0), ("b", 9.8), ("c", 4.0), ("d", 1.0)]
DENSE = [("b", 0.86), ("a", 0.85), ("c", 0.84), ("d", 0.80)]
SCRIPTS = {doc: "zh" for doc in "abcd"}


def signals(model: str) -> QuerySignals:
    return QuerySignals(script="zh", coverage=1.0, doc_scripts=SCRIPTS, dense_model=model)


def order(model: str) -> list[str]:
    return [doc for doc, _ in fuse_hybrid(BM25, DENSE, RetrievalSettings(), signals(model))]


def test_the_strong_models_list_reorders_bm25s_near_tie_the_fast_ones_does_not():
    assert order("fast")[:2] == ["a", "b"]  # b - a: 0.2 * 0.01 / 0.20 = 0.01 < BM25's lead 0.8 * 0.02
    assert order("strong")[:2] == ["b", "a"]  # min-max, equal shares: b - a = 0.5 * 0.167 > 0.5 * 0.02


def test_a_strong_list_is_min_max_scaled_with_an_equal_share():
    fused = fuse_hybrid(BM25, DENSE, RetrievalSettings(), signals("strong"))
    assert fused == guarded_fusion(BM25, DENSE, signals("strong"), depth=100, dense_share=EQUAL_SHARE)
    scores = dict(fused)
    assert scores["b"] == pytest.approx(0.5 * 9.8 / 10.0 + 0.5 * 1.0)  # BM25's short list is scaled from 0
    assert scores["a"] == pytest.approx(0.5 * 1.0 + 0.5 * (0.85 - 0.80) / (0.86 - 0.80))


def test_a_merged_list_and_the_default_signals_keep_the_fast_models_scaling():
    assert order("both") == order("fast")
    assert QuerySignals().dense_model == "fast"
    assert query_signals("问题", [3], 10, {"zh": 1.0}).dense_model == "fast"
    fast = fuse_hybrid(BM25, DENSE, RetrievalSettings(), signals("fast"))
    assert dict(fast)["b"] == pytest.approx(0.8 * 9.8 / 10.0 + 0.2 * (0.86 - 0.80) / (1.0 - 0.80))


def test_in_two_languages_both_models_are_min_max_scaled_the_strong_one_with_an_equal_share():
    mixed = {**SCRIPTS, "en": "en"}
    dense = [("en", 0.9), *DENSE]  # a candidate BM25 cannot read: the two-language branch
    for model, share in (("fast", DENSE_SHARE), ("strong", EQUAL_SHARE)):
        told = QuerySignals(script="zh", coverage=1.0, doc_scripts=mixed, dense_model=model)
        expected = guarded_fusion(BM25, dense, told, depth=100, dense_share=share, abstain=True)
        assert fuse_hybrid(BM25, dense, RetrievalSettings(), told) == expected
