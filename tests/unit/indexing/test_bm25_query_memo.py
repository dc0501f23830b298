"""A BM25 index remembers what every search asks again: its recent questions' tokens and its chunks' scripts."""

from __future__ import annotations

from indexing import bm25_index
from indexing.bm25_index import BM25Index
from officeqa.text_tokens import bm25_terms


def test_a_question_is_tokenized_once_and_searches_alike() -> None:
    calls: list[str] = []

    def counting(text: str) -> list[str]:
        calls.append(text)
        return bm25_terms(text)

    index = BM25Index(tokenizer=counting)
    index.add(["a", "b"], ["春运从1月17日开始，铁路部门加开列车", "Running shoes were sold out"])
    calls.clear()
    first = index.search("春运什么时候开始", 5)
    tokens = index.tokenize("春运什么时候开始")
    assert index.search("春运什么时候开始", 5) == first and first[0][0] == "a"
    assert tokens == bm25_terms("春运什么时候开始")
    assert calls == ["春运什么时候开始"]  # the three calls tokenized once
    tokens.append("changed")  # a caller's list is its own
    assert index.tokenize("春运什么时候开始") == bm25_terms("春运什么时候开始")
    assert index.search("running shoes", 5)[0][0] == "b"  # another question is tokenized afresh
    assert calls == ["春运什么时候开始", "running shoes"]


def test_the_memory_is_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(bm25_index, "RECENT_QUERIES", 3)
    index = BM25Index()
    for n in range(10):
        assert index.tokenize(f"question {n}") == bm25_terms(f"question {n}")
        assert len(index._recent_queries) <= 3


def test_document_scripts_follow_the_index_after_a_chunk_changes_language() -> None:
    index = BM25Index()
    index.add(["a", "b"], ["铁路部门加开列车，春运开始", "Running shoes were sold out"])
    assert index.document_scripts(["a", "b", "missing"]) == {"a": "zh", "b": "en"}
    index.remove(["a"])
    assert index.document_scripts(["a", "b"]) == {"b": "en"}
    index.add(["a"], ["The railway adds trains for the spring festival"])  # same id, now English
    assert index.document_scripts(["a", "b"]) == {"a": "en", "b": "en"}
