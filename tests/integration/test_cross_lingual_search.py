"""Hybrid search in a knowledge base mixing Chinese and English, through the product (real USE model).

An English question whose answer is a Chinese paragraph, next to an English paragraph that
shares two of its words: BM25 finds only the English near-miss, the multilingual embedder finds
the answer. Fused with fixed weights (zscore, rrf) the near-miss wins; adaptive fusion lets BM25
abstain on the Chinese paragraph it cannot read, so the answer stays first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.retrieval_eval import index_corpus
from indexing.knowledge_base import KnowledgeBase
from officeqa.settings import EmbeddingSettings, RetrievalSettings, Settings
from retrieval.search import search

DOCS = {
    "zh-rail": ("京沪高速铁路", "京沪高速铁路全长一千三百一十八公里，设计时速三百五十公里，连接北京与上海。"),
    "zh-bank": ("商业银行", "商业银行吸收公众存款，发放贷款，办理国内外结算。"),
    "zh-fruit": ("苹果", "苹果是一种常见的水果，富含维生素和膳食纤维。"),
    "en-museum": ("Railway museum", "The Shanghai railway museum opened in 2010 and shows old steam locomotives."),
    "en-leave": ("Annual leave", "Employees receive fifteen days of paid annual leave each year."),
    "en-printer": ("Printer", "The office printer on the third floor is out of toner."),
}
CORPUS = [{"id": doc_id, "title": title, "text": text} for doc_id, (title, text) in DOCS.items()]
QUESTION = "What is the design speed of the Beijing-Shanghai high-speed railway?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("mixed-kb")
    kb = KnowledgeBase(Settings(data_dir=folder, embedding=EmbeddingSettings(backend="use")))
    try:
        index_corpus(kb, CORPUS)
    finally:
        kb.close()
    yield folder


def top_docs(data_dir: Path, query: str, mode: str, fusion: str = "adaptive") -> list[str]:
    settings = Settings(
        data_dir=data_dir, embedding=EmbeddingSettings(backend="use"), retrieval=RetrievalSettings(fusion=fusion)
    )
    with KnowledgeBase(settings) as kb:
        return [hit.doc_id for hit in search(kb, query, mode=mode, k=3)]


@pytest.mark.slow
def test_the_retrievers_disagree_on_the_english_question(data_dir: Path) -> None:
    assert top_docs(data_dir, QUESTION, "bm25") == ["en-museum"]  # the only document sharing words with it
    assert top_docs(data_dir, QUESTION, "dense")[0] == "zh-rail"


@pytest.mark.slow
@pytest.mark.parametrize("fusion", ["zscore", "rrf"])
def test_fixed_weights_let_the_english_near_miss_win(data_dir: Path, fusion: str) -> None:
    assert top_docs(data_dir, QUESTION, "hybrid", fusion)[0] == "en-museum"


@pytest.mark.slow
def test_adaptive_fusion_keeps_the_chinese_answer_first(data_dir: Path) -> None:
    assert top_docs(data_dir, QUESTION, "hybrid")[:2] == ["zh-rail", "en-museum"]


@pytest.mark.slow
def test_adaptive_fusion_answers_a_chinese_question_as_before(data_dir: Path) -> None:
    assert top_docs(data_dir, "京沪高铁的设计时速是多少", "hybrid")[0] == "zh-rail"
    assert top_docs(data_dir, "paid annual leave days", "hybrid")[0] == "en-leave"
