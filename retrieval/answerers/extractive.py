"""Retrieval without a model: the materials' best sentences, quoted with citations, and a notice saying why.

The last answerer of the table: it always answers. With a low-confidence rule result waiting
(``ctx.fallback``) and no model to weigh it, that result is shown as it is, with its own notice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from retrieval.answerers.materials import materials
from retrieval.answering import Answer, NoModel, notice_for
from retrieval.catalog import CatalogEntry
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
    """What the knowledge base does cover, for a "not found" with nothing attached: a few of its documents.

    A report is named by the company and year its identity holds ("Elixir Energy Limited, annual report 2022"),
    not by its PDF metadata title ("EDGAR PDF", "ACN 614 854 045"); other documents by their title. The count is
    the documents', not the distinct labels'.
    """
    return covers_lines(ctx.catalog, ctx.language)


def covers_lines(catalog: Mapping[str, CatalogEntry], language: str) -> list[str]:
    """The "the knowledge base's N documents cover: …" line for ``catalog`` (none for an empty one)."""
    labels = sorted({document_label(entry) for entry in catalog.values()} - {""})
    if not labels:
        return []
    shown = "; ".join(labels[:COVERED_SHOWN]) + ("; …" if len(labels) > COVERED_SHOWN else "")
    return [message("kb_covers", language, titles=shown, count=len(catalog))]


def document_label(entry: CatalogEntry) -> str:
    """How a "not found" names one document: the report's company and year, else its title."""
    subject = entry.profile.subject
    if subject is not None and subject.entity:
        return subject.describe()
    return entry.title


def _detail(ctx: QuestionContext, reason: str) -> str:
    """The host or model the notice names."""
    ollama = ctx.tools.settings.ollama
    if reason in ("unreachable", "timeout", "connection_dropped", "server_error"):
        return ollama.host
    if reason in ("model_missing", "empty_answer"):
        return ollama.model
    return ""


__all__ = ["COVERED_SHOWN", "RetrievalExtractive", "covered", "covers_lines", "document_label"]
