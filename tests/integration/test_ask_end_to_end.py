"""End to end: index corpus files, ask, get a cited answer — extractive, fake-Ollama, and L0 rule modes.

The knowledge base is real (Chroma, SQLite, BM25) with the deterministic "hash"
embedder; the model is the fake Ollama server speaking the real API. The question's
answer sits in one known chunk of zh_test.txt (chapter 1, "什么是 Prompt 工程？").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fake_ollama import FakeOllama, Reply

from indexing.knowledge_base import KnowledgeBase
from officeqa.generation import OllamaGenerator
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.pipeline import AnswerPipeline
from retrieval.search import search
from server.cli import main

QUESTION = "什么是 Prompt 工程？"
ANSWER_SENTENCE = "Prompt 工程是创建提示或指导像 ChatGPT 这样的语言模型输出的过程。"
ANSWER_HEADING = "第一章：Prompt 工程技术简介"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Path:
    """One knowledge base for the module: zh_test.txt and the Markdown files."""
    folder = tmp_path_factory.mktemp("kb")
    settings = Settings(data_dir=folder, embedding=EmbeddingSettings(backend="hash"))
    with KnowledgeBase.open(settings) as kb:
        report = kb.index_paths([corpus_dir / "txt" / "zh_test.txt", corpus_dir / "md"])
        kb.save()
    assert not report.failed
    return folder


def settings_for(data_dir: Path, host: str = "http://127.0.0.1:9") -> Settings:
    return Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(backend="hash"),
        ollama=OllamaSettings(host=host, num_ctx=4096, connect_timeout_s=1.0, read_timeout_s=5.0, retries=0),
    )


def write_config(tmp_path: Path, settings: Settings) -> Path:
    config = tmp_path / "officeqa.toml"
    config.write_text(
        f'data_dir = "{settings.data_dir.as_posix()}"\n'
        f'[embedding]\nbackend = "hash"\n'
        f'[ollama]\nhost = "{settings.ollama.host}"\nnum_ctx = 4096\nconnect_timeout_s = 1.0\nretries = 0\n',
        encoding="utf-8",
    )
    return config


def answering_fake(fake: FakeOllama) -> None:
    """The fake model 'reads' its materials: it cites the [n] whose text holds the answer sentence."""

    def reply(body: dict) -> Reply:
        user = body["messages"][-1]["content"]
        blocks = re.split(r"\n(?=\[\d+\] )", user)
        n = next(int(b[1 : b.index("]")]) for b in blocks if b.startswith("[") and ANSWER_SENTENCE in b)
        return Reply(pieces=["Prompt 工程是创建提示、", f"指导语言模型输出的过程[{n}]。"])

    fake.reply_fn = reply


def assert_cites_the_answer_chunk(citations: list[dict]) -> None:
    cited = [c for c in citations if ANSWER_SENTENCE in c["quote"]]
    assert cited, citations
    assert cited[0]["document"] == "zh_test.txt"
    assert cited[0]["heading_path"][-1] == ANSWER_HEADING
    assert cited[0]["chunk_id"]


def test_extractive_answer_from_the_index(data_dir: Path) -> None:
    settings = settings_for(data_dir)
    with KnowledgeBase.open(settings) as kb:
        pipeline = AnswerPipeline(settings, lambda q, k: search(kb, q, "hybrid", k), OllamaGenerator(settings.ollama))
        answer = pipeline.ask(QUESTION)
    assert answer.mode == "extractive"
    assert answer.metadata["failure"]["kind"] == "unreachable"
    assert ANSWER_SENTENCE in answer.text
    assert_cites_the_answer_chunk([c.to_json() for c in answer.citations])


def test_cli_ask_extractive_json(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, settings_for(data_dir))
    assert main(["--config", str(config), "ask", QUESTION, "--json", "--no-model"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["mode"] == "extractive" and "未配置模型服务" in out["notice"]
    assert_cites_the_answer_chunk(out["citations"])


def test_cli_ask_with_fake_ollama_streams_a_cited_answer(
    data_dir: Path, tmp_path: Path, fake_ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    answering_fake(fake_ollama)
    config = write_config(tmp_path, settings_for(data_dir, fake_ollama.url))
    assert main(["--config", str(config), "ask", QUESTION, "--json", "--stream"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [line["delta"] for line in lines[:-1]] == ["Prompt 工程是创建提示、", lines[1]["delta"]]
    final = lines[-1]
    assert final["mode"] == "model" and final["notice"] is None
    (citation,) = final["citations"]
    assert citation["referenced"] is True
    assert citation["document"] == "zh_test.txt" and citation["heading_path"][-1] == ANSWER_HEADING
    assert citation["quote"] == ANSWER_SENTENCE
    (request,) = fake_ollama.chat_requests()
    assert request["options"]["num_ctx"] == 4096
    reserve = settings_for(data_dir).ollama.answer_reserve_tokens
    assert final["metadata"]["assembly"]["tokens"]["total"] <= 4096 - reserve


def test_cli_ask_text_output(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, settings_for(data_dir))
    assert main(["--config", str(config), "ask", QUESTION]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[extractive] 无法连接模型服务")
    assert ANSWER_SENTENCE in out
    assert re.search(r"^\[\d+\] zh_test\.txt · .*第一章：Prompt 工程技术简介", out, flags=re.MULTILINE)


def test_cli_ask_deterministic_rule_answers_without_a_model(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "联系人.txt"
    doc.write_text("联系人：张三，电话 13812345678。\n李四的电话是 021-65432100。\n", encoding="utf-8")
    config = write_config(tmp_path, settings_for(data_dir))
    assert main(["--config", str(config), "ask", "提取文中所有的电话号码", "--doc", str(doc), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["mode"] == "rule"
    # each value is quoted with the sentence around it, and points at the chunk holding that sentence
    assert [c["quote"] for c in out["citations"]] == ["联系人：张三，电话 13812345678。", "李四的电话是 021-65432100。"]
    assert all(c["document"] == "联系人.txt" and c["chunk_id"] for c in out["citations"])
    assert out["metadata"]["scope"]["method"] == "explicit"


def test_cli_ask_unreadable_doc_exits_3(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, settings_for(data_dir))
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n", encoding="utf-8")
    assert main(["--config", str(config), "ask", "提取文中所有的电话号码", "--doc", str(empty)]) == 3
    assert "empty" in capsys.readouterr().err


def test_cli_ask_streams_text_then_sources(
    data_dir: Path, tmp_path: Path, fake_ollama: FakeOllama, capsys: pytest.CaptureFixture[str]
) -> None:
    answering_fake(fake_ollama)
    config = write_config(tmp_path, settings_for(data_dir, fake_ollama.url))
    assert main(["--config", str(config), "ask", QUESTION, "--stream"]) == 0
    first, blank, source, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith("Prompt 工程是创建提示、指导语言模型输出的过程[") and blank == ""
    assert source.endswith(f"“{ANSWER_SENTENCE}”") and "zh_test.txt" in source
    assert rest == []
