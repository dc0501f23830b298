"""Count / aggregate / list questions over the stored tables: an exact value, or a refusal saying what is
ambiguous.

An exact answer is the answer. A refusal is shown as it is when no model answers; with a model,
its candidates go to the model as material (and the refusal is the fallback if generation fails).
A question the tables are not about ("no_table", "no_link") is left to retrieval, and the
metadata says why. :func:`table_result` is shared with the table probe.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from indexing.table_store import TableStore
from retrieval.answer_texts import naming_words, strip_names
from retrieval.answerers.handled import handled_answer
from retrieval.answering import Answer, handler_material
from retrieval.context import QuestionContext
from retrieval.handlers.results import HandlerResult
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.placing import HANDLER_MODES
from retrieval.question_kind import is_yes_no
from retrieval.scope import Scope
from retrieval.table_labels import localize_labels
from retrieval.tables.answer import TABLE_ROUTES, answer_for_route
from retrieval.tables.scope import bounded_documents, table_documents

#: Table refusals that mean "not a question about these tables": retrieval answers instead.
NOT_TABLE_QUESTIONS = ("no_table", "no_link")


@dataclass(slots=True)
class TableResult:
    """A table query's result and the documents whose tables it read."""

    result: HandlerResult
    scope: Scope
    doc_ids: list[str]


class StoredTables:
    """Table routes (``count``, ``table_aggregate``, ``list_values``) over the stored tables."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        decision = ctx.decision
        if knowledge is None or decision is None or decision.mode not in HANDLER_MODES \
                or decision.route not in TABLE_ROUTES:
            return None
        if is_yes_no(ctx.standalone):
            ctx.meta["handler_skipped"] = "a yes/no question: answered yes or no, not by a table rule"
            return None
        table = table_result(knowledge, ctx, decision.route)
        if table is None:
            return None  # no stored table in scope: the parsed-document handler answers
        if table.result.data.get("kind") in NOT_TABLE_QUESTIONS:
            ctx.meta["handler_skipped"] = table.result.data.get("reason", "")
            return None
        rule = table_answer(knowledge, ctx, table)
        if table.result.outcome == "exact" or ctx.failure is not None:
            return rule  # exact, or a refusal shown as it is (no model)
        ctx.fallback = rule  # refused: its candidates go to the model as material
        ctx.extra.append(handler_material(decision, rule.text))
        return None


def table_result(knowledge: Knowledge, ctx: QuestionContext, route: str) -> TableResult | None:
    """The route's query over the scope's stored tables (named documents, else the top retrieved ones with
    tables); None when no stored table is in scope (old knowledge bases: the parsed-document handlers).

    Once per question and route: the table probe and the linked-tables answerer ask the same (the second time was
    a second pass of the linker over every table in scope). ``tables_linked`` in the metadata counts the tables
    the linker read for this question (the work bound :data:`retrieval.tables.scope.MAX_LINKED_TABLES` caps)."""
    key = ("table_result", route, ctx.standalone)
    if key not in ctx.memo:
        ctx.memo[key] = _table_result(knowledge, ctx, route)
    found: TableResult | None = ctx.memo[key]
    return found


def _table_result(knowledge: Knowledge, ctx: QuestionContext, route: str) -> TableResult | None:
    scope, catalog = ctx.scope, ctx.catalog
    unscoped = not (scope.restricts or scope.method == "all")
    if not unscoped:
        doc_ids = list(scope.doc_ids)
    else:
        # the table is chosen by what the question links, not by retrieval rank: every document with tables when
        # they are few, else the top retrieved ones
        doc_ids = table_documents(catalog, knowledge.superseded) or knowledge.table_documents(
            ctx.standalone, ctx.mode, catalog)
        scope = Scope("retrieved", doc_ids)
    if not doc_ids:
        return None
    names = naming_words(scope, catalog) if scope.restricts else []
    with knowledge.kb.tables_for(doc_ids) as store:  # the backend's table store (a DuckDB file, or a cache)
        if store is None:
            return None
        if unscoped:
            doc_ids = _within_bound(knowledge, ctx, store, doc_ids)
            scope = Scope(scope.method, doc_ids, scope.superseded, scope.matched)
        # a word that named the document but is also a column ("Stanley Cups" of stanley-cups.csv) stays
        columns = {c.name.casefold() for t in store.tables(doc_ids) for c in t.columns}
        asked = strip_names(ctx.standalone, [n for n in names if n.casefold() not in columns])
        result = answer_for_route(route, asked, store, doc_ids, ctx.language)
        linked = len(store.tables(doc_ids)) if result is not None else 0
        if result is not None and result.outcome != "exact" and asked != ctx.standalone:
            # the naming words may also be the table's own words ("合同台账里…采购合同"): the whole question
            whole = answer_for_route(route, ctx.standalone, store, doc_ids, ctx.language)
            linked *= 2
            if whole is not None and whole.outcome == "exact":
                result = whole
    ctx.meta["tables_linked"] = ctx.meta.get("tables_linked", 0) + linked
    if result is None:
        return None
    used = [d for d in doc_ids if any(str(p.file) == catalog[d].path for i in result.items for p in i.citations)
            if d in catalog] or doc_ids
    return TableResult(result, Scope(scope.method, used, scope.superseded, scope.matched), used)


def _within_bound(knowledge: Knowledge, ctx: QuestionContext, store: TableStore, doc_ids: list[str]) -> list[str]:
    """An unscoped question's documents whose tables the linker reads: all of them while their tables are few, else
    the top retrieved ones that fit :data:`retrieval.tables.scope.MAX_LINKED_TABLES`."""
    counts = Counter(t.doc_id for t in store.tables(doc_ids))
    return bounded_documents(counts, doc_ids, lambda: knowledge.table_documents(ctx.standalone, ctx.mode, ctx.catalog))


def table_answer(knowledge: Knowledge, ctx: QuestionContext, table: TableResult) -> Answer:
    """A table result as the answer, citing the documents whose tables it read."""
    documents, _ = knowledge.stored([d for d in dict.fromkeys(table.doc_ids) if d in ctx.catalog], ctx.catalog)
    answer = handled_answer(knowledge, ctx, table.result, table.scope, documents)
    answer.text = localize_labels(answer.text, ctx.language)
    return answer


__all__ = ["NOT_TABLE_QUESTIONS", "StoredTables", "TableResult", "table_answer", "table_result"]
