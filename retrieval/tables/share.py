"""Shares: "what percentage of the total salary goes to Engineering", "五金类物料的库存数量占全部库存数量的比例".

Why a step of its own: a share is two queries, the part (the question's conditions) and the whole (the same sum or
count over every row), and both are said with the ratio so a user sees what was divided by what (issue 35,
item 5). The share words are read here and replaced by a plain "total"; the rest of the question goes through the
linker like any other, so a word it cannot place still refuses. Only a part picked by the values of one column is
read as a share of the whole table: with a date or numeric condition as well, "of the total" could mean the whole
table or the whole period, and the question is refused.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from indexing.table_store import TableStore
from retrieval.handlers.columns import column_core
from retrieval.handlers.results import HandlerItem, HandlerResult
from retrieval.tables.execute import run_query
from retrieval.tables.query import Refusal, TableQuery
from retrieval.tables.render import query_words, refusal_result, table_result

__all__ = ["ShareQuestion", "answer_share", "share_question"]

_EN_SHARE = re.compile(r"\bwhat\s+(?:share|percentage|percent|proportion|fraction)\s+of\s+(?:the\s+)?", re.IGNORECASE)
_EN_TAIL = re.compile(r"\b(?:goes|go|went|belongs?|is|are|was|were)\s+(?:to|from|in)\b|\b(?:comes?|came)\s+from\b|"
                      r"\bis accounted for by\b", re.IGNORECASE)
#: "what share of the units sold did the West region sell?": the subject of "did … <verb>" is the part.
_EN_DID = re.compile(r"\bdid\s+(?P<part>.+?)\s+(?:sell|make|earn|get|win|receive|score|have|contribute|generate|"
                     r"spend|account\s+for|bring\s+in)\s*(?=[?.!]|$)", re.IGNORECASE)
_ZH_SHARE = re.compile(r"占(?P<between>[^，。？?！!]{0,16}?)的?(?:比例|比重|百分比)|所占的?(?:比例|比重)|的?占比")
_WHOLE = re.compile(r"^(?:全部|所有|总|整体|全体)?的?(?P<column>.*?)(?:总和|合计|总量|总额|总数)?$")


@dataclass(slots=True)
class ShareQuestion:
    """The question with its share words replaced by "total", and the column the whole was named by (if any)."""

    text: str
    whole: str


def share_question(question: str) -> ShareQuestion | None:
    """The question as a total of the part, when it asks for a share; None otherwise."""
    english = _EN_SHARE.search(question)
    if english is not None:
        rest = question[english.end():]
        rest = _EN_DID.sub(r"for \g<part>", rest, count=1) if _EN_DID.search(rest) else _EN_TAIL.sub(" for ", rest,
                                                                                                     count=1)
        return ShareQuestion(f"{question[:english.start()]}what is the total of {rest}", "")
    chinese = _ZH_SHARE.search(question)
    if chinese is None:
        return None
    between = _WHOLE.match((chinese.group("between") or "").strip())
    whole = between.group("column") if between is not None else ""
    return ShareQuestion(f"{question[:chinese.start()]}合计{question[chinese.end():]}", whole)


def answer_share(share: ShareQuestion, query: TableQuery | None, refusal: Refusal | None, store: TableStore,
                 route: str, zh: bool) -> HandlerResult:
    """Part / whole of the planned sum or count, both inputs shown; a refusal when the plan is no plain part."""
    if query is None:
        assert refusal is not None
        return refusal_result(refusal, route, zh)
    problem = _not_a_part(share, query)
    if problem is not None:
        return refusal_result(problem, route, zh)
    whole_query = copy.copy(query)
    whole_query.filters = []
    part, whole = run_query(query, store), run_query(whole_query, store)
    shown = table_result(part, route, zh)
    if part.value is None or whole.value in (None, 0):
        return shown
    ratio = Decimal(str(part.value)) / Decimal(str(whole.value)) * 100
    plain = format(ratio.quantize(Decimal("0.0001")).normalize(), "f")
    part_words, whole_words = query_words(query, zh, part.matched), query_words(whole_query, zh, whole.matched)
    if zh:
        text = (f"查询：占比 = （{part_words}）÷（{whole_words}）\n"
                f"结果：{float(ratio):.2f}%（{part.value} ÷ {whole.value}）")
    else:
        text = (f"Query: share = ({part_words}) / ({whole_words})\n"
                f"Result: {float(ratio):.2f}% ({part.value} / {whole.value})")
    citations = [c for item in shown.items for c in item.citations]
    data = {**shown.data, "op": "share", "value": plain, "part": str(part.value), "whole": str(whole.value)}
    return HandlerResult(route=route, answer_text=text, items=[HandlerItem(value=f"{float(ratio):.2f}%",
                         normalized=plain, kind="share", citations=citations)], data=data, outcome="exact",
                         query=text.split("\n")[0])


def _not_a_part(share: ShareQuestion, query: TableQuery) -> Refusal | None:
    columns: Sequence[str] = [column_core(c.name).replace(" ", "") for c in query.table.columns]
    named = share.whole.replace(" ", "")
    measure = column_core(query.measure.name).replace(" ", "") if query.measure is not None else ""
    plain = query.op in ("sum", "count") and query.group is None and query.filters and \
        len({f.column.index for f in query.filters}) == 1 and all(f.op in ("=", "in") for f in query.filters)
    if plain and (not named or named == measure or (query.op == "count" and named not in columns)):
        return None
    return Refusal("占比需要一个部分（同一列的取值）和整体（全部行的同一合计）；这个问题读不出这两者。",
                   "A share needs a part (values of one column) and a whole (the same total over every row); "
                   "the question does not say both.", {"columns": [c.name for c in query.table.columns]},
                   query.table)
