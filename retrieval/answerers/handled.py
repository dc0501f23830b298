"""A handler's or table query's result as an answer: notes, the rendered result with quotes, "依据文档：…".

Shared by the rule-handler, table and table-probe answerers, so a deterministic answer reads
the same whichever of them computed it.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.answer_texts import based_on, scope_notes
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.handlers.results import HandlerResult
from retrieval.knowledge import Knowledge
from retrieval.rule_answers import StoredDocument, render_rule_answer
from retrieval.scope import Scope


def handled_answer(knowledge: Knowledge, ctx: QuestionContext, result: HandlerResult, scope: Scope,
                   documents: Sequence[StoredDocument], lines: list[str] | None = None) -> Answer:
    """The result over ``documents`` as a rule answer; ``lines`` go first (default: the scope's notes)."""
    lines = lines if lines is not None else scope_notes(scope, ctx.catalog, ctx.language)
    body, citations = render_rule_answer(result, documents, knowledge.chunk_texts, ctx.language)
    text = "\n".join([*lines, body, based_on(scope, ctx.catalog, ctx.language)]).strip()
    metadata = {**ctx.meta, "scope": scope.to_json(ctx.catalog), "handler": result.to_json()}
    return ctx.close(ctx.reply(text, citations, "rule", metadata=metadata))


__all__ = ["handled_answer"]
