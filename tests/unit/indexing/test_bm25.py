"""BM25 index: exact scores, incremental add/remove equal to a rebuild, stable ties, persistence."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from indexing.bm25_index import BM25Index
from officeqa.text_tokens import tokenize_for_bm25

DOCS = {
    "c1": "第一条 甲方应在收到发票后三十日内支付合同款项。",
    "c2": "第二条 乙方应按合同约定的时间交付货物，并提供发票。",
    "c3": "员工请假须提前三天提交申请，经部门负责人批准。",
    "c4": "Payment terms: the buyer pays within 30 days of the invoice.",
    "c5": "年假天数按员工工龄计算，工龄满十年的员工享有十天年假。",
}


def reference_scores(docs: dict[str, list[str]], query: list[str], k1: float = 1.2, b: float = 0.75):
    """Okapi BM25 with Lucene idf, written out term by term as the textbook formula."""
    n = len(docs)
    avgdl = sum(len(t) for t in docs.values()) / n
    scores = {}
    for doc_id, tokens in docs.items():
        tf = Counter(tokens)
        score = 0.0
        for term in query:
            df = sum(1 for t in docs.values() if term in t)
            if df == 0 or term not in tf:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(tokens) / avgdl))
        scores[doc_id] = score
    return scores


def build(docs: dict[str, str]) -> BM25Index:
    index = BM25Index()
    index.add(list(docs), list(docs.values()))
    return index


def test_tokenizer_folds_full_width_lowercases_and_drops_stopwords_and_punctuation():
    tokens = tokenize_for_bm25("合同的ＰＡＹＭＥＮＴ条款：第１２条，The Invoice！")
    assert "payment" in tokens
    assert "12" in tokens
    assert "invoice" in tokens
    assert "的" not in tokens and "the" not in tokens
    assert not any(t in {"：", "，", "！", ":", ",", "!"} for t in tokens)


def test_tokenizer_search_mode_emits_parts_of_long_words():
    tokens = tokenize_for_bm25("中华人民共和国合同法")
    assert "中华人民共和国" in tokens
    assert "共和国" in tokens and "人民" in tokens


def test_scores_match_the_textbook_formula():
    index = build(DOCS)
    tokenized = {doc_id: tokenize_for_bm25(text) for doc_id, text in DOCS.items()}
    query = "合同 发票 付款"
    expected = reference_scores(tokenized, tokenize_for_bm25(query))
    got = dict(index.search(query, k=10))
    assert set(got) == {d for d, s in expected.items() if s > 0}
    for doc_id, score in got.items():
        assert score == pytest.approx(expected[doc_id], rel=1e-6)


def test_results_are_sorted_best_first_and_cut_at_k():
    index = build(DOCS)
    results = index.search("员工 年假 工龄", k=2)
    assert len(results) == 2
    assert results[0][0] == "c5"
    assert results[0][1] >= results[1][1]


def test_ties_keep_insertion_order():
    index = BM25Index()
    index.add(["z", "a", "m"], ["苹果 香蕉", "苹果 香蕉", "苹果 香蕉"])
    assert [doc_id for doc_id, _ in index.search("苹果", k=3)] == ["z", "a", "m"]
    index.add(["b"], ["苹果 香蕉"])
    assert [doc_id for doc_id, _ in index.search("苹果", k=4)] == ["z", "a", "m", "b"]


def test_ties_at_the_cut_prefer_earlier_documents_across_segments():
    index = BM25Index()
    for i in range(12):  # one add per document: several segments, then merges
        index.add([f"d{i}"], ["发票 金额"])
    assert [doc_id for doc_id, _ in index.search("发票", k=3)] == ["d0", "d1", "d2"]


def test_incremental_add_and_remove_scores_like_a_fresh_build():
    incremental = BM25Index()
    items = list(DOCS.items())
    for doc_id, text in items:
        incremental.add([doc_id], [text])
    incremental.add(["extra"], ["临时文档 合同 发票 发票"])
    incremental.remove(["extra", "c3"])
    fresh = build({d: t for d, t in items if d != "c3"})
    for query in ["合同 发票", "员工 工龄", "invoice payment"]:
        got, want = incremental.search(query, 10), fresh.search(query, 10)
        assert [d for d, _ in got] == [d for d, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)
    assert len(incremental) == 4
    assert incremental.ids() == {"c1", "c2", "c4", "c5"}


def test_re_adding_an_id_replaces_the_document():
    index = build(DOCS)
    index.add(["c3"], ["完全不同的内容：设备采购清单"])
    assert len(index) == len(DOCS)
    assert "c3" not in [d for d, _ in index.search("请假 申请", 10)]
    assert index.search("设备 采购", 1)[0][0] == "c3"


def test_remove_ignores_unknown_ids_and_reports_count():
    index = build(DOCS)
    assert index.remove(["nope", "c1", "c1"]) == 1
    assert "c1" not in index.ids()
    assert all(d != "c1" for d, _ in index.search("甲方 合同", 10))


def test_removing_everything_leaves_an_empty_searchable_index():
    index = build(DOCS)
    index.remove(list(DOCS))
    assert len(index) == 0
    assert index.search("合同", 5) == []
    index.add(["n"], ["新合同"])
    assert index.search("合同", 5)[0][0] == "n"


def test_allowed_ids_filter_results():
    index = build(DOCS)
    results = index.search("合同 发票", 10, allowed_ids={"c2", "c4", "unknown"})
    assert [d for d, _ in results] == ["c2"]
    index.add(["c9"], ["合同 发票 清单"])  # a second segment
    index.remove(["c2"])
    assert [d for d, _ in index.search("合同 发票", 10, allowed_ids={"c2", "c9"})] == ["c9"]


def test_unknown_query_terms_and_empty_query_return_nothing():
    index = build(DOCS)
    assert index.search("量子引力", 5) == []
    assert index.search("，。！", 5) == []


def test_save_and_load_round_trip(tmp_path: Path):
    index = build(DOCS)
    index.remove(["c2"])
    index.add(["c6"], ["合同解除的条件和违约责任"])
    path = tmp_path / "bm25.npz"
    index.save(path)
    loaded = BM25Index.load(path)
    assert loaded.ids() == index.ids()
    for query in ["合同 发票", "违约责任", "员工"]:
        got, want = loaded.search(query, 10), index.search(query, 10)
        assert [d for d, _ in got] == [d for d, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want])
    loaded.add(["c7"], ["发票"])  # a loaded index keeps working incrementally
    assert "c7" in loaded.ids()


def test_load_refuses_a_foreign_file(tmp_path: Path):
    import numpy as np

    path = tmp_path / "other.npz"
    np.savez(path, header=np.frombuffer(b'{"format": "x"}', dtype=np.uint8))
    with pytest.raises(ValueError, match="not an officeqa BM25 index"):
        BM25Index.load(path)


def test_mismatched_ids_and_texts_are_rejected():
    with pytest.raises(ValueError):
        BM25Index().add(["a", "b"], ["only one"])
    with pytest.raises(ValueError):
        BM25Index().add(["a", "a"], ["x", "y"])


def test_many_small_adds_and_deletes_score_like_a_fresh_build():
    """Exercises segment merging and compaction: any history must end where a fresh build starts."""
    import random

    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    live: dict[str, str] = {}
    index = BM25Index(tokenizer=str.split)
    for step in range(300):
        if live and rng.random() < 0.35:
            victims = rng.sample(sorted(live), k=min(len(live), rng.randint(1, 3)))
            index.remove(victims)
            for victim in victims:
                del live[victim]
        else:
            size = rng.randint(1, 4)
            batch = {f"d{step}_{j}": " ".join(rng.choices(words, k=rng.randint(1, 12))) for j in range(size)}
            index.add(list(batch), list(batch.values()))
            live.update(batch)
    fresh = BM25Index(tokenizer=str.split)
    fresh.add(list(live), list(live.values()))
    assert index.ids() == set(live)
    for query in ["w1 w2", "w7", "w3 w3 w39", "w0 w10 w20 w30"]:
        got, want = index.search(query, 25), fresh.search(query, 25)
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)
        assert [d for d, _ in got] == [d for d, _ in want]
