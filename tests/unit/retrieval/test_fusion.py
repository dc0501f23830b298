"""Fusion with literal rankings: RRF arithmetic, weights, depth, stable ties, the hybrid guard, adaptive weights."""

from __future__ import annotations

import math

import pytest

from officeqa.settings import RetrievalSettings
from retrieval.fusion import (
    adaptive_fusion,
    bm25_readability,
    bm25_trust,
    fuse_hybrid,
    guarded_fusion,
    rrf,
    zscore_fusion,
)
from retrieval.query_signals import QuerySignals


def test_rrf_adds_reciprocal_ranks():
    fused = dict(rrf({"a": ["x", "y", "z"], "b": ["y", "x"]}, k=60))
    assert fused["x"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["z"] == pytest.approx(1 / 63)


def test_rrf_orders_best_first_with_stable_ties():
    fused = rrf({"a": ["x", "y", "z"], "b": ["y", "x"]}, k=60)
    assert [d for d, _ in fused] == ["x", "y", "z"]  # x and y tie; x was seen first


def test_rrf_weights_scale_each_retriever():
    fused = dict(rrf({"a": ["x"], "b": ["y"]}, weights={"a": 2.0, "b": 0.5}, k=0))
    assert fused == {"x": pytest.approx(2.0), "y": pytest.approx(0.5)}


def test_rrf_depth_ignores_deep_ranks():
    fused = dict(rrf({"a": ["x", "y", "z"], "b": ["z"]}, k=10, depth=2))
    assert "z" in fused and fused["z"] == pytest.approx(1 / 11)  # only from b
    assert fused["y"] == pytest.approx(1 / 12)


def test_rrf_counts_a_repeated_id_once():
    assert dict(rrf({"a": ["x", "x", "y"]}, k=0)) == {"x": pytest.approx(1.0), "y": pytest.approx(1 / 3)}


def test_rrf_of_nothing_is_empty():
    assert rrf({}) == []
    assert rrf({"a": []}) == []


def test_hybrid_returns_every_candidate_once():
    bm25 = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    dense = [("d", 0.9), ("a", 0.8), ("e", 0.1)]
    fused = fuse_hybrid(bm25, dense, RetrievalSettings())
    ids = [d for d, _ in fused]
    assert sorted(ids) == ["a", "b", "c", "d", "e"]
    assert ids[0] == "a"  # first in BM25 and second in dense
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)


def test_hybrid_with_one_empty_side_keeps_the_other_order():
    bm25 = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    assert [d for d, _ in fuse_hybrid(bm25, [], RetrievalSettings())] == ["a", "b", "c"]
    dense = [("x", 0.9), ("y", 0.5)]
    assert [d for d, _ in fuse_hybrid([], dense, RetrievalSettings())] == ["x", "y"]


def test_hybrid_is_deterministic():
    bm25 = [("a", 1.0), ("b", 1.0)]
    dense = [("b", 0.5), ("a", 0.5)]
    settings = RetrievalSettings()
    assert fuse_hybrid(bm25, dense, settings) == fuse_hybrid(bm25, dense, settings)


def test_zscore_fusion_standardises_each_list():
    fused = dict(zscore_fusion({"a": [("x", 3.0), ("y", 1.0)]}, depth=10))
    assert fused == {"x": pytest.approx(1.0), "y": pytest.approx(-1.0)}  # mean 2, sd 1


def test_zscore_fusion_pads_with_zeros_and_gives_missing_ids_the_floor():
    fused = dict(
        zscore_fusion(
            {"bm25": [("x", 4.0)], "dense": [("x", 0.5), ("y", 0.3)]},
            pad_to={"bm25": 4},
        )
    )
    # bm25 over [4, 0, 0, 0]: mean 1, sd sqrt(3); y is missing -> floor (0 - 1) / sqrt(3)
    # dense over [0.5, 0.3]: mean 0.4, sd 0.1 -> x +1, y -1
    assert fused["x"] == pytest.approx(3 / math.sqrt(3) + 1.0)
    assert fused["y"] == pytest.approx(-1 / math.sqrt(3) - 1.0)


def test_zscore_fusion_weights_and_depth():
    results = {"a": [("x", 2.0), ("y", 0.0), ("z", 100.0)], "b": [("y", 1.0), ("x", 0.0)]}
    fused = dict(zscore_fusion(results, weights={"a": 3.0, "b": 1.0}, depth=2))
    assert "z" not in fused  # beyond depth 2
    assert fused["x"] == pytest.approx(3 * 1.0 + 1 * -1.0)
    assert fused["y"] == pytest.approx(3 * -1.0 + 1 * 1.0)


