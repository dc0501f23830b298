"""Query-time signals with literals: script detection, BM25 term coverage, corpus script shares."""

from __future__ import annotations

import math

import pytest

from indexing.bm25_index import BM25Index
from officeqa.scripts import detect_script, script_counts
from retrieval.query_signals import QuerySignals, idf_coverage, query_signals
from retrieval.search import query_signals_for


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("合同约定的付款期限是多少天？", "zh"),
        ("What is the payment term in the contract?", "en"),
        ("Excel 表格里 VLOOKUP 函数怎么用", "zh"),  # a Chinese question naming English words stays zh
        ("合同条款 contract terms", "mixed"),
        ("吉爾吉斯斯坦的主要宗教", "zh"),  # Traditional characters are Han too
        ("2024-05-01 ¥1,200", ""),  # digits and symbols carry no script
        ("", ""),
    ],
)
def test_detect_script(text: str, script: str) -> None:
    assert detect_script(text) == script


def test_script_counts_counts_han_characters_and_latin_words() -> None:
    assert script_counts("用 BM25 检索 English words") == (3, 3)  # BM is a word; 25 is not


def test_coverage_is_one_when_every_term_is_known_and_zero_when_none_is() -> None:
    assert idf_coverage([3, 10, 1], 100) == pytest.approx(1.0)
    assert idf_coverage([0, 0], 100) == pytest.approx(0.0)
    assert idf_coverage([], 100) == pytest.approx(1.0)  # nothing to miss


def test_coverage_weighs_terms_by_idf() -> None:
    # A rare known term and a common known term vs an unseen one (weighted as if df = 1).
    n = 1000
    rare, common, unseen = (math.log1p((n - d + 0.5) / (d + 0.5)) for d in (1, 500, 1))
    assert idf_coverage([1, 0], n) == pytest.approx(rare / (rare + unseen))
    assert idf_coverage([500, 0], n) == pytest.approx(common / (common + unseen))
    assert idf_coverage([500, 0], n) < idf_coverage([1, 0], n) < 1.0


def test_script_in_corpus_reads_the_share_of_the_query_script() -> None:
    signals = QuerySignals(script="en", corpus_scripts={"zh": 0.95, "en": 0.05})
    assert signals.script_in_corpus == pytest.approx(0.05)
    assert QuerySignals(script="zh", corpus_scripts={"zh": 0.95, "en": 0.05}).script_in_corpus == pytest.approx(0.95)
    assert QuerySignals(script="mixed", corpus_scripts={"zh": 1.0}).script_in_corpus == 1.0
    assert QuerySignals(script="en").script_in_corpus == 1.0  # unknown corpus: no penalty


def test_query_signals_bundles_the_parts() -> None:
    signals = query_signals("合同 payment", [2, 0], 10, {"zh": 0.5, "en": 0.5})
    assert (signals.script, signals.terms) == ("mixed", 2)
    assert 0.0 < signals.coverage < 1.0


def test_signals_from_a_real_bm25_index() -> None:
    index = BM25Index()
    index.add(
        ["d1", "d2", "d3"],
        ["合同约定付款期限为三十天。", "银行发放贷款并办理结算。", "The contract sets a payment term of thirty days."],
    )
    shares = index.script_shares()
    assert set(shares) == {"zh", "en"} and shares["zh"] > shares["en"] > 0
    zh = query_signals_for(index, "付款期限是多少天")
    assert zh.script == "zh" and zh.coverage >= 0.5  # 多少 and 天 are not in the corpus
    foreign = query_signals_for(index, "Welche Zahlungsfrist gilt")  # no term of it is in the index
    assert foreign.coverage == pytest.approx(0.0)
    assert index.document_frequencies(["付款", "unknown", "付款"]) == [1, 0]  # distinct tokens, in order


def test_script_shares_follow_writes() -> None:
    index = BM25Index()
    index.add(["a"], ["合同付款"])
    assert index.script_shares() == {"zh": pytest.approx(1.0), "en": pytest.approx(0.0)}
    index.add(["b"], ["contract payment terms"])
    assert index.script_shares()["en"] > 0
    index.remove(["a"])
    assert index.script_shares() == {"zh": pytest.approx(0.0), "en": pytest.approx(1.0)}
    assert BM25Index().script_shares() == {}


def test_dense_trust_follows_the_scripts_the_embedder_reads() -> None:
    zh_corpus = {"zh": 0.95, "en": 0.05}
    assert QuerySignals(script="zh", corpus_scripts=zh_corpus).dense_trust == 1.0  # multilingual (None)
    english_only = frozenset({"en"})
    assert QuerySignals(script="zh", corpus_scripts=zh_corpus, dense_scripts=english_only).dense_trust == 0.0
    assert QuerySignals(script="en", corpus_scripts=zh_corpus, dense_scripts=english_only).dense_trust == 0.0
    en_corpus = {"zh": 0.01, "en": 0.99}
    assert QuerySignals(script="en", corpus_scripts=en_corpus, dense_scripts=english_only).dense_trust == 1.0
