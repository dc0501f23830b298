"""Retrieval without a model: the materials' best sentences, quoted with citations, and a notice saying why.

The last answerer of the table: it always answers. With a low-confidence rule result waiting
(``ctx.fallback``) and no model to weigh it, that result is shown as it is, with its own notice.
"""

from __future__ import annotations

import time

from retrieval.answerers.materials import materials
from retrieval.answering import Answer, NoModel, notice_for
from retrieval.context import QuestionContext
from retrieval.messages import text as message


class RetrievalExtractive:
    """Quoted sentences from the retrieved materials (or "nothing matches")."""

    def answer(self, ctx: QuestionContext) -> Answer:
        failure = ctx.failure or NoModel()
        ctx.meta["failure"] = {"kind": failure.reason, "message": str(failure)}
        if ctx.fallback is not None:
            rule = ctx.fallback
            rule.notice = notice_for(failure.reason, ctx.language, suffix="rule_suffix")
            rule.metadata["failure"] = ctx.meta["failure"]
            return rule
        found = materials(ctx)
        if not found:
            ctx.meta.pop("failure")
            return ctx.tools.finish(ctx, ctx.reply(message("no_hits", ctx.language), [], "extractive"))
        mark = time.monotonic()
        extractive = ctx.tools.extract(ctx, found)
        ctx.meta["extractive"] = {"found": extractive.found, "coverage": extractive.coverage}
        ctx.timings["extractive_s"] = time.monotonic() - mark
        notice = notice_for(failure.reason, ctx.language, _detail(ctx, failure.reason))
        text = extractive.text
        if not extractive.found and not extractive.citations:
            text = "\n".join([text, *covered(ctx)])
        return ctx.tools.finish(ctx, ctx.reply(text, extractive.citations, "extractive", notice))


#: Documents named in a "not found" answer as what the knowledge base covers.
COVERED_SHOWN = 8


def covered(ctx: QuestionContext) -> list[str]:
    """What the knowledge base does cover, for a "not found" with nothing attached: its documents' titles (a few)."""
    titles = sorted({entry.title for entry in ctx.catalog.values() if entry.title})
    if not titles:
        return []
    shown = "; ".join(titles[:COVERED_SHOWN]) + ("; …" if len(titles) > COVERED_SHOWN else "")
    return [message("kb_covers", ctx.language, titles=shown, count=len(titles))]


def _detail(ctx: QuestionContext, reason: str) -> str:
    """The host or model the notice names."""
    ollama = ctx.tools.settings.ollama
    if reason in ("unreachable", "timeout", "connection_dropped", "server_error"):
        return ollama.host
    if reason in ("model_missing", "empty_answer"):
        return ollama.model
    return ""


__all__ = ["COVERED_SHOWN", "RetrievalExtractive", "covered"]