def test_zscore_fusion_flat_or_empty_lists_contribute_nothing():
    fused = zscore_fusion({"a": [("x", 5.0), ("y", 5.0)], "b": []})
    assert fused == [("x", 0.0), ("y", 0.0)]


def spread(ids: list[str], high: float, low: float) -> list[tuple[str, float]]:
    """Evenly spaced scores from high to low: a list where nothing stands out."""
    step = (high - low) / (len(ids) - 1)
    return [(doc_id, high - i * step) for i, doc_id in enumerate(ids)]


def test_hybrid_confident_bm25_hit_beats_a_flat_dense_list():
    """An exact rare-term match (one BM25 hit far above the rest) is not drowned by a dense list without a winner."""
    others = [f"d{i}" for i in range(19)]
    bm25 = [("clause-17", 12.0), *spread(others, 2.0, 1.0)]
    dense = spread([*others[10:], "clause-17", *others[:10]], 0.45, 0.35)  # clause-17 mid-list
    fused = fuse_hybrid(bm25, dense, RetrievalSettings())
    assert fused[0][0] == "clause-17"


def test_hybrid_confident_dense_hit_beats_a_flat_bm25_list():
    """A clear semantic match wins over a BM25 list where every document matches about as well."""
    others = [f"d{i}" for i in range(19)]
    bm25 = spread([*others[:3], "para", *others[3:]], 1.1, 0.9)
    dense = [("para", 0.92), *spread(others, 0.35, 0.30)]
    fused = fuse_hybrid(bm25, dense, RetrievalSettings())
    assert fused[0][0] == "para"
    # The same lists under equal-weight RRF rank BM25's first document above it.
    assert fuse_hybrid(bm25, dense, RetrievalSettings(fusion="rrf"))[0][0] == "d0"


def test_zscore_fusion_softmax_turns_each_list_into_a_distribution():
    fused = dict(zscore_fusion({"a": [("x", 3.0), ("y", 1.0)]}, temperature=1.0))
    # z = +1 / -1 -> softmax: e / (e + 1/e)
    assert fused["x"] == pytest.approx(1 / (1 + math.exp(-2)))
    assert fused["x"] + fused["y"] == pytest.approx(1.0)


def test_zscore_fusion_softmax_counts_padding_and_floor():
    fused = dict(
        zscore_fusion({"bm25": [("x", 4.0)], "dense": [("y", 1.0), ("x", 0.0)]}, pad_to={"bm25": 4}, temperature=1.0)
    )
    zx, zpad = 3 / math.sqrt(3), -1 / math.sqrt(3)
    bm25_x = math.exp(zx) / (math.exp(zx) + 3 * math.exp(zpad))
    bm25_y = math.exp(zpad) / (math.exp(zx) + 3 * math.exp(zpad))  # y missing: the padding's share
    dense_y, dense_x = 1 / (1 + math.exp(-2)), 1 / (1 + math.exp(2))
    assert fused["x"] == pytest.approx(bm25_x + dense_x)
    assert fused["y"] == pytest.approx(bm25_y + dense_y)


def test_zscore_fusion_rejects_a_bad_temperature():
    with pytest.raises(ValueError):
        zscore_fusion({"a": [("x", 1.0)]}, temperature=0.0)


def test_hybrid_scores_are_a_mixture_in_unit_range():
    bm25 = [("a", 9.0), ("b", 1.0), ("c", 0.5)]
    dense = [("a", 0.9), ("b", 0.2), ("d", 0.1)]
    fused = fuse_hybrid(bm25, dense, RetrievalSettings(bm25_weight=3.0, dense_weight=1.0))
    assert all(0.0 <= score <= 1.0 for _, score in fused)
    assert [d for d, _ in fused][:2] == ["a", "b"]


def test_hybrid_score_threshold_drops_low_fused_scores():
    bm25 = [("a", 9.0), ("b", 1.0), ("c", 0.5)]
    dense = [("a", 0.9), ("b", 0.2), ("c", 0.1)]
    unfiltered = fuse_hybrid(bm25, dense, RetrievalSettings())
    cut = (unfiltered[0][1] + unfiltered[1][1]) / 2
    fused = fuse_hybrid(bm25, dense, RetrievalSettings(score_threshold=cut))
    assert [d for d, _ in fused] == ["a"]


# --- adaptive fusion: per-query weights from query-time signals -------------------------------------

