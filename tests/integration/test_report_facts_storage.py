"""Report facts are stored with the document on both backends and leave with it (real stores, real files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from postgres_server import new_schema

from indexing.reports import report_of
from indexing.storage import open_knowledge_base
from officeqa.settings import ChunkingSettings, EmbeddingSettings, Settings, StorageSettings

REPORT = """# 星河智能科技股份有限公司 2023 年年度报告

## 公司简介

| 项目 | 内容 |
|---|---|
| 股票简称 | 星河智能 |

## 六、主要会计数据和财务指标

| 项目 | 2023年 | 2022年 | 本年比上年增减 |
|---|---|---|---|
| 营业收入（元） | 1,200,000.00 | 1,000,000.00 | 20.00% |
| 总资产（元） | 5,000,000.00 | 4,000,000.00 | 25.00% |
"""


def _settings(backend: str, root: Path, dsn: str | None, facts: bool = True) -> Settings:
    storage = StorageSettings(backend="embedded")
    if backend == "postgres":
        storage = StorageSettings(backend="postgres", postgres_dsn=dsn or "", postgres_schema=new_schema())
    return Settings(
        data_dir=root / "data",
        embedding=EmbeddingSettings(backend="hash"),
        storage=storage,
        chunking=ChunkingSettings(report_facts=facts),
    )


@pytest.mark.parametrize("backend", ["embedded", "postgres"])
def test_facts_are_stored_with_the_document_and_removed_with_it(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    dsn = request.getfixturevalue("postgres_dsn") if backend == "postgres" else None
    docs = tmp_path / "docs"
    docs.mkdir()
    path = docs / "星河智能2023年年度报告.md"
    path.write_text(REPORT, encoding="utf-8")
    settings = _settings(backend, tmp_path, dsn)
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
        record = kb.registry.get(str(path.resolve()))
        assert record is not None
        report = report_of(kb.documents.get(record.doc_id))
        assert report is not None and report["year"] == 2023
        revenue = [f for f in report["facts"] if f["label"] == "营业收入" and f.get("period", {}).get("year") == 2023]
        assert [f["value"] for f in revenue] == ["1200000.00"]
        doc_id = record.doc_id
        path.unlink()
        kb.index_paths([docs])
        assert kb.documents.get(doc_id) is None


def test_the_setting_turns_facts_off(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    path = docs / "report.md"
    path.write_text(REPORT, encoding="utf-8")
    with open_knowledge_base(_settings("embedded", tmp_path, None, facts=False)) as kb:
        kb.index_paths([docs])
        record = kb.registry.get(str(path.resolve()))
        assert record is not None and report_of(kb.documents.get(record.doc_id)) is None


def test_one_cache_serves_two_knowledge_bases_holding_the_same_file(tmp_path: Path) -> None:
    from retrieval.reports.answerer import ReportCache, answer_with_facts

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "星河智能2023年年度报告.md").write_text(REPORT, encoding="utf-8")
    cache = ReportCache()
    answers = []
    for name, facts in (("with", True), ("without", False)):
        with open_knowledge_base(_settings("embedded", tmp_path / name, None, facts=facts)) as kb:
            kb.index_paths([docs])
            documents = {r.doc_id: r.path for r in kb.registry.documents()}
            answers.append(
                answer_with_facts(
                    kb, cache, "星河智能2023年的营业收入是多少？", "星河智能2023年的营业收入是多少？", "zh", documents
                )
            )
    assert answers[0] is not None and "1,200,000.00" in answers[0].text
    assert answers[1] is None  # the same file (same doc id) in a base indexed without facts
