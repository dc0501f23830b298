"""The OpenAI-compatible endpoint driven by the official ``openai`` Python client over a real socket
(uvicorn on loopback), streaming and not; citations travel with the answer in both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from fake_ollama import FakeOllama, Reply
from litestar.testing import TestClient
from live_server import serve
from server_helpers import make_settings, wait_indexed

from indexing.storage import open_knowledge_base
from server.app import create_app

POLICY = "# 报销制度\n\n## 第三条 时限\n\n报销需在出差结束后十日内提交，逾期不予受理。\n".encode()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOllama]:
    server = FakeOllama().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, fake: FakeOllama) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("openai")
    with serve(create_app(make_settings(root, ollama_url=fake.url))) as url:
        with httpx.Client(base_url=url) as http:
            assert http.post("/api/documents", files=[("files", ("报销制度.md", POLICY))]).status_code == 202
            wait_indexed(http, ["报销制度.md"])  # type: ignore[arg-type]
        yield url


@pytest.fixture
def client(base_url: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=f"{base_url}/v1", api_key="local-mode-needs-none", max_retries=0) as api:
        yield api


def test_models_lists_one_model_per_knowledge_base(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["officeqa/default"]


def test_a_completion_carries_the_answer_and_its_citations(client: openai.OpenAI, fake: FakeOllama) -> None:
    fake.add_reply(Reply(pieces=["报销需在出差结束后十日内提交 [1]。"]))
    completion = client.chat.completions.create(
        model="officeqa/default", messages=[{"role": "user", "content": "报销的时限是多久？"}])
    assert completion.object == "chat.completion"
    assert completion.choices[0].message.content == "报销需在出差结束后十日内提交 [1]。"
    assert completion.choices[0].finish_reason == "stop"
    extra = completion.model_extra or {}
    (citation,) = extra["citations"]
    assert citation["document"] == "报销制度.md" and "十日内" in citation["quote"]
    assert citation["heading_path"] == ["报销制度", "第三条 时限"]
    assert extra["officeqa"]["mode"] == "model"
    assert completion.usage is not None and completion.usage.prompt_tokens > 0


def test_a_streamed_completion_ends_with_the_citations(client: openai.OpenAI, fake: FakeOllama) -> None:
    fake.add_reply(Reply(pieces=["十日内", "提交 [1]。"]))
    stream = client.chat.completions.create(
        model="officeqa/default", stream=True,
        messages=[{"role": "system", "content": "ignored"}, {"role": "user", "content": "报销的时限是多久？"}])
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "十日内提交 [1]。"
    assert [c.choices[0].finish_reason for c in chunks][-1] == "stop"
    final = chunks[-1].model_extra or {}
    assert final["citations"][0]["document"] == "报销制度.md"
    assert final["officeqa"]["answer"] == "十日内提交 [1]。"


def test_follow_up_messages_are_the_history(client: openai.OpenAI, fake: FakeOllama) -> None:
    fake.add_reply(Reply(pieces=["报销时限是多久？"]))  # the rewrite of the follow-up
    fake.add_reply(Reply(pieces=["十日内 [1]。"]))
    completion = client.chat.completions.create(model="default", messages=[
        {"role": "user", "content": "报销制度里有什么规定？"},
        {"role": "assistant", "content": "有时限规定。"},
        {"role": "user", "content": "那时限呢？"},
    ])
    assert (completion.model_extra or {})["officeqa"]["rewrite"]["standalone"] == "报销时限是多久？"
    rewrite_prompt = str(fake.chat_requests()[-2]["messages"])
    assert "报销制度里有什么规定" in rewrite_prompt


def test_without_a_model_the_notice_leads_the_text(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    (tmp_path / "报销制度.md").write_bytes(POLICY)
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([tmp_path / "报销制度.md"]).failed
    with TestClient(create_app(settings, generator=None)) as http:
        body = http.post("/v1/chat/completions", json={
            "model": "officeqa/default", "messages": [{"role": "user", "content": "报销时限？"}]}).json()
    assert body["officeqa"]["mode"] == "extractive"
    assert body["choices"][0]["message"]["content"].startswith(body["officeqa"]["notice"])


def test_errors_reach_the_client_as_openai_errors(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="officeqa/nope", messages=[{"role": "user", "content": "x"}])
    assert "nope" in str(caught.value)
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="officeqa/default", messages=[{"role": "assistant", "content": "x"}])
