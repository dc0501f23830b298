"""Placing a question in a knowledge base: the documents in scope, their stored forms, the L0 route.

Why before any answerer: every answerer decides from the same scope and route, so they are
settled once. Scope: the documents the caller gave, else the ones the question names, else the
top retrieved ones (newest versions). Route: the L0 router over the standalone question; when
it names its document ("zh_test.txt 讲了什么？") the question is routed a second time with the name
read as "this document", and only whole-document routes (summary, outline) are taken from that
reading. Summary and handler routes with no named document answer from the top retrieved one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from officeqa.settings import Settings
from retrieval.answer_texts import document_name, naming_words, strip_names
from retrieval.catalog import CatalogEntry
from retrieval.context import QuestionContext
from retrieval.l0 import RouteDecision
from retrieval.rule_answers import StoredDocument
from retrieval.rules.arbitration import DEFAULT_ROUTE
from retrieval.rules.loader import HANDLER_ROUTES
from retrieval.scope import Scope, newest_versions, resolve_explicit, resolve_named
from retrieval.subjects import has_legal_form


class Knowledge(Protocol):
    """What placing needs of the knowledge base (``retrieval.knowledge.Knowledge`` is the one implementation)."""

    settings: Settings

    def catalog(self) -> dict[str, CatalogEntry]: ...

    def stored(self, doc_ids: Sequence[str], catalog: Mapping[str, CatalogEntry]
               ) -> tuple[list[StoredDocument], list[str]]: ...

    def route(self, question: str, scope: Scope, documents: Sequence[StoredDocument],
              catalog: Mapping[str, CatalogEntry]) -> RouteDecision: ...

    def retrieved_scope(self, question: str, mode: str, catalog: Mapping[str, CatalogEntry]) -> Scope: ...

    def mentions(self, name: str) -> bool: ...

#: The L0 route of whole-document questions ("总结", "概括第四章", "overview"): answered from the summary tree.
SUMMARY_ROUTE = "summary_tree"
#: Routes whose handler answers, alone or before the model.
HANDLER_MODES = ("answer", "handler_then_model")


def place(knowledge: Knowledge, ctx: QuestionContext) -> None:
    """Set ``ctx``'s catalog, scope, stored documents, route, prompt background and materials budget."""
    ctx.catalog = catalog = knowledge.catalog()
    if not catalog:
        return  # nothing indexed yet: the empty-knowledge-base answerer says how to start
    scope = without_mentioned(knowledge, scope_of(ctx.standalone, ctx.requested, catalog))
    stored, missing = knowledge.stored(scope.doc_ids, catalog) if scope.doc_ids else ([], [])
    decision = route_of(knowledge, ctx, scope, stored, catalog)
    if decision.route == SUMMARY_ROUTE and scope.method in ("retrieved", "all"):
        scope = knowledge.retrieved_scope(ctx.standalone, ctx.mode, catalog)
    elif decision.mode in HANDLER_MODES and decision.route in HANDLER_ROUTES and scope.method == "retrieved":
        scope = knowledge.retrieved_scope(ctx.standalone, ctx.mode, catalog)
        stored, missing = knowledge.stored(scope.doc_ids, catalog)
    ctx.scope, ctx.stored, ctx.missing, ctx.decision = scope, stored, missing, decision
    ctx.meta["route"] = decision.to_json()
    ctx.background = "、".join(document_name(d, catalog) for d in scope.doc_ids) if scope.restricts else ""
    ollama = knowledge.settings.ollama
    ctx.budget = int((ollama.num_ctx - ollama.answer_reserve_tokens) * ollama.materials_share)


def scope_of(question: str, requested: Sequence[str] | None, catalog: Mapping[str, CatalogEntry]) -> Scope:
    """The documents given (newest versions of them), else the ones the question names, else "retrieved"."""
    if requested:
        scope = resolve_explicit(requested, catalog)
        scope.doc_ids, scope.superseded = newest_versions(scope.doc_ids, catalog)
        return scope
    return resolve_named(question, catalog) or Scope("retrieved")


def without_mentioned(knowledge: Knowledge, scope: Scope) -> Scope:
    """``scope`` less the "missing" companies whose names the indexed text spells, unless they carry a legal form
    (``retrieval.subjects_text``: "What did IBM develop for American Airlines?" over an article naming it); a named
    scope left with neither documents nor missing names is no scope: retrieval answers."""
    if not scope.missing:
        return scope
    scope.missing = [n for n in scope.missing if has_legal_form(n) or not knowledge.mentions(n)]
    if scope.method == "named" and not scope.doc_ids and not scope.missing:
        return Scope("retrieved")
    return scope


def route_of(knowledge: Knowledge, ctx: QuestionContext, scope: Scope, stored: Sequence[StoredDocument],
             catalog: Mapping[str, CatalogEntry]) -> RouteDecision:
    """The L0 route; a question that names its document is also read as "this document" (module docstring)."""
    decision = knowledge.route(ctx.standalone, scope, stored, catalog)
    if decision.route != DEFAULT_ROUTE or scope.method not in ("named", "explicit") or not scope.doc_ids:
        return decision
    this = "这份文件" if ctx.language == "zh" else "this document"
    deictic = strip_names(ctx.standalone, naming_words(scope, catalog), this)
    again = knowledge.route(deictic, scope, stored, catalog) if deictic != ctx.standalone else decision
    return again if again.route in (SUMMARY_ROUTE, "outline") else decision


__all__ = ["HANDLER_MODES", "SUMMARY_ROUTE", "place", "route_of", "scope_of", "without_mentioned"]
