"""A plain question that asks for a computation ("Which team won the Stanley Cup the most times?"): tried on
the stored tables, and only an exact table answer is used; anything short of exact leaves it to retrieval.

Why a second look after routing: the L0 rules route by intent words, and a computation phrased as
a fact question reaches the default route; the words below mark it as one.
"""

from __future__ import annotations

import re

from retrieval.answerers.tables import table_answer, table_result
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.rules.arbitration import DEFAULT_ROUTE

#: Words that ask for a computation over rows.
COMPUTES = re.compile(
    r"how many|in total|\btotal\b|\bsum\b|average|\bmean\b|(?:the )?(?:most|least|fewest|highest|lowest|largest|"
    r"smallest)\b|maximum|minimum|合计|总计|共计|一共|总共|加起来|平均|最高|最低|最多|最少|最大|最小|多少个|多少条|"
    r"多少笔|多少家|多少人|几个|几条|几笔|几家",
    re.IGNORECASE,
)


class TableProbe:
    """An exact aggregate over the stored tables for a default-route question with computation words."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or ctx.route != DEFAULT_ROUTE or not COMPUTES.search(ctx.standalone):
            return None
        probe = table_result(knowledge, ctx, "table_aggregate")
        ctx.meta["table_probe"] = probe.result.outcome if probe is not None else "no table"
        if probe is None or probe.result.outcome != "exact":
            return None
        return table_answer(knowledge, ctx, probe)


__all__ = ["COMPUTES", "TableProbe"]
