"""A table question a confident rule would answer with "nothing found" ("实际费用高于预算费用的活动有哪些？" routed
to amount extraction, which finds no amount in a comparison): an exact table answer comes first.

Why before the rule handler: a confident rule's answer ends the walk, and its "未找到金额" says nothing about
the rows; the table linker must account for every word of the question, so only a question the tables
answer exactly is taken here. A rule that finds something, or a table answer short of exact, leaves the
question to the rule handler as before.
"""

from __future__ import annotations

from retrieval.answerers.handled import rule_result
from retrieval.answerers.tables import table_answer, table_result
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.rules.loader import HANDLER_ROUTES
from retrieval.tables.answer import TABLE_ROUTES

_LIST = ("有哪些", "哪些", "列出", "清单", "名单", "list")


class EmptyRuleTables:
    """An exact table answer in place of a confident rule that finds nothing."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        decision = ctx.decision
        if knowledge is None or decision is None or decision.mode != "answer" or not ctx.stored \
                or decision.route not in HANDLER_ROUTES or decision.route in TABLE_ROUTES:
            return None
        if rule_result(ctx).items:
            return None
        route = "list_values" if any(w in ctx.standalone.lower() for w in _LIST) else "table_aggregate"
        found = table_result(knowledge, ctx, route)
        if found is None or found.result.outcome != "exact":
            return None
        ctx.meta["empty_rule_tables"] = decision.route
        return table_answer(knowledge, ctx, found)


__all__ = ["EmptyRuleTables"]
