"""OpenAI-compatible endpoints: ``POST /v1/chat/completions``, ``POST /v1/completions`` (both streaming
and not) and ``GET /v1/models``.

One model per knowledge base the key may read, named ``officeqa/<kb>``; the model name (or the
``X-Knowledge-Base`` header, or a bare ``<kb>``) selects the knowledge base, so a key cannot
reach another knowledge base through these endpoints either. Chat: the last user message is
the question, the earlier user/assistant messages its history. Completions: the prompt is the
question, answered on the same path (LlamaIndex's ``OpenAILike`` calls this endpoint unless
told it is a chat model).

As clients expect: ``usage`` counts tokens (Ollama's counts when a model answered, else the
project's token counter over the question, history and answer); with
``stream_options.include_usage`` a last chunk with ``choices: []`` carries the usage (and
only then); errors have OpenAI's shape (:mod:`server.errors`), inside a stream too; sampling
fields are type-checked (:mod:`server.schemas`) and otherwise ignored.

Citations stay with the answer: a completion carries ``citations`` (the same objects as
``/api/chat``) and ``officeqa`` (mode, notice, final text, route and budget report); when
streaming, the finish chunk (``finish_reason: "stop"``) carries both. OpenAI clients keep
unknown fields (``completion.model_extra["citations"]`` in the Python client). When no model
answered (rule or extractive answers) the notice leads the text, since clients show only it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from litestar import Request, Response, get, post
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from officeqa.errors import UnknownKnowledgeBase
from officeqa.tokens import default_token_counter
from retrieval.answering import Answer, AnswerEvent
from server.access import access_of, limit_answers, policy_of, requested_kb, require_key, resources_of
from server.api_chat import answer_json, answer_report, first_then_rest, remember_question
from server.errors import RequestRefused, status_and_body
from server.schemas import OpenAIChatRequest, OpenAICompletionRequest

MODEL_PREFIX = "officeqa/"
_SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def model_name(kb: str) -> str:
    return f"{MODEL_PREFIX}{kb}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


@get("/v1/models", guards=[require_key], summary="Models: one per knowledge base", tags=["openai"])
async def models(request: Request) -> dict[str, Any]:
    names = resources_of(request).knowledge_bases.visible(access_of(request))
    return {"object": "list",
            "data": [{"id": model_name(n), "object": "model", "created": 0, "owned_by": "officeqa"} for n in names]}


def _kb_for_model(request: Request, model: str) -> str:
    kbs = resources_of(request).knowledge_bases
    wanted = requested_kb(request) or (model[len(MODEL_PREFIX):] if model.startswith(MODEL_PREFIX) else model)
    if wanted in ("", "officeqa"):
        wanted = None
    try:
        return kbs.select(access_of(request), wanted)
    except UnknownKnowledgeBase as exc:
        raise UnknownKnowledgeBase(f"model {model!r}: {exc} (GET /v1/models lists the models)") from exc


def _visible_text(data: dict[str, Any]) -> str:
    """The text a chat client shows: the notice first when no model answered (clients show only the text)."""
    if data["mode"] != "model" and data["notice"]:
        return f"{data['notice']}\n\n{data['answer']}"
    return data["answer"]


def _extra(data: dict[str, Any]) -> dict[str, Any]:
    return {"citations": data["citations"], "officeqa": {**answer_report(data), "answer": data["answer"]}}


def usage(answer: Answer, question: str, history: list[dict[str, str]]) -> dict[str, int]:
    """Token usage: the model's own counts when it reported them, else counted with the project's counter
    (what the client sent in, what it got back)."""
    generation = answer.metadata.get("generation") or {}
    prompt = generation.get("prompt_eval_count")
    completion = generation.get("eval_count")
    if prompt is None or completion is None:
        counter = default_token_counter()
        if prompt is None:
            prompt = counter.count(question) + sum(counter.count(m["content"]) for m in history)
        if completion is None:
            completion = counter.count(answer.text)
    prompt, completion = int(prompt), int(completion)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class _Exchange:
    """One OpenAI request on its way to an answer: the question, its history, the ids and the model."""

    def __init__(self, request: Request, model: str, question: str, history: list[dict[str, str]],
                 prefix: str) -> None:
        self.request = request
        self.kb = _kb_for_model(request, model)
        self.model = model_name(self.kb)
        self.question = question
        self.history = history
        self.id = f"{prefix}-{uuid.uuid4().hex}"
        self.created = int(time.time())
        remember_question(request, question)

    async def answer(self) -> tuple[Answer, dict[str, Any]]:
        resources = resources_of(self.request)
        answer = await resources.pool.call(self.kb, lambda service: service.ask(self.question, history=self.history))
        return answer, await self.public(answer)

    async def public(self, answer: Answer) -> dict[str, Any]:
        return await answer_json(resources_of(self.request), self.kb, answer)

    async def events(self) -> AsyncIterator[AnswerEvent]:
        pool = resources_of(self.request).pool
        return await first_then_rest(pool.stream(
            self.kb, lambda service: service.answer(self.question, history=self.history, stream=True)))

    def envelope(self, obj: str, **body: Any) -> dict[str, Any]:
        return {"id": self.id, "object": obj, "created": self.created, "model": self.model, **body}


async def _stream(exchange: _Exchange, events: AsyncIterator[AnswerEvent], include_usage: bool,
                  chunk: Callable[[str | None, str | None], dict[str, Any]], obj: str,
                  first: str | None) -> AsyncIterator[ServerSentEventMessage]:
    """SSE chunks: ``first`` (chat: the role), the text pieces, the finish chunk with citations, the usage chunk
    when asked for, ``[DONE]``; an error after the start is an OpenAI error object, then ``[DONE]``."""
    nulls = {"usage": None} if include_usage else {}  # OpenAI: every other chunk carries "usage": null

    def piece(choices: list[dict[str, Any]], **extra: Any) -> ServerSentEventMessage:
        return ServerSentEventMessage(data=_json(exchange.envelope(obj, choices=choices, **{**nulls, **extra})))

    if first is not None:
        yield piece([chunk(first, None)])
    streamed = False
    try:
        async for event in events:
            if event.kind == "delta":
                streamed = True
                yield piece([chunk(event.text, None)])
            elif event.answer is not None:
                answer = event.answer
                data = await exchange.public(answer)
                if not streamed:
                    yield piece([chunk(_visible_text(data), None)])
                yield piece([chunk(None, "stop")], **_extra(data))
                if include_usage:
                    yield piece([], usage=usage(answer, exchange.question, exchange.history))
    except Exception as exc:  # noqa: BLE001 - the status line is sent: the error is the last event
        _, body = status_and_body(exc)
        yield ServerSentEventMessage(data=_json(body))
    yield ServerSentEventMessage(data="[DONE]")


def _chat_turns(data: OpenAIChatRequest, request: Request) -> tuple[str, list[dict[str, str]]]:
    sizes = policy_of(request).sizes
    turns = [m for m in data.messages if m.role in ("user", "assistant")]
    if not turns or turns[-1].role != "user":
        raise RequestRefused("messages: the last user or assistant message must be the user's question",
                             param="messages")
    question = sizes.question(turns[-1].text(), param="messages")
    history = [{"role": m.role, "content": m.text()} for m in turns[:-1]]
    sizes.history([m.text() for m in data.messages[:-1]], param="messages")
    return question, history


@post("/v1/chat/completions", guards=[limit_answers], status_code=200, tags=["openai"],
      summary="OpenAI-compatible chat completion")
async def chat_completions(data: OpenAIChatRequest, request: Request) -> Response[Any]:
    """The answer as a ``chat.completion`` (or ``chat.completion.chunk`` events with ``"stream": true``),
    with ``citations`` and ``officeqa`` fields beside the standard ones."""
    question, history = _chat_turns(data, request)
    exchange = _Exchange(request, data.model, question, history, "chatcmpl")
    if not data.stream:
        answer, public = await exchange.answer()
        return Response(content=exchange.envelope(
            "chat.completion",
            choices=[{"index": 0, "message": {"role": "assistant", "content": _visible_text(public)},
                      "logprobs": None, "finish_reason": "stop"}],
            usage=usage(answer, question, history), **_extra(public)))

    def chunk(text: str | None, finish: str | None) -> dict[str, Any]:
        delta: dict[str, Any] = {} if text is None else {"content": text}
        if text == "" and finish is None:
            delta = {"role": "assistant", "content": ""}
        return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}

    events = await exchange.events()
    return ServerSentEvent(_stream(exchange, events, data.include_usage, chunk, "chat.completion.chunk", ""),
                           headers=_SSE_HEADERS)


@post("/v1/completions", guards=[limit_answers], status_code=200, tags=["openai"],
      summary="OpenAI-compatible (legacy) completion: the prompt is answered as a question")
async def completions(data: OpenAICompletionRequest, request: Request) -> Response[Any]:
    """The prompt answered as a question (no history), as a ``text_completion``; ``"stream": true`` sends
    ``text_completion`` chunks. Citations ride as on the chat endpoint."""
    question = policy_of(request).sizes.question(data.prompt_text(), param="prompt")
    exchange = _Exchange(request, data.model, question, [], "cmpl")
    if not data.stream:
        answer, public = await exchange.answer()
        text = _visible_text(public)
        return Response(content=exchange.envelope(
            "text_completion",
            choices=[{"index": 0, "text": f"{question}{text}" if data.echo else text, "logprobs": None,
                      "finish_reason": "stop"}],
            usage=usage(answer, question, []), **_extra(public)))

    def chunk(text: str | None, finish: str | None) -> dict[str, Any]:
        return {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish}

    events = await exchange.events()
    return ServerSentEvent(_stream(exchange, events, data.include_usage, chunk, "text_completion",
                                   question if data.echo else None), headers=_SSE_HEADERS)


__all__ = ["chat_completions", "completions", "model_name", "models", "usage"]