def test_bm25_trust_follows_coverage_and_the_query_script_in_the_corpus():
    assert bm25_trust(QuerySignals()) == 1.0  # nothing known against BM25
    assert bm25_trust(QuerySignals(coverage=0.8)) == 1.0  # question words missing: still full trust
    assert bm25_trust(QuerySignals(coverage=0.25)) == pytest.approx(0.5)
    assert bm25_trust(QuerySignals(coverage=0.0)) == 0.0
    english_over_chinese = QuerySignals(script="en", corpus_scripts={"zh": 0.95, "en": 0.05}, coverage=0.25)
    assert bm25_trust(english_over_chinese) == pytest.approx(0.5 * 0.05 / 0.2)
    mixed_corpus = QuerySignals(script="en", corpus_scripts={"zh": 0.5, "en": 0.5}, coverage=1.0)
    assert bm25_trust(mixed_corpus) == 1.0


def test_adaptive_with_full_trust_is_the_equal_weight_softmax_mix():
    bm25 = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    dense = [("d", 0.9), ("a", 0.8), ("e", 0.1)]
    expected = zscore_fusion(
        {"bm25": bm25, "dense": dense}, weights={"bm25": 0.5, "dense": 0.5}, pad_to={"bm25": 3}, temperature=2.0
    )
    got = adaptive_fusion(bm25, dense, QuerySignals(), pad_bm25=3)
    assert [d for d, _ in got] == [d for d, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected])


def test_adaptive_lets_dense_lead_a_question_bm25_cannot_read():
    """An English question over Chinese documents: BM25 matched one stray word; the dense order stands."""
    bm25 = [("stray", 7.0)]
    dense = [("answer", 0.82), ("near", 0.80), ("stray", 0.40), ("far", 0.39)]
    signals = QuerySignals(script="en", corpus_scripts={"zh": 0.97, "en": 0.03}, coverage=0.1)
    assert [d for d, _ in adaptive_fusion(bm25, dense, signals)][:2] == ["answer", "near"]
    # The same lists fused as if BM25 could read the question put the stray match first.
    assert adaptive_fusion(bm25, dense, QuerySignals())[0][0] == "stray"


def test_adaptive_bm25_abstains_on_documents_in_another_script():
    """Mixed knowledge base: the Chinese answer to an English question is not pushed below English near-misses."""
    bm25 = [("en-near", 6.0), ("en-other", 5.5)]
    dense = [("zh-answer", 0.85), ("en-near", 0.70), ("en-other", 0.69), ("zh-far", 0.30)]
    scripts = {"zh-answer": "zh", "zh-far": "zh", "en-near": "en", "en-other": "en"}
    aware = QuerySignals(script="en", corpus_scripts={"zh": 0.5, "en": 0.5}, doc_scripts=scripts)
    blind = QuerySignals(script="en", corpus_scripts={"zh": 0.5, "en": 0.5})
    aware_order = [d for d, _ in adaptive_fusion(bm25, dense, aware)]
    blind_order = [d for d, _ in adaptive_fusion(bm25, dense, blind)]
    assert aware_order.index("zh-answer") < blind_order.index("zh-answer")
    assert aware_order.index("zh-answer") < aware_order.index("en-other")
    assert aware_order[-1] == "zh-far"  # abstaining is not promoting: dense still ranks it last


def test_adaptive_keeps_every_candidate_and_unit_range_scores():
    bm25 = [("a", 9.0), ("b", 1.0)]
    dense = [("c", 0.9), ("a", 0.2)]
    fused = adaptive_fusion(bm25, dense, QuerySignals(coverage=0.3))
    assert sorted(d for d, _ in fused) == ["a", "b", "c"]
    assert all(0.0 <= s <= 1.0 for _, s in fused)
    assert adaptive_fusion([], [], QuerySignals()) == []


def test_fuse_hybrid_dispatches_adaptive_with_signals():
    bm25 = [("stray", 7.0)]
    dense = [("answer", 0.82), ("stray", 0.40)]
    settings = RetrievalSettings(fusion="adaptive")
    signals = QuerySignals(script="en", corpus_scripts={"zh": 0.97, "en": 0.03}, coverage=0.1)
    assert fuse_hybrid(bm25, dense, settings, signals)[0][0] == "answer"
    assert fuse_hybrid(bm25, dense, settings)[0][0] == "stray"  # no signals: BM25 fully trusted


def test_adaptive_gives_no_share_to_an_embedder_that_cannot_read_the_corpus():
    """An English-only model over Chinese documents ranks at random: the BM25 order stands."""
    bm25 = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    dense = [("c", 0.95), *spread([f"d{i}" for i in range(20)], 0.30, 0.20), ("b", 0.19), ("a", 0.18)]
    english_only = QuerySignals(script="zh", corpus_scripts={"zh": 0.97, "en": 0.03}, dense_scripts=frozenset({"en"}))
    assert [d for d, _ in adaptive_fusion(bm25, dense, english_only)][:3] == ["a", "b", "c"]
    multilingual = QuerySignals(script="zh", corpus_scripts={"zh": 0.97, "en": 0.03})
    assert adaptive_fusion(bm25, dense, multilingual)[0][0] == "c"  # a trusted, confident dense hit wins


