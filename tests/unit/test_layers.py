"""The layers import each other in one direction only (DESIGN.md, "Layout").

    officeqa  <-  prompts  <-  indexing  <-  retrieval  <-  eval  <-  server

(indexing may use prompt templates: the summary tree is built at index time.)

A static check over the source (imports inside functions and TYPE_CHECKING blocks count
too): an import against the arrows is a cycle waiting to happen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("officeqa", "indexing", "retrieval", "prompts", "server", "eval")
#: package -> the product packages it must not import
FORBIDDEN = {
    "officeqa": {"indexing", "retrieval", "prompts", "server", "eval"},
    "prompts": {"indexing", "retrieval", "server", "eval"},
    "indexing": {"retrieval", "server", "eval"},
    "retrieval": {"server", "eval"},
    "eval": {"server"},
}


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(PACKAGES)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_layers_below_it(package: str) -> None:
    offences = []
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = _imported_packages(path) & FORBIDDEN[package]
        if bad:
            offences.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert offences == []
