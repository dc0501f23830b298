"""guarded_abstain, the default fusion: BM25 abstains on other-language candidates only when both lists agree."""

from __future__ import annotations

import pytest

from officeqa.settings import RetrievalSettings
from retrieval.fusion import fuse_hybrid, guarded_fusion, lists_agree
from retrieval.query_signals import QuerySignals

# A Chinese question over a knowledge base holding Chinese and English documents: "zh-answer" is the
# Chinese paragraph, "en-answer" its English version, which BM25 cannot match (no shared terms).
SCRIPTS = {"zh-answer": "zh", "zh-other": "zh", "zh-far": "zh", "en-answer": "en", "en-other": "en"}
SIGNALS = QuerySignals(script="zh", corpus_scripts={"zh": 0.5, "en": 0.5}, coverage=1.0, doc_scripts=SCRIPTS)
BM25 = [("zh-answer", 12.0), ("zh-other", 6.0), ("zh-far", 5.0)]


def test_an_answer_in_the_other_language_rises_when_the_lists_agree():
    dense = [("en-answer", 0.80), ("zh-answer", 0.78), ("en-other", 0.50), ("zh-other", 0.45)]
    fused = [doc for doc, _ in guarded_fusion(BM25, dense, SIGNALS, depth=10, abstain=True)]
    assert set(fused[:2]) == {"zh-answer", "en-answer"}
    plain = [doc for doc, _ in guarded_fusion(BM25, dense, SIGNALS, depth=10)]
    assert plain.index("en-answer") > plain.index("zh-far")  # BM25's 0 buried it below every Chinese hit


def test_the_abstention_takes_the_dense_value_for_bm25s_share():
    dense = [("en-answer", 0.80), ("zh-answer", 0.78), ("en-other", 0.50), ("zh-other", 0.40)]
    fused = dict(guarded_fusion(BM25, dense, SIGNALS, depth=10, dense_share=0.2, abstain=True))
    # dense min-max over 0.40..0.80: en-answer 1.0, en-other 0.25; both take it on BM25's side too.
    assert fused["en-answer"] == pytest.approx(1.0)
    assert fused["en-other"] == pytest.approx(0.25)
    assert fused["zh-far"] == pytest.approx(0.8 * 5.0 / 12.0)  # a short BM25 list is scaled from 0


def test_no_abstention_when_the_dense_side_does_not_rank_bm25s_best():
    """The embedder reads the question otherwise than BM25 (a weak embedder): its other-language pick stays low."""
    dense = [("en-answer", 0.80), ("en-other", 0.70)] + [(f"zh-{i}", 0.6 - i / 100) for i in range(10)]
    dense.append(("zh-answer", 0.2))
    assert not lists_agree(BM25, dense)
    plain = guarded_fusion(BM25, dense, SIGNALS, depth=10)
    assert guarded_fusion(BM25, dense, SIGNALS, depth=10, abstain=True) == plain


def test_lists_agree_looks_at_the_dense_top_ten_only():
    dense = [(f"d{i}", 1.0 - i / 100) for i in range(20)]
    assert lists_agree([("d9", 3.0)], dense)
    assert not lists_agree([("d10", 3.0)], dense)
    assert not lists_agree([], dense)


def test_a_same_language_document_missing_from_bm25_gets_no_abstention():
    """BM25 read it and did not rank it: its 0 is a judgement, not an abstention."""
    dense = [("zh-answer", 0.9), ("zh-unranked", 0.85), ("zh-other", 0.3)]
    signals = QuerySignals(script="zh", coverage=1.0, doc_scripts={**SCRIPTS, "zh-unranked": "zh"})
    fused = dict(guarded_fusion(BM25, dense, signals, depth=10, dense_share=0.2, abstain=True))
    assert fused["zh-unranked"] == pytest.approx(0.2 * (0.85 - 0.3) / (1.0 - 0.3))


def test_in_one_language_a_flat_dense_list_cannot_reorder_bm25():
    """Cosines that differ by noise: min-max (guarded) stretches them to [0, 1] and swaps BM25's near-ties;
    scaled against the cosine's maximum (guarded_abstain in one language) they barely count."""
    bm25 = [("a", 10.0), ("b", 9.9), ("c", 2.0)]
    dense = [("b", 0.56), ("c", 0.555), ("a", 0.55)]
    signals = QuerySignals(script="zh", coverage=1.0, doc_scripts={"a": "zh", "b": "zh", "c": "zh"})
    assert [d for d, _ in guarded_fusion(bm25, dense, signals, depth=10)][:2] == ["b", "a"]
    assert [d for d, _ in guarded_fusion(bm25, dense, signals, depth=10, abstain=True)][:2] == ["a", "b"]


def test_in_one_language_a_confident_dense_list_still_lifts_its_pick():
    bm25 = [("a", 10.0), ("b", 9.9), ("c", 2.0)]
    dense = [("b", 0.95), ("a", 0.30), ("c", 0.25)]
    signals = QuerySignals(script="zh", coverage=1.0, doc_scripts={"a": "zh", "b": "zh", "c": "zh"})
    assert guarded_fusion(bm25, dense, signals, depth=10, abstain=True)[0][0] == "b"


def test_the_default_hybrid_is_guarded_abstain():
    dense = [("en-answer", 0.80), ("zh-answer", 0.78), ("en-other", 0.50), ("zh-other", 0.45)]
    assert RetrievalSettings().fusion == "guarded_abstain"
    assert fuse_hybrid(BM25, dense, RetrievalSettings(), SIGNALS) == guarded_fusion(BM25, dense, SIGNALS, abstain=True)
    previous = RetrievalSettings(fusion="guarded")
    assert fuse_hybrid(BM25, dense, previous, SIGNALS) == guarded_fusion(BM25, dense, SIGNALS)
