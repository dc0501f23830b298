"""``POST /api/chat``: a question answered by the question service, streamed as server-sent events.

Events, in order: ``delta`` ``{"text"}`` while a model writes (none for rule and extractive
answers), then ``citations`` (the list), ``report`` (mode, notice, route, scope, retrieval,
prompt budget, timings) and ``answer`` (the whole ``officeqa ask --json`` object, whose text
is final: markers checked, scope notes added). ``"stream": false`` answers that object alone.

The first event is awaited before the response starts, so a question that fails before
answering (an unknown knowledge base, a broken index) gets a real 4xx/5xx; an error after the
stream has started arrives as an ``error`` event with the same JSON body.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from litestar import Request, Response, post
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from retrieval.answering import Answer, AnswerEvent
from server.access import kb_of, limit_answers, policy_of, resources_of
from server.errors import status_and_body
from server.public_paths import public_answer
from server.resources import ServerResources
from server.schemas import ChatRequest

_REPORT_KEYS = ("route", "scope", "retrieval", "assembly", "generation", "rewrite", "failure", "timings")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def answer_report(answer: dict[str, Any]) -> dict[str, Any]:
    """The route and budget report of an answer (a subset of its metadata)."""
    metadata = answer.get("metadata", {})
    return {"mode": answer["mode"], "notice": answer["notice"], "language": answer["language"],
            **{k: metadata[k] for k in _REPORT_KEYS if k in metadata}}


async def answer_json(resources: ServerResources, kb: str, answer: Answer) -> dict[str, Any]:
    """The answer object a client gets: file paths relative to the knowledge base, no model-server address."""
    return public_answer(answer.to_json(), await resources.path_view(kb), resources.settings.ollama.host)


async def first_then_rest(events: AsyncIterator[AnswerEvent]) -> AsyncIterator[AnswerEvent]:
    """Await the first event now (errors surface before a response starts); the rest follow lazily."""
    first = await anext(events)

    async def chained() -> AsyncIterator[AnswerEvent]:
        yield first
        async for event in events:
            yield event

    return chained()


async def _sse(events: AsyncIterator[AnswerEvent], resources: ServerResources,
               kb: str) -> AsyncIterator[ServerSentEventMessage]:
    try:
        async for event in events:
            if event.kind == "delta":
                yield ServerSentEventMessage(event="delta", data=_json({"text": event.text}))
            elif event.answer is not None:
                answer = await answer_json(resources, kb, event.answer)
                yield ServerSentEventMessage(event="citations", data=_json(answer["citations"]))
                yield ServerSentEventMessage(event="report", data=_json(answer_report(answer)))
                yield ServerSentEventMessage(event="answer", data=_json(answer))
    except Exception as exc:  # noqa: BLE001 - the status line is sent: the error becomes the stream's last event
        _, body = status_and_body(exc)
        yield ServerSentEventMessage(event="error", data=_json(body))


def remember_question(request: Request, question: str) -> None:
    """Keep the question for the access log (written only when ``server.access_log_questions`` is on)."""
    request.state.question = question


@post("/api/chat", guards=[limit_answers], status_code=200, summary="Ask a question (SSE stream, or one JSON answer)",
      tags=["chat"])
async def chat(data: ChatRequest, request: Request) -> Response[Any]:
    """Answer ``question`` from the knowledge base (``X-Knowledge-Base`` header or ``?kb=``), with citations.

    ``history``: earlier turns (follow-up questions are rewritten into standalone ones);
    ``documents``: doc ids to answer from. ``stream`` true: ``text/event-stream`` with events
    ``delta``, ``citations``, ``report``, ``answer``; false: the answer object (as ``officeqa ask --json``).
    """
    sizes = policy_of(request).sizes
    question = sizes.question(data.question)
    sizes.history([m.content for m in data.history], param="history")
    remember_question(request, question)
    resources = resources_of(request)
    kb = kb_of(request)
    history = [{"role": m.role, "content": m.content} for m in data.history]
    documents = list(data.documents) or None

    def answer(service: Any) -> Any:
        return service.answer(question, documents=documents, history=history, stream=data.stream, mode=data.mode)

    if not data.stream:
        result = await resources.pool.call(kb, lambda service: service.ask(
            question, documents=documents, history=history, mode=data.mode))
        return Response(content=await answer_json(resources, kb, result))
    events = await first_then_rest(resources.pool.stream(kb, answer))
    return ServerSentEvent(_sse(events, resources, kb),
                           headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


__all__ = ["answer_json", "answer_report", "chat", "first_then_rest", "remember_question"]
