"""guarded_abstain, the default fusion: in a bilingual knowledge base BM25 has no say over the other language's
candidates (interleaved in dense order); elsewhere BM25 abstains
on other-language candidates only when both lists agree."""

from __future__ import annotations

import pytest

from officeqa.settings import RetrievalSettings
from retrieval.fusion import fuse_hybrid, guarded_fusion, lists_agree
from retrieval.fusion_languages import same_language_rerank
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


def test_the_other_languages_candidates_are_interleaved_in_dense_order_bm25_has_no_say():
    dense = [("en-other", 0.82), ("en-answer", 0.80), ("zh-answer", 0.78), ("zh-other", 0.40)]
    fused = guarded_fusion(BM25, dense, SIGNALS, depth=10, dense_share=0.2, abstain=True)
    # same language in the fused order (BM25's), the other language in dense's order, one each in turn
    assert [d for d, _ in fused] == ["zh-answer", "en-other", "zh-other", "en-answer", "zh-far"]
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)  # the slots keep the fused scale
    assert scores[0] == pytest.approx(0.8 + 0.2 * (0.78 - 0.40) / (0.82 - 0.40))


def test_interleaved_even_when_bm25s_best_is_not_among_dense_first_same_language_candidates():
    """BM25 has no say over the other language whether or not the two lists agree in the question's language."""
    dense = [("en-answer", 0.80)] + [(f"zh-{i}", 0.7 - i / 100) for i in range(3)] + [("zh-answer", 0.3)]
    signals = QuerySignals(script="zh", corpus_scripts={"zh": 0.5, "en": 0.5}, coverage=1.0,
                           doc_scripts={**SCRIPTS, **{f"zh-{i}": "zh" for i in range(3)}})
    fused = [d for d, _ in guarded_fusion(BM25, dense, signals, depth=10, abstain=True)]
    plain = [d for d, _ in guarded_fusion(BM25, dense, signals, depth=10)]
    assert plain.index("en-answer") > plain.index("zh-far")  # without the rule: below every Chinese hit
    assert fused[:2] == ["zh-answer", "en-answer"]


def test_an_english_question_over_chinese_documents_keeps_the_abstention_rule():
    """BM25 cannot read the question in its own language there (the script is rare in the corpus): no interleaving,
    the lists-agree abstention as before."""
    signals = QuerySignals(script="en", corpus_scripts={"zh": 0.95, "en": 0.05}, coverage=1.0,
                           doc_scripts={"zh-a": "zh", "zh-b": "zh", "en-a": "en"})
    bm25 = [("en-a", 3.0)]
    dense = [("zh-a", 0.6), ("en-a", 0.55), ("zh-b", 0.5)]
    fused = dict(guarded_fusion(bm25, dense, signals, depth=10, dense_share=0.2, abstain=True))
    assert fused["zh-a"] == pytest.approx(1.0)  # abstained: its dense value stands in for BM25's 0


def test_feedback_moves_only_the_questions_language():
    plain = [("zh-a", 0.9), ("en-a", 0.8), ("zh-b", 0.7), ("en-b", 0.6)]
    reranked = [("en-b", 0.95), ("zh-b", 0.9), ("zh-new", 0.85), ("zh-a", 0.5), ("en-a", 0.4)]
    signals = QuerySignals(script="zh", doc_scripts={"zh-a": "zh", "zh-b": "zh", "en-a": "en", "en-b": "en"})
    out = same_language_rerank(plain, reranked, signals)
    assert [d for d, _ in out] == ["zh-b", "en-a", "zh-new", "en-b", "zh-a"]
    assert [s for _, s in out] == [0.9, 0.8, 0.7, 0.6, 0.5]
    one_language = QuerySignals(script="zh", doc_scripts={"zh-a": "zh", "zh-b": "zh"})
    assert same_language_rerank(plain[:1], reranked[1:3], one_language) == reranked[1:3]


def test_no_abstention_when_the_dense_side_does_not_rank_bm25s_best():
    """Outside a bilingual knowledge base (one English report among Chinese ones), the embedder reading the question
    otherwise than BM25 (a weak embedder) keeps its other-language pick low."""
    dense = [("en-answer", 0.80), ("en-other", 0.70)] + [(f"zh-{i}", 0.6 - i / 100) for i in range(10)]
    dense.append(("zh-answer", 0.2))
    assert not lists_agree(BM25, dense)
    signals = QuerySignals(script="zh", corpus_scripts={"zh": 0.87, "en": 0.13}, coverage=1.0,
                           doc_scripts={**SCRIPTS, **{f"zh-{i}": "zh" for i in range(10)}})
    plain = guarded_fusion(BM25, dense, signals, depth=10)
    assert guarded_fusion(BM25, dense, signals, depth=10, abstain=True) == plain


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


def test_a_chinese_knowledge_base_with_one_english_report_keeps_the_abstention_rule():
    """13 % English (annual_pages, the eval's knowledge base): not a knowledge base keeping both languages."""
    signals = QuerySignals(script="zh", corpus_scripts={"zh": 0.87, "en": 0.13}, coverage=1.0, doc_scripts=SCRIPTS)
    dense = [("en-other", 0.82), ("en-answer", 0.80), ("zh-answer", 0.78), ("zh-other", 0.40)]
    fused = dict(guarded_fusion(BM25, dense, signals, depth=10, dense_share=0.2, abstain=True))
    assert fused["en-other"] == pytest.approx(1.0)  # the lists agree: its dense value stands in for BM25's 0
    assert fused["zh-far"] == pytest.approx(0.8 * 5.0 / 12.0)