def test_adaptive_with_neither_side_readable_mixes_both_equally():
    signals = QuerySignals(script="en", corpus_scripts={"zh": 1.0}, coverage=0.0, dense_scripts=frozenset({"en"}))
    fused = adaptive_fusion([("a", 2.0)], [("b", 0.9), ("a", 0.1)], signals)
    assert sorted(d for d, _ in fused) == ["a", "b"]


# -- guarded: convex mix of min-max scaled scores, shares from the query's signals ------------------


def test_guarded_is_the_convex_mix_of_min_max_scaled_scores():
    bm25 = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    dense = [("d", 0.9), ("a", 0.8), ("e", 0.1)]
    fused = dict(guarded_fusion(bm25, dense, QuerySignals(), depth=3, dense_share=0.25))
    # BM25 full (3 = depth): (s - 1) / 8; dense: (s - 0.1) / 0.8; absent from a list: 0 there.
    assert fused["a"] == pytest.approx(0.75 * 1.0 + 0.25 * 0.875)
    assert fused["b"] == pytest.approx(0.75 * 0.5)
    assert fused["c"] == pytest.approx(0.0)
    assert fused["d"] == pytest.approx(0.25 * 1.0)
    assert fused["e"] == pytest.approx(0.0)


def test_guarded_scales_a_short_bm25_list_from_zero():
    """BM25 listed two documents of a deeper pool: every other document scores 0, so the second keeps its value."""
    fused = dict(guarded_fusion([("a", 4.0), ("b", 2.0)], [("x", 0.5), ("a", 0.4)], QuerySignals(), depth=10,
                                dense_share=0.0))
    assert fused["a"] == pytest.approx(1.0) and fused["b"] == pytest.approx(0.5) and fused["x"] == 0.0


def test_guarded_keeps_bm25_first_against_a_confident_weak_embedder():
    """The case that made adaptive lose to BM25: dense is sure of a wrong chunk; BM25's clear winner stays first."""
    bm25 = [("answer", 12.0), *spread([f"b{i}" for i in range(20)], 8.0, 6.0)]
    dense = [("wrong", 0.92), *spread([f"d{i}" for i in range(20)], 0.50, 0.45), ("answer", 0.44)]
    assert guarded_fusion(bm25, dense, QuerySignals())[0][0] == "answer"
    assert adaptive_fusion(bm25, dense, QuerySignals())[0][0] == "wrong"  # the softmax hands dense its top


def test_guarded_lets_dense_lead_a_question_bm25_cannot_read():
    bm25 = [("stray", 7.0)]
    dense = [("answer", 0.82), ("near", 0.80), ("stray", 0.40), ("far", 0.39)]
    signals = QuerySignals(script="en", corpus_scripts={"zh": 0.97, "en": 0.03}, coverage=0.1)
    assert [d for d, _ in guarded_fusion(bm25, dense, signals)][:2] == ["answer", "near"]
    assert guarded_fusion(bm25, dense, QuerySignals())[0][0] == "stray"


def test_bm25_readability_ignores_the_script_share_when_the_index_knows_the_terms():
    """An English question about the one English report in a Chinese knowledge base: BM25 reads it."""
    covered = QuerySignals(script="en", corpus_scripts={"zh": 0.86, "en": 0.14}, coverage=0.9)
    assert bm25_readability(covered) == 1.0
    assert bm25_trust(covered) == pytest.approx(0.7)  # adaptive's rule lowered it
    partial = QuerySignals(script="en", corpus_scripts={"zh": 0.97, "en": 0.03}, coverage=0.25)
    assert bm25_readability(partial) == pytest.approx(0.5 * 0.03 / 0.2)
    assert bm25_readability(QuerySignals(coverage=0.0)) == 0.0


def test_guarded_gives_no_share_to_an_embedder_that_cannot_read_the_corpus():
    bm25 = [("a", 9.0), ("b", 5.0), ("c", 1.0)]
    dense = [("c", 0.95), ("b", 0.19), ("a", 0.18)]
    english_only = QuerySignals(script="zh", corpus_scripts={"zh": 0.97, "en": 0.03}, dense_scripts=frozenset({"en"}))
    assert [d for d, _ in guarded_fusion(bm25, dense, english_only, dense_share=0.9)] == ["a", "b", "c"]


def test_guarded_rejects_a_share_outside_the_unit_interval_and_fuses_nothing_to_nothing():
    with pytest.raises(ValueError):
        guarded_fusion([], [], QuerySignals(), dense_share=1.5)
    assert guarded_fusion([], [], QuerySignals()) == []
