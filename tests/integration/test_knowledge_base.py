"""The knowledge base keeps registry, Chroma and BM25 in step under add, update and delete.

Real files are written to tmp_path, parsed and chunked by the product, embedded by the
deterministic hash embedder and stored in a real Chroma collection and BM25 index.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from indexing.knowledge_base import DocumentNotFound, KnowledgeBase
from indexing.registry import DUPLICATE, FAILED, INDEXED, PENDING, REMOVED
from officeqa.embeddings import HashEmbedder
from officeqa.errors import IndexConsistencyError
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.filters import InvalidFilter
from retrieval.search import search
from server.cli import main

CONTRACT = (
    "第一章 总则\n\n本合同由甲方与乙方签订，约定苹果供应事项。\n\n"
    "第二章 违约责任\n\n乙方逾期交付苹果的，应当按日支付违约金。\n"
)
HANDBOOK = "# 员工手册\n\n## 请假制度\n\n员工每年享有带薪年假十天，病假需提交医院证明。\n"
CONTRACT_V2 = CONTRACT.replace("苹果", "香蕉")


class CountingEmbedder(HashEmbedder):
    """The hash embedder that counts the texts it embedded (to prove skipping embeds nothing)."""

    def __init__(self, dim: int = 256) -> None:
        super().__init__(dim=dim)
        self.embedded = 0

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return super().embed_batch(texts)


def make_settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "contract.txt").write_text(CONTRACT, encoding="utf-8")
    (folder / "sub" / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (folder / "notes.xyz").write_text("not a supported type", encoding="utf-8")
    return folder


def doc_ids_of(hits) -> set[str]:
    return {h.doc_id for h in hits}


def assert_consistent(kb: KnowledgeBase) -> None:
    report = kb.check()
    assert report.clean, report.to_json()
    assert report.registry_chunks == report.chroma_chunks == report.bm25_chunks


def test_add_update_delete_keep_the_three_stores_consistent(tmp_path: Path, docs: Path) -> None:
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        report = kb.index_paths([docs])
        assert len(report.added) == 2 and not report.failed  # notes.xyz is not a supported suffix
        assert_consistent(kb)
        records = {Path(r.path).name: r for r in kb.registry.documents()}
        assert {r.status for r in records.values()} == {INDEXED}
        old_id = records["contract.txt"].doc_id
        assert old_id in doc_ids_of(search(kb, "苹果 违约金", mode="bm25"))
        assert records["handbook.md"].doc_id in doc_ids_of(search(kb, "带薪年假", mode="hybrid"))

        # update: the changed file replaces its chunks everywhere
        (docs / "contract.txt").write_text(CONTRACT_V2, encoding="utf-8")
        report = kb.index_paths([docs])
        assert (len(report.updated), len(report.skipped)) == (1, 1)
        new_id = kb.registry.get(str((docs / "contract.txt").resolve())).doc_id
        assert new_id != old_id
        assert kb.registry.chunk_ids(old_id) == []
        assert not any(cid.startswith(old_id) for cid in set(kb.vectors.all_ids()) | kb.bm25.ids())
        assert search(kb, "苹果", mode="bm25") == []
        assert new_id in doc_ids_of(search(kb, "香蕉", mode="bm25"))
        assert_consistent(kb)

        # a file deleted from a walked folder is removed from every store
        (docs / "sub" / "handbook.md").unlink()
        report = kb.index_paths([docs])
        assert [Path(p).name for p in report.removed] == ["handbook.md"]
        assert search(kb, "带薪年假", mode="bm25") == []
        assert_consistent(kb)

        # remove by a short doc id
        assert kb.remove(new_id[:12]) == [str((docs / "contract.txt").resolve())]
        assert kb.vectors.count() == 0 and len(kb.bm25) == 0
        assert kb.registry.get(str((docs / "contract.txt").resolve())).status == REMOVED
        assert_consistent(kb)
        with pytest.raises(DocumentNotFound):
            kb.remove("no-such-document")


def test_unchanged_files_are_skipped_without_embedding_or_opening_stores(tmp_path: Path, docs: Path) -> None:
    settings = make_settings(tmp_path)
    first = CountingEmbedder()
    with KnowledgeBase(settings, embedder=first) as kb:
        kb.index_paths([docs])
    assert first.embedded > 0
    second = CountingEmbedder()
    with KnowledgeBase(settings, embedder=second) as kb:
        report = kb.index_paths([docs])
        assert len(report.skipped) == 2 and not (report.added or report.updated)
        assert second.embedded == 0
        assert kb._vectors is None and not kb.bm25_store.loaded  # neither Chroma nor BM25 was even opened
        assert_consistent(kb)


def test_the_bm25_index_survives_reopening(tmp_path: Path, docs: Path) -> None:
    settings = make_settings(tmp_path)
    with KnowledgeBase(settings) as kb:
        kb.index_paths([docs])
        expected = [h.chunk_id for h in search(kb, "违约金", mode="hybrid")]
    with KnowledgeBase(settings) as kb:
        assert [h.chunk_id for h in search(kb, "违约金", mode="hybrid")] == expected
        assert_consistent(kb)
        removed_ids = kb.registry.chunk_ids(kb.registry.get(str((docs / "contract.txt").resolve())).doc_id)
        snapshot = kb.bm25_path.stat().st_mtime_ns
        kb.remove(str(docs / "contract.txt"))
    assert kb.bm25_path.stat().st_mtime_ns == snapshot  # a removal appends to the log instead of rewriting BM25
    assert '"op":"del"' in kb.bm25_journal.read_text(encoding="utf-8")
    with KnowledgeBase(settings) as kb:
        assert not set(removed_ids) & kb.bm25.ids()
        assert_consistent(kb)
        # the same chunk ids come back (the file was removed, so it is named explicitly to lift the exclusion)
        (docs / "contract.txt").write_text(CONTRACT, encoding="utf-8")
        kb.index_paths([docs / "contract.txt"])
        assert set(removed_ids) <= kb.bm25.ids()
    assert len(kb.bm25_journal.read_text(encoding="utf-8").splitlines()) == 1  # folded: only the log header left
    with KnowledgeBase(settings) as kb:
        assert set(removed_ids) <= kb.bm25.ids()
        assert_consistent(kb)


def test_a_failing_file_is_recorded_and_loses_nothing_else(tmp_path: Path, docs: Path) -> None:
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        kb.index_paths([docs])
        handbook_id = kb.registry.get(str((docs / "sub" / "handbook.md").resolve())).doc_id
        (docs / "broken.docx").write_bytes(b"PK\x03\x04 this is not really a zip archive")
        (docs / "contract.txt").write_bytes(b"")  # an indexed file that became empty
        report = kb.index_paths([docs])
        failures = {Path(f.path).name: f.kind for f in report.failed}
        assert failures == {"broken.docx": "corrupt", "contract.txt": "empty"}
        broken = kb.registry.get(str((docs / "broken.docx").resolve()))
        assert broken.status == FAILED and broken.error_kind == "corrupt" and broken.error_message
        assert handbook_id in doc_ids_of(search(kb, "带薪年假", mode="bm25"))
        # the indexed file that became unreadable keeps its previous version, flagged with the error
        contract = kb.registry.get(str((docs / "contract.txt").resolve()))
        assert contract.status == INDEXED and contract.error_kind == "empty"
        assert "previous version stays indexed" in contract.error_message
        assert doc_ids_of(search(kb, "苹果", mode="bm25")) == {contract.doc_id}
        assert_consistent(kb)
        # an unchanged failed file is not retried; the changed one is tried again on every run
        again = kb.index_paths([docs])
        assert {Path(p).name for p in again.skipped} == {"broken.docx", "handbook.md"}
        assert [Path(f.path).name for f in again.failed] == ["contract.txt"]
        (docs / "contract.txt").write_text(CONTRACT_V2, encoding="utf-8")
        assert [Path(p).name for p in kb.index_paths([docs]).updated] == ["contract.txt"]
        fixed = kb.registry.get(str((docs / "contract.txt").resolve()))
        assert fixed.error_kind is None and fixed.doc_id != contract.doc_id
        assert search(kb, "苹果", mode="bm25") == [] and search(kb, "香蕉", mode="bm25")
        assert_consistent(kb)


def test_mixing_embedding_models_is_refused(tmp_path: Path, docs: Path) -> None:
    settings = make_settings(tmp_path)
    with KnowledgeBase(settings, embedder=HashEmbedder(dim=256)) as kb:
        kb.index_paths([docs / "contract.txt"])
    with KnowledgeBase(settings, embedder=HashEmbedder(dim=128)) as kb:
        with pytest.raises(IndexConsistencyError, match="re-index"):
            kb.index_paths([docs / "sub" / "handbook.md"])
        with pytest.raises(IndexConsistencyError, match="hash-ngram-256"):
            search(kb, "违约金", mode="dense")
        assert kb.check().model_problem is not None
        # the refused job goes back to the queue untouched, for a worker with a usable configuration
        assert [(Path(j.path).name, j.state, j.attempts) for j in kb.jobs.find()] == [
            ("handbook.md", "PENDING", 0),
            ("contract.txt", "DONE", 0),
        ]
    with KnowledgeBase(settings, embedder=HashEmbedder(dim=256)) as kb:
        assert_consistent(kb)  # the refused run left the stores as they were
        assert [r.status for r in kb.registry.documents()] == [INDEXED]
    # the way out the error message names: reindex with the new model
    (docs / "gone.txt").write_text("将被删除的文件", encoding="utf-8")
    with KnowledgeBase(settings, embedder=HashEmbedder(dim=256)) as kb:
        kb.index_paths([docs / "gone.txt"])
    (docs / "gone.txt").unlink()
    with KnowledgeBase(settings, embedder=HashEmbedder(dim=128)) as kb:
        report = kb.reindex()
        assert [Path(p).name for p in report.updated] == ["contract.txt", "handbook.md"]
        assert [Path(p).name for p in report.removed] == ["gone.txt"]
        assert kb.vectors.model == ("hash-ngram-128", 128)
        assert search(kb, "违约金", mode="dense")
        assert_consistent(kb)


def test_metadata_filters_restrict_every_mode_and_refuse_unknown_fields(tmp_path: Path, docs: Path) -> None:
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        kb.index_paths([docs])
        contract_id = kb.registry.get(str((docs / "contract.txt").resolve())).doc_id
        for mode in ("bm25", "dense", "hybrid"):
            hits = search(kb, "违约金 年假", mode=mode, filters={"file_type": "md"})
            assert hits and {h.metadata["file_type"] for h in hits} == {"md"}
            hits = search(kb, "违约金 年假", mode=mode, filters={"doc_id": {"$ne": contract_id}})
            assert hits and contract_id not in doc_ids_of(hits)
        assert search(kb, "违约金", mode="hybrid", filters={"file_type": "pdf"}) == []
        with pytest.raises(InvalidFilter, match="unknown filter field 'author'"):
            search(kb, "违约金", filters={"author": "张三"})
        with pytest.raises(InvalidFilter, match="unknown operator"):
            search(kb, "违约金", filters={"page": {"$gt": 1}})


def test_duplicate_content_is_stored_once_and_promoted_when_its_owner_goes(tmp_path: Path, docs: Path) -> None:
    (docs / "copy.txt").write_text(CONTRACT, encoding="utf-8")
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        report = kb.index_paths([docs])
        assert [Path(p).name for p in report.duplicates] == ["copy.txt"]
        original, copy = str((docs / "contract.txt").resolve()), str((docs / "copy.txt").resolve())
        assert kb.registry.get(copy).status == DUPLICATE
        assert_consistent(kb)
        kb.remove(original)
        assert kb.registry.get(copy).status == PENDING
        Path(original).unlink()  # (a removed file still in the folder would be indexed again by the next run)
        kb.index_paths([docs])
        assert kb.registry.get(copy).status == INDEXED
        assert kb.registry.get(copy).doc_id in doc_ids_of(search(kb, "苹果", mode="bm25"))
        assert_consistent(kb)


def test_cli_index_status_check_search_remove(tmp_path: Path, docs: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    assert main(["index", str(docs), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["event"] == "report" and lines[-1]["added"] == 2  # progress events first, the report last
    assert [e["outcome"] for e in lines if e["event"] == "job"] == ["added", "added"]
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["counts"] == {"indexed": 2} and status["embedding_model"] == "hash-ngram-256"
    assert main(["search", "带薪年假", "--mode", "bm25", "-k", "3", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert hits[0]["rank"] == 1 and hits[0]["metadata"]["file_type"] == "md"
    assert main(["search", "年假", "--filter", "author=x"]) == 4
    capsys.readouterr()
    assert main(["check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clean"] is True

    # damage one store behind the registry's back: check must say so and exit 4
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        victim = sorted(kb.bm25.ids())[0]
        kb.bm25_store.remove([victim])
    assert main(["check", "--json"]) == 4
    assert json.loads(capsys.readouterr().out)["missing_in_bm25"] == [victim]
    assert main(["check", "--repair", "--json"]) == 0  # re-added from the vector store's text
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["clean"] is True

    assert main(["remove", str(docs / "contract.txt")]) == 0
    assert "removed:" in capsys.readouterr().out


def test_a_file_that_times_out_is_retried_then_failed_and_the_batch_goes_on(
    tmp_path: Path, docs: Path, corpus_dir: Path
) -> None:
    """A parse over parsing.timeout_s is killed, retried (jobs.max_attempts), then FAILED with kind timeout."""
    slow = docs / "big-manual.pdf"
    slow.write_bytes((corpus_dir / "pdf" / "en_DA-619p.pdf").read_bytes())
    settings = make_settings(tmp_path)
    settings.parsing.timeout_s = 0.5
    settings.jobs.max_attempts = 2
    settings.jobs.retry_backoff_s = 0.0
    events: list[dict] = []
    with KnowledgeBase(settings) as kb:
        report = kb.index_paths([docs], on_event=events.append)
        assert [(Path(f.path).name, f.kind) for f in report.failed] == [("big-manual.pdf", "timeout")]
        assert "gave up after 2 attempts" in report.failed[0].message
        assert len(report.added) == 2
        assert_consistent(kb)
        statuses = {Path(r.path).name: (r.status, r.error_kind) for r in kb.registry.documents()}
        assert statuses["big-manual.pdf"] == (FAILED, "timeout")
        assert statuses["contract.txt"][0] == INDEXED
        job = kb.jobs.find(paths=[str(slow)])[0]
        assert (job.state, job.attempts, job.error_kind) == ("FAILED", 2, "timeout")
    pdf_states = [e["state"] for e in events if e.get("event") == "job" and e["path"].endswith(".pdf")]
    assert pdf_states == ["RETRY", "FAILED"]


def test_oversize_table_units_are_not_indexed_but_their_rows_are(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    rows = "\n".join(f"华东区{i},产品{i},{i * 10}" for i in range(3000))
    (folder / "sales.csv").write_text("地区,产品,销售额\n" + rows + "\n", encoding="utf-8")
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        kb.index_paths([folder])
        assert_consistent(kb)
        hits = search(kb, "产品2999", mode="bm25", k=3)
        assert hits and hits[0].metadata["kind"] == "table"
        assert "地区" in hits[0].text  # the row chunk repeats the header
        assert all(h.metadata["kind"] != "oversize_table" for h in search(kb, "华东区", mode="bm25", k=50))
