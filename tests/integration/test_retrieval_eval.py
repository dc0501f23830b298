"""``eval-retrieval`` indexes a JSONL corpus into a temporary knowledge base and ranks by document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.retrieval_eval import run_retrieval_eval
from officeqa.settings import EmbeddingSettings, Settings
from server.cli import main

CORPUS = [
    {"id": "d-apple", "title": "苹果", "text": "苹果是一种常见的水果，富含维生素。" * 3},
    {"id": "d-bank", "title": "银行", "text": "商业银行吸收公众存款，发放贷款，办理结算。" * 3},
    {"id": "d-rail", "title": "铁路", "text": "京沪高速铁路全长一千三百一十八公里，设计时速三百五十公里。" * 3},
]
QUESTIONS = [
    {"id": "q1", "question": "哪种水果富含维生素", "gold_doc_ids": ["d-apple"]},
    {"id": "q2", "question": "京沪高速铁路设计时速", "gold_doc_ids": ["d-rail"]},
    {"id": "q3", "question": "银行发放贷款", "gold_doc_ids": ["d-bank"]},
    {"id": "q4", "question": "没有金标准的问题", "gold_doc_ids": []},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_jsonl(tmp_path / "corpus.jsonl", CORPUS), write_jsonl(tmp_path / "questions.jsonl", QUESTIONS)


def test_eval_ranks_documents_and_reports_every_metric(tmp_path: Path, files: tuple[Path, Path]) -> None:
    settings = Settings(data_dir=tmp_path / "unused", embedding=EmbeddingSettings(backend="hash"))
    result = run_retrieval_eval(*files, settings, modes=["bm25", "dense", "hybrid"])
    assert (result.documents, result.questions) == (3, 3)  # the question without gold is not scored
    assert result.chunks >= 3
    assert set(result.metrics) == {"bm25", "dense", "hybrid"}
    bm25 = result.metrics["bm25"]
    assert bm25["ndcg@10"] == pytest.approx(1.0) and bm25["recall@1"] == pytest.approx(1.0)
    assert bm25["mrr@10"] == pytest.approx(1.0)
    for metrics in result.metrics.values():
        assert set(metrics) >= {"ndcg@10", "recall@1", "recall@5", "recall@10", "recall@100", "mrr@10"}
        assert metrics["recall@100"] == pytest.approx(1.0)  # dense ranks every document
    assert not (tmp_path / "unused").exists()  # the knowledge base lived in a temporary folder


def test_eval_retrieval_cli_prints_json(files: tuple[Path, Path], monkeypatch, capsys) -> None:
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    corpus, questions = files
    code = main(["eval-retrieval", "--corpus", str(corpus), "--questions", str(questions), "--modes", "bm25", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["metrics"]) == ["bm25"] and out["metrics"]["bm25"]["recall@1"] == 1.0
    # An unknown mode is a ConfigurationError: exit 5 (server/cli/__init__.py exit codes).
    assert main(["eval-retrieval", "--corpus", str(corpus), "--questions", str(questions), "--modes", "tfidf"]) == 5
