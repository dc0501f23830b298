"""An L0 handler over the stored parsed documents (phone numbers, amounts, dates, outline, counts in
document tables), rendered with quoted evidence.

A confident rule (mode ``answer``) is the answer. A low-confidence one (``handler_then_model``)
hands its result to the model as material, and is the fallback if no model weighs it; with no
model at all it is skipped (quoting the documents is safer), and so is a result that found
nothing (its "none" is no evidence). A count or aggregate over documents without tables cannot
apply ("内测用户数达到多少人" asks for a stated figure): retrieval answers.
"""

from __future__ import annotations

from retrieval.answer_texts import document_name, scope_notes
from retrieval.answerers.handled import handled_answer, rule_result
from retrieval.answerers.handover import complete_or_hand_over, one_ask
from retrieval.answering import Answer, handler_material
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.messages import text as message
from retrieval.placing import HANDLER_MODES
from retrieval.question_kind import asks_for_rule
from retrieval.rule_answers import table_columns
from retrieval.rules.loader import HANDLER_ROUTES
from retrieval.tables.answer import TABLE_ROUTES


class RuleHandler:
    """The route's deterministic handler over the scope's stored documents."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        decision = ctx.decision
        if knowledge is None or decision is None or decision.mode not in HANDLER_MODES \
                or decision.route not in HANDLER_ROUTES or ctx.fallback is not None or "handler_skipped" in ctx.meta:
            return None
        if not asks_for_rule(ctx.standalone, decision.route):
            # "Did ACRES outline new ESG initiatives?" is no request for an outline: retrieval answers it
            ctx.meta["handler_skipped"] = "the question does not ask for this rule's answer"
            return None
        if decision.mode == "handler_then_model" and ctx.failure is not None:
            ctx.meta["handler_skipped"] = "low-confidence rule and no model to check it"
            return None
        if decision.route in TABLE_ROUTES and not table_columns(ctx.stored):
            ctx.meta["handler_skipped"] = "no table in the documents in scope"
            return None
        rule = self._rule(knowledge, ctx)
        if decision.mode == "answer":  # a confident rule answers one ask; a question asking more is handed over
            return complete_or_hand_over(ctx, rule, one_ask(ctx.standalone), f"rule:{decision.route}")
        if rule.metadata.get("handler", {}).get("items") == []:
            ctx.meta["handler_skipped"] = "low-confidence rule found nothing"
        else:
            ctx.fallback = rule
            ctx.extra.append(handler_material(decision, rule.text))
        return None

    @staticmethod
    def _rule(knowledge: Knowledge, ctx: QuestionContext) -> Answer:
        lines = scope_notes(ctx.scope, ctx.catalog, ctx.language)
        lines += [message("not_stored", ctx.language, document=document_name(d, ctx.catalog)) for d in ctx.missing]
        if not ctx.stored:
            text = "\n".join([*lines, message("no_documents", ctx.language)]) if not ctx.missing else "\n".join(lines)
            metadata = {**ctx.meta, "scope": ctx.scope.to_json(ctx.catalog), "handler": {"items": []}}
            return ctx.close(ctx.reply(text, [], "rule", metadata=metadata))
        return handled_answer(knowledge, ctx, rule_result(ctx), ctx.scope, ctx.stored, lines)


__all__ = ["RuleHandler"]
