"""Request bodies of the JSON endpoints (validated by Litestar, documented in the OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

Question = Annotated[str, msgspec.Meta(min_length=1, max_length=8000, description="The question.")]


class Message(msgspec.Struct):
    """One earlier turn of the conversation."""

    role: Literal["user", "assistant", "system"]
    content: str


class ChatRequest(msgspec.Struct):
    """``POST /api/chat``."""

    question: Question
    history: Annotated[list[Message], msgspec.Meta(max_length=200)] = []
    documents: Annotated[
        list[str], msgspec.Meta(max_length=100, description="Doc ids (8+ leading characters) to answer from.")
    ] = []
    stream: bool = True
    mode: Literal["hybrid", "bm25", "dense"] = "hybrid"


class RouteRequest(msgspec.Struct):
    """``POST /api/route``: how the L0 rules route an instruction, rule by rule."""

    instruction: Annotated[str, msgspec.Meta(min_length=1, max_length=8000)]
    file_type: str | None = None


class OpenAIMessage(msgspec.Struct):
    """A chat message as OpenAI clients send it (content: a string or a list of text parts)."""

    role: str
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            return "".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return ""


class OpenAIChatRequest(msgspec.Struct):
    """``POST /v1/chat/completions`` (fields this server does not use, such as temperature, are accepted)."""

    model: str
    messages: Annotated[list[OpenAIMessage], msgspec.Meta(min_length=1, max_length=200)]
    stream: bool = False


__all__ = ["ChatRequest", "Message", "OpenAIChatRequest", "OpenAIMessage", "RouteRequest"]
