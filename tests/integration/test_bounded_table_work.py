"""A question's table work is bounded by its scope: an unscoped table question over a knowledge base with many
tables links at most ``MAX_LINKED_TABLES`` of them (the top retrieved documents' tables), a question that names its
document links that document's tables only, and the two table answerers that try the same question share one pass.

Counts the work (``tables_linked`` in the answer's metadata), never the time. Real files, SQLite, Chroma, BM25,
DuckDB; the hash test embedder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.knowledge_base import KnowledgeBase
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, JobsSettings, Settings
from retrieval.service import QuestionService
from retrieval.tables import scope as table_scope

REGIONS = ("华东", "华北", "华南", "西南", "西北", "东北")


def write_sheets(folder: Path) -> None:
    """One CSV (one stored table) per product line; each names its own product in its rows."""
    folder.mkdir(parents=True)
    for i, product in enumerate(("投影仪", "打印机", "扫描仪", "显示器", "路由器", "交换机", "服务器", "笔记本")):
        rows = [f"{region},{product},{(i + 1) * 100 + k}" for k, region in enumerate(REGIONS)]
        (folder / f"sales_{i}.csv").write_text("区域,产品,销量\n" + "\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"),
                        jobs=JobsSettings(workers=1))
    write_sheets(tmp_path / "docs")
    with open_knowledge_base(settings) as handle:
        handle.index_paths([tmp_path / "docs"])
        yield handle


def test_an_unscoped_table_question_links_at_most_the_bound(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    service = QuestionService(kb.settings, kb)
    everything = service.ask("投影仪在华北区的销量是多少？")
    assert everything.metadata["tables_linked"] == 8  # eight tables are few: every one is read, as before
    assert "101" in everything.text
    monkeypatch.setattr(table_scope, "MAX_LINKED_TABLES", 3)
    bounded = service.ask("投影仪在华北区的销量是多少？")
    assert 1 <= bounded.metadata["tables_linked"] <= 3
    assert "101" in bounded.text  # the retrieved document that holds the words is among those read


def test_a_question_naming_its_document_links_that_documents_tables_only(kb: KnowledgeBase) -> None:
    service = QuestionService(kb.settings, kb)
    answer = service.ask("sales_3.csv 里显示器在华南区的销量是多少？")
    assert answer.metadata["tables_linked"] in (1, 2)  # one table; read twice at most (with and without its name)
    assert "402" in answer.text


def test_bounded_documents_keeps_the_first_retrieved_one_even_when_it_alone_is_over() -> None:
    counts = {"a": 500, "b": 20, "c": 20}
    assert table_scope.bounded_documents(counts, ["a", "b", "c"], lambda: ["b", "a", "c"]) == ["b"]
    assert table_scope.bounded_documents(counts, ["a", "b", "c"], lambda: ["a", "b"]) == ["a"]
    assert table_scope.bounded_documents({"b": 20, "c": 20}, ["b", "c"], lambda: []) == ["b", "c"]


def test_a_second_question_over_the_same_tables_reads_no_catalogue_until_the_store_changes(
        kb: KnowledgeBase, tmp_path: Path) -> None:
    from indexing import table_reads

    table_reads.clear()
    service = QuestionService(kb.settings, kb)
    assert "101" in service.ask("投影仪在华北区的销量是多少？").text
    first = table_reads.reads()
    assert "402" in service.ask("显示器在华南区的销量是多少？").text
    assert table_reads.reads() == first  # the same tables: the catalogue was not read again
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "sales_9.csv").write_text("区域,产品,销量\n华北,投影幕,77\n", encoding="utf-8")
    kb.index_paths([tmp_path / "more"])
    assert "77" in service.ask("投影幕在华北区的销量是多少？").text  # the new table is seen: the cache was dropped
    assert table_reads.reads() > first
