"""With a model: a table question the deterministic linker could not answer exactly gets a query plan from the
model (JSON against the schema), validated and run by the store (``retrieval.tables.model_plan``).

Why here, before retrieval with the model: a number the model computes from quoted rows is a guess;
a plan it proposes and the store executes is exact and cites its rows. An invalid or hostile plan is
rejected (its reason goes to the metadata) and the question goes on to the later answerers, with the
deterministic refusal still waiting as the fallback.
"""

from __future__ import annotations

from officeqa.errors import ModelUnavailable
from retrieval.answerers.linked_tables import TABLE_WORDS
from retrieval.answerers.tables import TableResult, table_answer
from retrieval.answering import Answer
from retrieval.context import QuestionContext
from retrieval.knowledge import knowledge_of
from retrieval.scope import Scope
from retrieval.tables.answer import TABLE_ROUTES
from retrieval.tables.model_plan import model_table_answer
from retrieval.tables.scope import table_documents


class ModelTablePlan:
    """A model-planned, schema-checked table query, when a model answers and the question reads as a table one."""

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        generator = ctx.tools.generator
        if knowledge is None or generator is None or ctx.failure is not None:
            return None
        if ctx.route not in TABLE_ROUTES and not TABLE_WORDS.search(ctx.standalone):
            return None
        scope = ctx.scope
        if scope.restricts or scope.method == "all":
            doc_ids = list(scope.doc_ids)
        else:
            doc_ids = table_documents(ctx.catalog, knowledge.superseded) or knowledge.table_documents(
                ctx.standalone, ctx.mode, ctx.catalog)
        if not doc_ids:
            return None

        def chat(messages: list[dict[str, str]]) -> str:
            return generator.chat(messages).text

        with knowledge.kb.tables_for(doc_ids) as store:
            if store is None:
                return None
            try:
                result, rejected = model_table_answer(ctx.standalone, store, doc_ids, chat, ctx.language == "zh")
            except ModelUnavailable as exc:
                ctx.meta["model_table_plan"] = {"error": str(exc)}
                return None
        ctx.meta["model_table_plan"] = {"rejected": rejected} if rejected else {"plan": result.data.get("plan")}
        if rejected is not None or result.outcome != "exact":
            return None
        used = [d for d in doc_ids if d in ctx.catalog and any(
            str(c.file) == ctx.catalog[d].path for i in result.items for c in i.citations)] or doc_ids
        return table_answer(knowledge, ctx, TableResult(result, Scope(scope.method, used), used))


__all__ = ["ModelTablePlan"]
