"""OpenAI-compatible chat: ``POST /v1/chat/completions`` (streaming and not) and ``GET /v1/models``.

One model per knowledge base the key may read, named ``officeqa/<kb>``; the model name (or the
``X-Knowledge-Base`` header, or a bare ``<kb>``) selects the knowledge base, so a key cannot
reach another knowledge base through this endpoint either. The last user message is the
question, the earlier user/assistant messages its history.

Citations stay with the answer: a completion carries ``citations`` (the same objects as
``/api/chat``) and ``officeqa`` (mode, notice, final text, route and budget report); when
streaming, the last chunk (``finish_reason: "stop"``) carries both. OpenAI clients keep
unknown fields (``completion.model_extra["citations"]`` in the Python client). When no model
answered (rule or extractive answers) the notice leads the message text, since chat clients
show only the text.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from litestar import Request, Response, get, post
from litestar.exceptions import ValidationException
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from officeqa.errors import UnknownKnowledgeBase
from retrieval.answering import Answer, AnswerEvent
from server.access import access_of, requested_kb, require_key, resources_of
from server.api_chat import answer_report, first_then_rest
from server.errors import status_and_body
from server.schemas import OpenAIChatRequest

MODEL_PREFIX = "officeqa/"


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


def _visible_text(answer: Answer) -> str:
    if answer.mode != "model" and answer.notice:
        return f"{answer.notice}\n\n{answer.text}"
    return answer.text


def _extra(answer: Answer) -> dict[str, Any]:
    data = answer.to_json()
    return {"citations": data["citations"], "officeqa": {**answer_report(data), "answer": data["answer"]}}


def _usage(answer: Answer) -> dict[str, int]:
    generation = answer.metadata.get("generation") or {}
    prompt = int(generation.get("prompt_eval_count") or 0)
    completion = int(generation.get("eval_count") or 0)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


@post("/v1/chat/completions", guards=[require_key], status_code=200, tags=["openai"],
      summary="OpenAI-compatible chat completion")
async def chat_completions(data: OpenAIChatRequest, request: Request) -> Response[Any]:
    """The answer as a ``chat.completion`` (or ``chat.completion.chunk`` events with ``"stream": true``),
    with ``citations`` and ``officeqa`` fields beside the standard ones."""
    resources = resources_of(request)
    kb = _kb_for_model(request, data.model)
    turns = [m for m in data.messages if m.role in ("user", "assistant")]
    if not turns or turns[-1].role != "user" or not turns[-1].text().strip():
        raise ValidationException("messages: the last user/assistant message must be a non-empty user message")
    question = turns[-1].text()
    history = [{"role": m.role, "content": m.text()} for m in turns[:-1]]
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    model = model_name(kb)

    if not data.stream:
        answer = await resources.pool.call(kb, lambda service: service.ask(question, history=history))
        return Response(content={
            "id": completion_id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": _visible_text(answer)},
                         "finish_reason": "stop"}],
            "usage": _usage(answer), **_extra(answer),
        })

    events = await first_then_rest(resources.pool.stream(
        kb, lambda service: service.answer(question, history=history, stream=True)))

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> ServerSentEventMessage:
        body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return ServerSentEventMessage(data=_json(body))

    async def stream(items: AsyncIterator[AnswerEvent]) -> AsyncIterator[ServerSentEventMessage]:
        yield chunk({"role": "assistant", "content": ""})
        streamed = False
        try:
            async for event in items:
                if event.kind == "delta":
                    streamed = True
                    yield chunk({"content": event.text})
                elif event.answer is not None:
                    answer = event.answer
                    if not streamed:
                        yield chunk({"content": _visible_text(answer)})
                    yield chunk({}, "stop", usage=_usage(answer), **_extra(answer))
        except Exception as exc:  # noqa: BLE001 - the status line is sent: the error is the last event
            _, body = status_and_body(exc)
            yield ServerSentEventMessage(data=_json(body))
        yield ServerSentEventMessage(data="[DONE]")

    return ServerSentEvent(stream(events), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


__all__ = ["chat_completions", "model_name", "models"]
