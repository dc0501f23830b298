"""The layers import each other in one direction only (DESIGN.md, "Layout").

    officeqa  <-  prompts  <-  indexing  <-  retrieval  <-  eval  <-  server
                                                    ^---------------  integrations

(indexing may use prompt templates: the summary tree is built at index time.)
``integrations/`` (adapters for other frameworks) is a shell beside ``server``: it may use the
product layers, and no layer imports it; the two shells do not import each other.

A static check over the source (imports inside functions and TYPE_CHECKING blocks count
too): an import against the arrows is a cycle waiting to happen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("officeqa", "indexing", "retrieval", "prompts", "server", "eval", "integrations")
#: package -> the product packages it must not import
FORBIDDEN = {
    "officeqa": {"indexing", "retrieval", "prompts", "server", "eval", "integrations"},
    "prompts": {"indexing", "retrieval", "server", "eval", "integrations"},
    "indexing": {"retrieval", "server", "eval", "integrations"},
    "retrieval": {"server", "eval", "integrations"},
    "eval": {"server", "integrations"},
    "server": {"integrations"},
    "integrations": {"server", "eval"},
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


def test_a_parsed_document_round_trips_through_its_stored_form() -> None:
    from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument

    document = ParsedDocument(
        path="/d/mail.eml", file_type="eml", title="周报", page_count=2, warnings=["w"], meta={"from": "a@b.cn"},
        blocks=[
            Block(type=BlockType.HEADING, text="周报", level=1, page=1),
            Block.table([["姓名", "电话"]], [["张三", "13800000000"]], sheet="S", meta={"first_row": 3}),
            Block(type=BlockType.PARAGRAPH, text="请复核。", role=BlockRole.COMMENT, meta={"author": "李雷"}),
            Block(type=BlockType.LIST, text="a\nb", items=["a", "b"], slide=2),
        ],
    )
    assert ParsedDocument.from_dict(document.to_dict()) == document
