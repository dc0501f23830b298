"""Questions first: the background model waits while a question is answered in the same process, and an answer
made before the background model covers its scope says so in its metadata (``background_model``).

Real files, SQLite, Chroma, BM25; the fast model is the hash test embedder and the background one its smaller
sibling (``background_backend = "hash"``), so no model loads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_background_embed import CountingEmbedder, covered, run_background, write_docs

from indexing import questions_first
from indexing.background_embed import BackgroundEmbedder
from indexing.knowledge_base import KnowledgeBase
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, JobsSettings, Settings
from retrieval.service import QuestionService


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    settings = Settings(
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(backend="hash", background_backend="hash", background_batch_size=4),
        jobs=JobsSettings(workers=1, retry_backoff_s=0.0),
    )
    with open_knowledge_base(settings) as handle:
        write_docs(tmp_path / "docs", n=2)
        handle.index_paths([tmp_path / "docs"])
        yield handle


def test_an_answer_says_when_the_background_model_covers_only_part_of_its_scope(kb: KnowledgeBase) -> None:
    service = QuestionService(kb.settings, kb)
    before = service.ask("差旅报销须在几个工作日内提交材料？")
    assert before.metadata["background_model"]["partial"] is True
    assert before.metadata["background_model"]["holds_any"] is False
    run_background(kb)
    after = service.ask("差旅报销须在几个工作日内提交材料？")
    assert "background_model" not in after.metadata


def test_the_background_model_waits_while_a_question_is_in_flight(kb: KnowledgeBase) -> None:
    model = CountingEmbedder()
    kb.strong.use_embedder(model)
    worker = BackgroundEmbedder(kb, "test-worker")
    waited = questions_first.waits()
    question_done = threading.Event()
    try:
        with questions_first.answering():
            assert questions_first.in_flight() == 1
            worker.step(idle=True)  # batches handed over: the model thread meets the question before its slice
            for _ in range(200):
                if questions_first.waits() > waited:
                    break
                question_done.wait(0.05)
            assert questions_first.waits() > waited
        assert questions_first.in_flight() == 0
        assert questions_first.wait_for_quiet(0.0) is True
        total = sum(kb.registry.chunk_counts().values())
        for _ in range(2000):
            worker.step(idle=True)
            if sum(covered(kb).values()) == total:
                break
            worker.wait(0.05)
        assert sum(covered(kb).values()) == total
    finally:
        worker.stop()
