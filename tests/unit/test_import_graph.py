"""No import cycle between any two modules of the product, over the real import graph.

Why a test beside ``lint-imports`` (pyproject.toml): import-linter's ``acyclic_siblings`` contract
looks at packages and modules under one parent, and ``indexing/`` once held an 8-module cycle
(ingest <-> workers, knowledge_base <-> storage, ...) that a lazy import inside a function hid
from whoever read the top of the file. Here every import counts, at module level, inside a
function or under ``TYPE_CHECKING``: grimp (the graph import-linter builds on) reads them all.
A cycle is reported with the lines that make it, so it can be broken where it is cheapest.
"""

from __future__ import annotations

import grimp

PACKAGES = ("officeqa", "indexing", "retrieval", "prompts", "server", "eval")


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    members = set(component)
    lines = [f"cycle of {len(component)} modules:"]
    for importer in component:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            details = graph.get_import_details(importer=importer, imported=imported)
            where = ", ".join(str(d["line_number"]) for d in details)
            lines.append(f"  {importer} -> {imported} (line {where})")
    return "\n".join(lines)


def test_the_product_has_no_import_cycle() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert [_describe(graph, c) for c in _cycles(graph)] == []


def test_a_cycle_is_found_and_named() -> None:
    """The finder itself: a three-module cycle beside an acyclic branch."""
    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.e", "p.d")]:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="import")
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]
    assert "p.c -> p.a (line 1)" in _describe(graph, ["p.a", "p.b", "p.c"])
