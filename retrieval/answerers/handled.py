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
from retrieval.l0 import run_handler
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


def rule_result(ctx: QuestionContext) -> HandlerResult:
    """The route's handler over the scope's stored documents, run once per question: EmptyRuleTables looks at
    it to see whether the rule finds anything, RuleHandler then renders the same result."""
    if ctx.rule_result is None:
        assert ctx.decision is not None
        ctx.rule_result = run_handler(ctx.decision, [d.parsed for d in ctx.stored])
    return ctx.rule_result


__all__ = ["handled_answer", "rule_result"]
