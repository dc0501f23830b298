"""An empty knowledge base: say how to start (index files, or upload them), not "nothing matches"."""

from __future__ import annotations

from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.messages import text as message


class EmptyKnowledgeBase:
    """Answers every question while nothing is indexed."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        if knowledge_of(ctx) is None or ctx.catalog:
            return None
        return ctx.reply(message("empty_kb", ctx.language), [], "extractive",
                         metadata={**ctx.meta, "scope": {"method": "empty"}})


__all__ = ["EmptyKnowledgeBase"]
