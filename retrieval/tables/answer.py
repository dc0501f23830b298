"""The one entry point for a table question: pick the table, build the query, run it, say it.

``answer_table_question(question, store, doc_ids, language)`` returns the handlers'
:class:`~retrieval.handlers.results.HandlerResult`: ``outcome`` "exact" with the value, the
query in words and the cited rows, or "refused" with what is ambiguous and the candidates
in ``data["candidates"]`` (material a model can be given). ``plan_question`` does the same
without running the query (``officeqa route --explain`` shows it).

Table choice: the sheet the question names, else the table whose columns and values
explain the most of the question. Two tables explaining it equally well are never
combined or guessed between: the question is refused with both named (a credit limit on
the customers sheet must not answer a question about order amounts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from indexing.table_store import TableStore
from retrieval.handlers.results import HandlerResult
from retrieval.rules.normalize import normalize
from retrieval.tables.choose import choose_table
from retrieval.tables.completeness import (
    cells_hold_lists,
    numbers_as_text,
    numbers_the_rows,
    repeated_count,
    rows_or_values,
    unread_cells,
)
from retrieval.tables.execute import run_query
from retrieval.tables.linked import Linked
from retrieval.tables.linker import link_table
from retrieval.tables.plan import plan_table
from retrieval.tables.qualifiers import defined_qualifiers
from retrieval.tables.query import Refusal, TableQuery
from retrieval.tables.render import query_words, refusal_result, table_result
from retrieval.tables.share import answer_share, share_question

__all__ = ["TABLE_ROUTES", "QuestionPlan", "answer_for_route", "answer_table_question", "plan_question"]

#: L0 routes a stored table answers.
TABLE_ROUTES = frozenset({"table_aggregate", "count", "list_values"})

_HAN = re.compile(r"[\u4e00-\u9fff]")


@dataclass(slots=True)
class QuestionPlan:
    """The chosen query or the refusal, and how each table in scope read the question."""

    query: TableQuery | None
    refusal: Refusal | None
    linked: list[Linked] = field(default_factory=list)

    def words(self, zh: bool) -> str:
        if self.query is not None:
            return query_words(self.query, zh)
        assert self.refusal is not None
        return self.refusal.zh if zh else self.refusal.en


def is_chinese(question: str, language: str | None) -> bool:
    """Chinese when asked so, or when Han characters outweigh Latin letters (an English question may quote
    Chinese cell values: "total 金额 for 华东")."""
    if language:
        return language.lower().startswith("zh")
    han = len(_HAN.findall(question))
    latin = sum(1 for ch in question if ch.isascii() and ch.isalpha())
    return han > 0 and han * 2 >= latin


def _complete(planned: TableQuery | Refusal, store: TableStore) -> TableQuery | Refusal:
    """The checks only the cells can make on a planned query (cells listing names, a column numbering rows,
    cells no number was read from, rows that repeat the value counted or one count)."""
    for check in (cells_hold_lists, numbers_as_text, numbers_the_rows, unread_cells, rows_or_values,
                  repeated_count):
        planned = check(planned, store)
    return planned


def plan_question(question: str, store: TableStore, doc_ids: Sequence[str] | None = None,
                  route: str | None = None) -> QuestionPlan:
    """The structured query for ``question`` over the stored tables of ``doc_ids`` (all when None)."""
    tables = store.tables(doc_ids)
    if not tables:
        return QuestionPlan(None, Refusal("范围内没有表格。", "There is no table in scope.", kind="no_table"))
    text = normalize(defined_qualifiers(question))
    hits = store.values_in([t.table_id for t in tables], text)
    linked = [link_table(text, t, store, [h for h in hits if h.table_id == t.table_id]) for t in tables]
    choice = choose_table(linked, lambda link: _complete(plan_table(link, store, route), store))
    if isinstance(choice, Refusal):
        return QuestionPlan(None, choice, linked)
    _, planned = choice
    if isinstance(planned, Refusal):
        return QuestionPlan(None, planned, linked)
    return QuestionPlan(planned, None, linked)


def answer_table_question(question: str, store: TableStore, doc_ids: Sequence[str] | None = None,
                          language: str | None = None, route: str = "table_aggregate") -> HandlerResult:
    """Answer exactly from the stored tables, or refuse saying what is ambiguous."""
    zh = is_chinese(question, language)
    share = share_question(question)
    if share is not None:  # "what percentage of …", "占…的比例": part and whole, both shown
        planned = plan_question(share.text, store, doc_ids, route)
        shared = answer_share(share, planned.query, planned.refusal, store, route, zh)
        if shared.outcome == "exact":
            return shared
        # not a share of one column's values (or the table holds the share as a column, "占年度销售总额比例"): the
        # question as written, as before
    plan = plan_question(question, store, doc_ids, route)
    if plan.query is None:
        assert plan.refusal is not None
        return refusal_result(plan.refusal, route, zh)
    return table_result(run_query(plan.query, store), route, zh)


def answer_for_route(route: str, question: str, store: TableStore | None, doc_ids: Sequence[str] | None,
                     language: str | None = None) -> HandlerResult | None:
    """What the question service calls for an L0 route: the table answer when the route is a table route and
    the scope has stored tables, else None (the caller keeps its other handlers).

    An ``outcome == "exact"`` result is the answer; a ``"refused"`` one says what is ambiguous and carries the
    candidates, so with a model it goes to the model as material (like a low-confidence rule), without one it
    is shown as it is.
    """
    if route not in TABLE_ROUTES or store is None or not store.tables(doc_ids):
        return None
    return answer_table_question(question, store, doc_ids, language, route)
