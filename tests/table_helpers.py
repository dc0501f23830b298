"""Shared by the table-question tests: a folder of real files parsed into a real DuckDB table store, and the
one check every exact-answer test starts with."""

from __future__ import annotations

from pathlib import Path

from indexing.parsing import parse_file
from indexing.table_store import TableStore
from retrieval.handlers.results import HandlerResult
from retrieval.tables import answer_table_question


def store_folder(root: Path, path: Path) -> TableStore:
    """Every file under ``root`` (sorted, so the doc ids are stable) parsed and stored in a new store at ``path``."""
    store = TableStore(path)
    for n, file in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        store.put(f"doc{n}", str(file), parse_file(file))
    return store


def exact_result(store: TableStore, question: str) -> HandlerResult:
    """The table answer to ``question``, asserted exact (the refusal text is the failure message)."""
    result = answer_table_question(question, store, None)
    assert result.outcome == "exact", result.answer_text
    return result
