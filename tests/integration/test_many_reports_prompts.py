"""With a model, the prompt for a question naming one company holds that company's pages and no other's.

Why: issue 27 ("with the fake model the prompt holds the right company's pages"). Scope by subject was
tested on the answer's scope; this checks what the model is actually sent. The knowledge base is real
(SQLite, Chroma, BM25 with the ``hash`` embedder) of several small reports that share one generic title and
one structure, so an unscoped search would put every company's chunks into the prompt. The model is the fake
of ``officeqa eval --generator fake`` (:func:`eval.fake_model.grounded_reply` behind a real HTTP server the
real Ollama client talks to); the prompt is read from the request the server received.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eval.fake_model import grounded_reply, parse_prompt
from eval.fake_ollama import DEFAULT_MODEL, FakeOllama
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

COMPANIES = [
    ("Alpha Widgets Inc.", "the board approved a share buyback programme of $50 million"),
    ("Borealis Mining Limited", "the board approved a share buyback programme of $20 million"),
    ("Cobalt Shipping plc", "the board approved a share buyback programme of $35 million"),
]


def _report(name: str, fact: str) -> str:
    return f"""# Annual Report

{name} annual report for the fiscal year ended December 31, 2022.

## Capital allocation

During the year {fact}. {name} repurchased shares under the share buyback programme in every quarter.

## Outlook

{name} expects the share buyback programme to continue next year, as the board reviews capital allocation.
"""


@pytest.fixture(scope="module")
def model_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[QuestionService, FakeOllama]]:
    root = tmp_path_factory.mktemp("reports_model")
    docs = root / "kb"
    docs.mkdir()
    for i, (name, fact) in enumerate(COMPANIES):
        (docs / f"report_{i}.md").write_text(_report(name, fact), encoding="utf-8")
    with FakeOllama(reply_fn=grounded_reply) as fake:
        settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                            ollama=OllamaSettings(host=fake.url, model=DEFAULT_MODEL, retries=0))
        with open_knowledge_base(settings) as kb:
            report = kb.index_paths([docs])
        assert not report.failed, report.failed
        with QuestionService.open(settings) as svc:
            yield svc, fake


def _prompt_files(fake: FakeOllama, before: int) -> list[str] | None:
    """The files of the materials in the question-answering prompt sent since request ``before``; None if none."""
    sent = [r for r in fake.chat_requests()[before:] if parse_prompt(r["messages"][-1]["content"])[0]]
    if not sent:
        return None
    _, materials, _, _ = parse_prompt(sent[-1]["messages"][-1]["content"])
    return [m.source.split(" · ")[0] for m in materials]


def test_the_prompt_holds_only_the_named_companys_pages(model_service: tuple[QuestionService, FakeOllama]) -> None:
    service, fake = model_service
    for i, (name, _) in enumerate(COMPANIES):
        before = len(fake.chat_requests())
        answer = service.ask(f"What did {name} say about its share buyback programme?")
        files = _prompt_files(fake, before)
        assert answer.mode == "model", (name, answer.mode, answer.text)
        assert files, name  # a prompt went to the model, with materials
        assert set(files) == {f"report_{i}.md"}, (name, files)
        assert all(Path(c.file).name == f"report_{i}.md" for c in answer.citations)


def test_a_company_not_in_the_knowledge_base_sends_no_other_companys_pages(
        model_service: tuple[QuestionService, FakeOllama]) -> None:
    service, fake = model_service
    before = len(fake.chat_requests())
    answer = service.ask("What did Medallion Financial Corp. say about its share buyback programme?")
    files = _prompt_files(fake, before)
    assert not files, files  # no prompt, or one with none of the reports in it
    assert "no document about Medallion Financial Corp." in answer.text
    assert not answer.citations
