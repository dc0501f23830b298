"""Shared by the report-question tests: files (the eval's generated 年度报告 first among them) written to a folder
and really indexed with the hash embedder, optionally with their extractive summary trees, and a question asked
through a real Ollama client (pointed at the fake Ollama server) — the setup each of those test files wrote again."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from eval.fake_ollama import FakeOllama, Reply
from eval.harness import build_summary_trees
from indexing.storage import open_knowledge_base
from officeqa.generation import OllamaGenerator
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.answering import Answer
from retrieval.service import QuestionService

#: The file name the eval's generated annual report is indexed under.
ANNUAL_NAME = "星河智能2023年年度报告.pdf"


def index_folder(
    root: Path,
    files: Mapping[str, bytes | str],
    *,
    summaries: bool = False,
    ollama: OllamaSettings | None = None,
) -> tuple[Settings, Path]:
    """``files`` (name: bytes, or UTF-8 text) written to ``root/kb`` and indexed into ``root/data``; the summary trees
    are built when ``summaries`` (as the background summariser does after indexing). Returns the settings and the
    folder; indexing any file failing fails the test."""
    docs = root / "kb"
    docs.mkdir()
    for name, content in files.items():
        if isinstance(content, bytes):
            (docs / name).write_bytes(content)
        else:
            (docs / name).write_text(content, encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=ollama or OllamaSettings())
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
        if summaries:
            build_summary_trees(kb)
    return settings, docs


def fake_ollama_settings(url: str) -> OllamaSettings:
    """Settings for the fake Ollama server at ``url``: a short connect timeout and no retries, so a broken fake
    fails fast."""
    return OllamaSettings(host=url, connect_timeout_s=0.5, retries=0)


def record_prompts(server: FakeOllama, answer: str) -> list[str]:
    """Make the fake Ollama ``server`` answer every chat with ``answer``; the list returned receives each chat's
    prompt (its last message) as it comes, for a test to check what the model was given."""
    prompts: list[str] = []

    def reply(body: dict) -> Reply:
        prompts.append(body["messages"][-1]["content"])
        return Reply(pieces=[answer])

    server.reply_fn = reply
    return prompts


def ask_with_model(settings: Settings, question: str) -> Answer:
    """``question`` asked through the question service with a real Ollama client built from ``settings.ollama``."""
    generator = OllamaGenerator(settings.ollama)
    try:
        with QuestionService.open(settings, generator=generator) as opened:
            return opened.ask(question)
    finally:
        generator.close()
