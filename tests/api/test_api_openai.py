"""The OpenAI-compatible endpoints driven by real clients over a real socket (uvicorn on loopback): the
official ``openai`` client (sync, async, streaming), LlamaIndex's ``OpenAILike`` (chat and completion) and
a request recorded from Open WebUI; citations travel with the answer, usage counts tokens, errors have
OpenAI's shape."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from litestar.testing import TestClient
from live_server import serve
from server_helpers import make_settings, wait_indexed

from eval.fake_ollama import FakeOllama, Reply
from indexing.storage import open_knowledge_base
from server.app import create_app

POLICY = "# 报销制度\n\n## 第三条 时限\n\n报销需在出差结束后十日内提交，逾期不予受理。\n".encode()


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
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 0
    assert usage.completion_tokens == 1  # Ollama's own count (the fake's eval_count: one piece)
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


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


def test_a_streamed_completion_with_include_usage_ends_with_a_usage_chunk(client: openai.OpenAI,
                                                                         fake: FakeOllama) -> None:
    fake.add_reply(Reply(pieces=["十日内", "提交 [1]。"], prompt_eval_count=321))
    chunks = list(client.chat.completions.create(
        model="officeqa/default", stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "报销的时限是多久？"}]))
    *answer, last = chunks
    assert last.choices == [] and last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (321, 2, 323)
    assert all(c.usage is None for c in answer)
    assert answer[-1].choices[0].finish_reason == "stop"
    assert "".join(c.choices[0].delta.content or "" for c in answer) == "十日内提交 [1]。"


def test_without_include_usage_no_chunk_has_empty_choices(client: openai.OpenAI, fake: FakeOllama) -> None:
    fake.add_reply(Reply(pieces=["十日内 [1]。"]))
    chunks = list(client.chat.completions.create(
        model="officeqa/default", stream=True, messages=[{"role": "user", "content": "报销的时限是多久？"}]))
    assert all(c.choices for c in chunks) and all(c.usage is None for c in chunks)


def test_the_async_client_works_streaming_and_not(base_url: str, fake: FakeOllama) -> None:
    async def run() -> tuple[str, str]:
        async with openai.AsyncOpenAI(base_url=f"{base_url}/v1", api_key="x", max_retries=0) as api:
            fake.add_reply(Reply(pieces=["十日内 [1]。"]))
            completion = await api.chat.completions.create(
                model="officeqa/default", messages=[{"role": "user", "content": "报销的时限是多久？"}])
            fake.add_reply(Reply(pieces=["十日", "内 [1]。"]))
            stream = await api.chat.completions.create(
                model="officeqa/default", stream=True, messages=[{"role": "user", "content": "报销的时限是多久？"}])
            streamed = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
            return completion.choices[0].message.content or "", streamed

    assert asyncio.run(run()) == ("十日内 [1]。", "十日内 [1]。")


def test_legacy_completions_answer_the_prompt_on_the_same_path(client: openai.OpenAI, fake: FakeOllama) -> None:
    fake.add_reply(Reply(pieces=["十日内提交 [1]。"]))
    completion = client.completions.create(model="officeqa/default", prompt="报销的时限是多久？")
    assert completion.object == "text_completion"
    assert completion.choices[0].text == "十日内提交 [1]。" and completion.choices[0].finish_reason == "stop"
    assert (completion.model_extra or {})["citations"][0]["document"] == "报销制度.md"
    assert completion.usage is not None and completion.usage.completion_tokens == 1
    fake.add_reply(Reply(pieces=["十日", "内 [1]。"]))
    chunks = list(client.completions.create(model="officeqa/default", prompt="报销的时限是多久？", stream=True,
                                            stream_options={"include_usage": True}))
    assert "".join(c.choices[0].text for c in chunks if c.choices) == "十日内 [1]。"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None


def test_usage_is_counted_when_no_model_answered(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    (tmp_path / "报销制度.md").write_bytes(POLICY)
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([tmp_path / "报销制度.md"]).failed
    with TestClient(create_app(settings, generator=None)) as http:
        body = http.post("/v1/chat/completions", json={
            "model": "officeqa/default", "messages": [{"role": "user", "content": "报销时限？"}]}).json()
    usage = body["usage"]
    assert usage["prompt_tokens"] == 5  # the project's counter: one token per ideograph and punctuation mark
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


@pytest.mark.parametrize(("field", "value"), [("temperature", "hot"), ("temperature", 5), ("max_tokens", "many"),
                                              ("stream", "yes"), ("n", 3), ("top_p", [1])])
def test_fields_with_the_wrong_type_are_400_naming_the_field(client: openai.OpenAI, field: str, value) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="officeqa/default", messages=[{"role": "user", "content": "报销？"}],
                                       extra_body={field: value})
    error = caught.value.body
    assert isinstance(error, dict) and error["type"] == "invalid_request_error" and error["param"] == field
    assert error["code"] == "invalid_request" and field in error["message"]


def test_error_bodies_have_openais_shape(base_url: str) -> None:
    with httpx.Client(base_url=base_url) as http:
        for response, status, kind in (
            (http.post("/v1/chat/completions", json={"model": "officeqa/nope", "messages": [
                {"role": "user", "content": "x"}]}), 404, "not_found_error"),
            (http.post("/v1/chat/completions", json={"model": "officeqa/default", "messages": []}), 400,
             "invalid_request_error"),
            (http.post("/v1/embeddings", json={"model": "officeqa/default", "input": "x"}), 404, "not_found_error"),
        ):
            assert response.status_code == status, response.text
            error = response.json()["error"]
            assert set(error) >= {"message", "type", "param", "code"} and error["type"] == kind


def test_llama_index_openai_like_chats_and_completes(base_url: str, fake: FakeOllama) -> None:
    from llama_index.core.llms import ChatMessage
    from llama_index.llms.openai_like import OpenAILike

    llm = OpenAILike(model="officeqa/default", api_base=f"{base_url}/v1", api_key="x", max_retries=0,
                     is_chat_model=False, context_window=4096)
    fake.add_reply(Reply(pieces=["十日内提交 [1]。"]))
    assert llm.complete("报销的时限是多久？").text == "十日内提交 [1]。"  # /v1/completions, its default
    fake.add_reply(Reply(pieces=["十日", "内 [1]。"]))
    assert "".join(r.delta or "" for r in llm.stream_complete("报销的时限是多久？")) == "十日内 [1]。"
    chat = OpenAILike(model="officeqa/default", api_base=f"{base_url}/v1", api_key="x", max_retries=0,
                      is_chat_model=True, context_window=4096)
    fake.add_reply(Reply(pieces=["十日内 [1]。"]))
    reply = chat.chat([ChatMessage(role="user", content="报销的时限是多久？")])
    assert reply.message.content == "十日内 [1]。"


#: A request shaped as Open WebUI's backend sends it to an OpenAI connection (open_webui/routers/openai.py,
#: generate_chat_completion: the system prompt first, content as parts, `cache_control` on the last message,
#: `stream_options.include_usage` forced on when streaming, the model's params, the user object it adds for
#: pipelines) with the headers it adds (Authorization, X-OpenWebUI-User-* when forwarding user info).
OPEN_WEBUI_REQUEST = {
    "stream": True,
    "model": "officeqa/default",
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": [{"type": "text", "text": "报销的时限是多久？",
                                      "cache_control": {"type": "ephemeral"}}]},
    ],
    "stream_options": {"include_usage": True},
    "temperature": 0.8,
    "max_tokens": 2048,
    "top_p": 0.9,
    "user": {"name": "admin", "id": "u1", "email": "a@b.c", "role": "admin"},
}
OPEN_WEBUI_HEADERS = {"Authorization": "Bearer x", "Content-Type": "application/json",
                      "X-OpenWebUI-User-Name": "admin", "X-OpenWebUI-User-Id": "u1",
                      "X-OpenWebUI-User-Email": "a@b.c", "X-OpenWebUI-User-Role": "admin"}


def test_an_open_webui_request_streams_an_answer(base_url: str, fake: FakeOllama) -> None:
    body = dict(OPEN_WEBUI_REQUEST)
    fake.add_reply(Reply(pieces=["十日内", "提交 [1]。"]))
    with httpx.Client(base_url=base_url) as http:
        response = http.post("/v1/chat/completions", content=json.dumps(body), headers=OPEN_WEBUI_HEADERS)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]) == "十日内提交 [1]。"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert all(c["usage"] is None for c in chunks[:-1])  # as OpenAI: null on every other chunk
