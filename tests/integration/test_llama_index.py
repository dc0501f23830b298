"""officeqa under the real llama-index-core: the reader's Documents and the retriever's nodes.

A real knowledge base (SQLite registry, Chroma, BM25) is built in tmp_path with the
deterministic hash embedder; LlamaIndex's own RetrieverQueryEngine runs over the retriever
with LlamaIndex's MockLLM (no model server), so the whole path a user builds is exercised.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.readers.base import BaseReader
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import Document, QueryBundle

from indexing.knowledge_base import KnowledgeBase
from integrations.llama_index import HIDDEN_FROM_MODELS, OfficeQAReader, OfficeQARetriever
from officeqa.errors import UnreadableDocument
from officeqa.settings import EmbeddingSettings, Settings

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "formats"


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))


@pytest.fixture
def kb_settings(tmp_path: Path) -> Settings:
    settings = _settings(tmp_path)
    with KnowledgeBase(settings) as kb:
        report = kb.index_paths([DATA / "zh_purchase_contract.doc", DATA / "en_quarterly_report.odt"])
        assert len(report.added) == 2 and not report.failed
    return settings


def test_reader_turns_a_docx_with_a_table_into_documents_with_locations(tmp_path: Path) -> None:
    reader = OfficeQAReader(_settings(tmp_path))
    assert isinstance(reader, BaseReader)
    documents = reader.load_data(DATA / "en_quarterly_report.docx")
    assert all(isinstance(d, Document) for d in documents)
    assert {d.metadata["file_name"] for d in documents} == {"en_quarterly_report.docx"}
    table_doc = next(d for d in documents if "| Region |" in d.text)
    assert table_doc.metadata["heading_path"] == "Quarterly Operations Report > Regional figures"
    assert table_doc.metadata["file_type"] == "docx"
    lines = table_doc.text.splitlines()
    header = lines.index("| Region | Revenue (EUR) | Growth |")
    assert lines[header + 1] == "| --- | --- | --- |"
    assert lines[header + 2] == "| North | 1,250,000 | 4.5% |"
    summary = next(d for d in documents if "4,210 pallets" in d.text)
    assert summary.metadata["heading_path"] == "Quarterly Operations Report > Summary"
    assert "- Night shifts were added in August." in summary.text


def test_reader_keeps_sheet_slide_and_attachment_metadata(tmp_path: Path) -> None:
    reader = OfficeQAReader(_settings(tmp_path))
    workbook = reader.load_data(DATA / "zh_budget_workbook.xls")
    assert {d.metadata["sheet"] for d in workbook} == {"预算表", "人员名单"}
    deck = reader.load_data(DATA / "en_project_deck.ppt")
    assert {d.metadata["slide"]: d.metadata["heading_path"] for d in deck}[3] == "Budget overview"
    mail = reader.load_data(DATA / "en_report_mail.eml")
    attached = [d for d in mail if d.metadata.get("attachment") == "en_quarterly_report.doc"]
    assert attached and attached[0].metadata["heading_path"].startswith("附件/Attachment: en_quarterly_report.doc")
    assert all(d.metadata["mail_subject"] == "Q3 operations report and sales workbook" for d in mail)


def test_reader_refuses_or_skips_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(UnreadableDocument) as info:
        OfficeQAReader(_settings(tmp_path)).load_data(DATA / "EDGE_encrypted_secret.xls")
    assert info.value.kind.value == "encrypted"
    reader = OfficeQAReader(_settings(tmp_path), skip_unreadable=True)
    documents = reader.load_data([DATA / "EDGE_damaged_truncated.ppt", DATA / "zh_work_summary.odp"])
    assert [e.kind.value for e in reader.refused] == ["corrupt"]
    assert any("推进无纸化办公" in d.text for d in documents)


def test_retriever_returns_cited_nodes_in_score_order(kb_settings: Settings) -> None:
    with OfficeQARetriever(kb_settings, mode="hybrid", top_k=5) as retriever:
        assert isinstance(retriever, BaseRetriever)
        nodes = retriever.retrieve("乙方逾期交付 违约金")
        assert nodes
        top = nodes[0]
        assert top.node.metadata["document"] == "zh_purchase_contract.doc"
        assert top.node.metadata["heading_path"].startswith("设备采购合同")  # the short contract is one chunk
        assert top.node.node_id == top.node.metadata["chunk_id"] and top.node.metadata["doc_id"]
        assert top.node.metadata["citation"].startswith("zh_purchase_contract.doc")
        scores = [n.score for n in nodes]
        assert scores == sorted(scores, reverse=True)
        stored = retriever.knowledge_base.fetch([n.node.node_id for n in nodes])
        assert set(stored) == {n.node.node_id for n in nodes}
        english = retriever.retrieve(QueryBundle("Lisbon warehouse pallets"))
        assert english[0].node.metadata["document"] == "en_quarterly_report.odt"
        assert english[0].node.metadata["heading_path"].startswith("Quarterly Operations Report")


def test_retriever_reads_settings_from_the_environment(kb_settings: Settings, monkeypatch) -> None:
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(kb_settings.data_dir))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    with OfficeQARetriever(mode="bm25", top_k=3) as retriever:
        nodes = retriever.retrieve("Islands 310,200")
        assert nodes[0].node.metadata["path"].endswith("en_quarterly_report.odt")
    with pytest.raises(ValueError, match="unknown search mode"):
        OfficeQARetriever(kb_settings, mode="fuzzy")


def test_a_llamaindex_query_engine_runs_over_the_retriever(kb_settings: Settings) -> None:
    # BM25 mode: these tests embed with the deterministic `hash` embedder, whose dense ranking means nothing
    with OfficeQARetriever(kb_settings, mode="bm25", top_k=3) as retriever:
        engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
        response = engine.query("What is the penalty for late delivery? 违约金")
        assert response.source_nodes[0].node.metadata["document"] == "zh_purchase_contract.doc"
        assert "违约金" in str(response)  # MockLLM echoes the prompt, which holds the retrieved text


def test_reader_loads_a_folder_of_supported_unsupported_and_broken_files(tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(DATA / "zh_purchase_contract.docx", folder / "合同.docx")
    (folder / "sub" / "notes.md").write_text("# 会议\n\n周五下午三点开会。\n", encoding="utf-8")
    (folder / "setup.exe").write_bytes(b"MZ\x90\x00")  # not a document: skipped
    (folder / "~$合同.docx").write_bytes(b"lock")  # an office lock file: skipped
    shutil.copy(DATA / "EDGE_damaged_truncated.odt", folder / "broken.odt")
    with pytest.raises(UnreadableDocument):
        OfficeQAReader(_settings(tmp_path)).load_data(folder)
    reader = OfficeQAReader(_settings(tmp_path), skip_unreadable=True)
    documents = reader.load_data(folder, extra_info={"source": "inbox", "file_name": "not this"})
    assert {d.metadata["file_name"] for d in documents} == {"合同.docx", "notes.md"}
    assert [Path(e.path).name for e in reader.refused] == ["broken.odt"]
    assert all(d.metadata["source"] == "inbox" for d in documents)  # extra_info merged; the file's keys win
    assert sorted(reader.files([folder / "sub", folder / "setup.exe"])) == sorted(
        [str(folder / "sub" / "notes.md"), str(folder / "setup.exe")])  # a file named explicitly is kept
    with pytest.raises(FileNotFoundError, match="missing"):
        reader.load_data(tmp_path / "missing")


def test_reader_works_from_a_plain_script_without_a_main_guard(tmp_path: Path) -> None:
    script = tmp_path / "load.py"
    script.write_text(
        "from officeqa.settings import EmbeddingSettings, Settings\n"
        "from integrations.llama_index import OfficeQAReader\n"
        f"settings = Settings(data_dir={str(tmp_path / 'data')!r}, embedding=EmbeddingSettings(backend='hash'))\n"
        f"docs = OfficeQAReader(settings).load_data({str(DATA / 'en_quarterly_report.docx')!r})\n"
        "print(len(docs), docs[0].metadata['file_name'])\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    count, name = done.stdout.split()
    assert int(count) > 1 and name == "en_quarterly_report.docx"


def test_retriever_checks_top_k_and_the_query(kb_settings: Settings) -> None:
    for bad in (0, -1, 1001, 2.5, "5", True):
        with pytest.raises(ValueError, match="top_k"):
            OfficeQARetriever(kb_settings, top_k=bad)
    with OfficeQARetriever(kb_settings, mode="bm25", top_k=1) as retriever:
        assert len(retriever.retrieve("违约金")) == 1
        for empty in ("", "   ", "\n"):
            with pytest.raises(ValueError, match="empty"):
                retriever.retrieve(empty)
        retriever.top_k = 0
        with pytest.raises(ValueError, match="top_k"):
            retriever.retrieve("违约金")


def test_what_the_llm_reads_of_a_node_has_no_internal_ids(kb_settings: Settings) -> None:
    from llama_index.core.schema import MetadataMode

    with OfficeQARetriever(kb_settings, mode="bm25", top_k=3) as retriever:
        for scored in retriever.retrieve("乙方逾期交付 违约金"):
            node = scored.node
            seen = node.get_content(MetadataMode.LLM) + node.get_content(MetadataMode.EMBED)
            for key in HIDDEN_FROM_MODELS:
                if key in node.metadata:
                    assert str(node.metadata[key]) not in seen, key
            assert node.metadata["citation"] in node.get_content(MetadataMode.LLM)  # the citation stays readable
    reader_docs = OfficeQAReader(kb_settings).load_data(DATA / "en_quarterly_report.docx")
    assert str(DATA) not in reader_docs[0].get_content(MetadataMode.LLM)
