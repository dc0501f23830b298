"""Request bodies of the JSON endpoints (validated by Litestar, documented in the OpenAPI schema).

Field types are strict (``temperature: "hot"`` is a 400 naming the field); sizes are checked
against the settings by :class:`server.limits.SizePolicy`, since they are configurable. Fields
OpenAI clients send that this server does not use (temperature, top_p, max_tokens, ...) are
accepted when well typed and otherwise ignored: the answer comes from the knowledge base.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

Question = Annotated[str, msgspec.Meta(description="The question (server.max_question_chars at most).")]


class Message(msgspec.Struct):
    """One earlier turn of the conversation."""

    role: Literal["user", "assistant", "system"]
    content: str


class ChatRequest(msgspec.Struct):
    """``POST /api/chat``."""

    question: Question
    history: list[Message] = []
    documents: Annotated[
        list[str], msgspec.Meta(max_length=100, description="Doc ids (8+ leading characters) to answer from.")
    ] = []
    stream: bool = True
    mode: Literal["hybrid", "bm25", "dense"] = "hybrid"


class RouteRequest(msgspec.Struct):
    """``POST /api/route``: how the L0 rules route an instruction, rule by rule."""

    instruction: str
    file_type: str | None = None


class OpenAIMessage(msgspec.Struct):
    """A chat message as OpenAI clients send it (content: a string or a list of text parts)."""

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None
    name: str | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            return "".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return ""


class StreamOptions(msgspec.Struct):
    """``stream_options``: ``include_usage`` adds a last chunk with ``choices: []`` and the usage."""

    include_usage: bool = False


Probability = Annotated[float, msgspec.Meta(ge=0, le=2)]


class _OpenAICommon(msgspec.Struct, kw_only=True):
    """Fields both OpenAI endpoints share; the sampling ones are checked for type and range, not used."""

    model: str
    stream: bool = False
    stream_options: StreamOptions | None = None
    temperature: Probability | None = None
    top_p: Annotated[float, msgspec.Meta(ge=0, le=1)] | None = None
    max_tokens: Annotated[int, msgspec.Meta(ge=1)] | None = None
    n: Annotated[int, msgspec.Meta(ge=1, le=1)] | None = None
    stop: str | list[str] | None = None
    presence_penalty: Annotated[float, msgspec.Meta(ge=-2, le=2)] | None = None
    frequency_penalty: Annotated[float, msgspec.Meta(ge=-2, le=2)] | None = None
    seed: int | None = None
    user: str | dict[str, Any] | None = None  # OpenAI: a string; some front ends (Open WebUI) send an object

    @property
    def include_usage(self) -> bool:
        return bool(self.stream and self.stream_options and self.stream_options.include_usage)


class OpenAIChatRequest(_OpenAICommon, kw_only=True):
    """``POST /v1/chat/completions``."""

    messages: Annotated[list[OpenAIMessage], msgspec.Meta(min_length=1)]
    max_completion_tokens: Annotated[int, msgspec.Meta(ge=1)] | None = None


class OpenAICompletionRequest(_OpenAICommon, kw_only=True):
    """``POST /v1/completions``: the prompt is a question (a list of one prompt is accepted too)."""

    prompt: str | Annotated[list[str], msgspec.Meta(min_length=1, max_length=1)]
    echo: bool = False

    def prompt_text(self) -> str:
        return self.prompt if isinstance(self.prompt, str) else self.prompt[0]


__all__ = ["ChatRequest", "Message", "OpenAIChatRequest", "OpenAICompletionRequest", "OpenAIMessage",
           "RouteRequest", "StreamOptions"]
