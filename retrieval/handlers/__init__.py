"""Deterministic L0 handlers: pure functions over parsed documents that answer with citations, no model.

``run_route(route, params, instruction, documents)`` picks the handler by route name.
"""

from __future__ import annotations

from typing import Any

from officeqa.domain import ParsedDocument
from retrieval.handlers.count import count_rows
from retrieval.handlers.extract import FINDERS, run_extract
from retrieval.handlers.list_values import list_values
from retrieval.handlers.outline import outline
from retrieval.handlers.results import Citation, HandlerItem, HandlerResult
from retrieval.handlers.table_aggregate import aggregate

__all__ = ["Citation", "HandlerItem", "HandlerResult", "run_route"]


def run_route(route: str, params: dict[str, Any], instruction: str, documents: list[ParsedDocument]) -> HandlerResult:
    """Answer a handler route; a pipeline route (retrieve_qa, summary_tree, ...) is a caller error."""
    if route in FINDERS:
        return run_extract(route, documents)
    if route == "table_aggregate":
        return aggregate(params, instruction, documents)
    if route == "count":
        return count_rows(params, instruction, documents)
    if route == "list_values":
        return list_values(params, instruction, documents)
    if route == "outline":
        return outline(documents)
    raise ValueError(f"route {route!r} has no deterministic handler")
