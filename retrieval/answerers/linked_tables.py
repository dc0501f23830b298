"""A table question the L0 rules did not route to the tables ("研发部有哪些员工？", "尤静是哪天入职的？",
"2023年订单总金额是多少（不含已取消订单）？" routed to amount extraction): tried on the stored tables, and
only an exact table answer is used; anything short of exact leaves the question to retrieval.

Why after the rule handlers and the table probe: they answer what they are sure of first; this one
catches counts, lists, dates, totals and cell lookups ("华北区第二季度的目标", "投影仪在西南区的销量") phrased in
ways the rules do not know. No word list gates it: the table linker must account for every word of the
question, so a question about text (a policy, a notice) does not come back exact.
"""

from __future__ import annotations

import re

from retrieval.answerers.tables import table_answer, table_result
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.tables.answer import TABLE_ROUTES

#: Words of a table question: counts, totals, lists, extremes, dates of a row (the model-planned answerer asks the
#: model only for such questions).
TABLE_WORDS = re.compile(
    r"多少|几[个条笔单份家人位名项次台件]|合计|总计|总额|总和|一共|总共|加起来|平均|最高|最低|最多|最少|最大|最小|"
    r"前[一二三四五六七八九十\d]|有哪些|哪些|列出|清单|名单|哪天|哪一天|什么时候|何时|日期|分别|"
    r"how many|how much|total|sum|average|most|least|highest|lowest|top \d|list|which|when",
    re.IGNORECASE,
)
_LIST = re.compile(r"有哪些|哪些|列出|清单|名单|\blist\b", re.IGNORECASE)


class LinkedTables:
    """An exact table answer for a question routed elsewhere that reads as a table question."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or ctx.route in TABLE_ROUTES:
            return None
        route = "list_values" if _LIST.search(ctx.standalone) else "table_aggregate"
        found = table_result(knowledge, ctx, route)
        ctx.meta["linked_tables"] = found.result.outcome if found is not None else "no table"
        if found is None or found.result.outcome != "exact":
            return None
        return table_answer(knowledge, ctx, found)


__all__ = ["TABLE_WORDS", "LinkedTables"]
