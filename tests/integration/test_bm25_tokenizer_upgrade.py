"""A knowledge base indexed before English stemming is brought up to date when it is opened, on both backends.

The old index is written as the previous version wrote it (jieba tokens; a snapshot without a tokenizer
version, or a PostgreSQL schema at version 3); the new code opens it, re-terms it, and an inflected
English query ("revenues", "running") finds chunks that only hold "revenue", "runs". On PostgreSQL the
re-termed postings must equal postings built with stems from the start, and an interrupted re-terming
must leave the old postings as they were.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from postgres_server import new_schema

from indexing.bm25_index import BM25Index
from indexing.postgres import stores as pg_stores
from indexing.postgres.bm25 import PostgresBM25
from indexing.postgres.bm25_restem import restem_postings
from indexing.postgres.database import Database, shared_pool
from indexing.postgres.schema import SCHEMA_VERSION, migrate
from indexing.postgres.stores import PostgresStores
from indexing.storage import open_knowledge_base
from officeqa.embeddings import HashEmbedder
from officeqa.settings import EmbeddingSettings, Settings, StorageSettings
from officeqa.text_tokens import BM25_TOKENIZER_VERSION, bm25_terms, tokenize_for_bm25
from retrieval.search import search

REPORT = "# Quarterly report\n\nRevenue grew in the east region; the contract penalty was waived.\n"
PLANT = "# Plant\n\nThe plant runs three shifts and the warehouse ran out of pallets.\n"
HANDBOOK = "# 员工手册\n\n## 请假制度\n\n员工每年享有带薪年假十天，病假需提交医院证明。\n"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (("report.md", REPORT), ("plant.md", PLANT), ("handbook.md", HANDBOOK)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def settings_for(backend: str, root: Path, dsn: str | None, schema: str) -> Settings:
    storage = StorageSettings(backend=backend)
    if backend == "postgres":
        storage = StorageSettings(backend="postgres", postgres_dsn=dsn or "", postgres_schema=schema)
    return Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"), storage=storage)


def write_old_embedded_bm25(data_dir: Path, texts: dict[str, str]) -> None:
    """The BM25 files as the previous version left them: jieba tokens, no tokenizer in the snapshot meta."""
    old = BM25Index(tokenizer=tokenize_for_bm25, word_term=lambda word: word)
    old.add(list(texts), list(texts.values()))
    old.save(data_dir / "bm25", meta={"epoch": "0123456789ab"})
    header = {"op": "epoch", "format": "officeqa-bm25-log/1", "epoch": "0123456789ab"}
    (data_dir / "bm25.log").write_text(json.dumps(header) + "\n", encoding="utf-8")


def downgrade_postgres_bm25(kb: PostgresStores, texts: dict[str, str]) -> None:
    """Postings in jieba tokens and the schema back at version 3, as the previous version left them."""
    kb.bm25_store.reset()
    kb.bm25_store.add_tokenized(list(texts), [tokenize_for_bm25(t) for t in texts.values()])
    s = kb.db.s
    with kb.db.transaction() as conn:
        conn.execute(f"DELETE FROM {s}.schema_version WHERE version >= 4")
        conn.execute(f"DELETE FROM {s}.meta WHERE key = 'bm25_tokenizer'")
    pg_stores._MIGRATED.clear()  # the next open is a new process: it migrates what it finds


@pytest.mark.parametrize("backend", ["embedded", "postgres"])
def test_an_old_index_is_upgraded_on_open_and_finds_inflected_words(
    backend: str, docs: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    dsn = request.getfixturevalue("postgres_dsn") if backend == "postgres" else None
    settings = settings_for(backend, tmp_path, dsn, new_schema())
    with open_knowledge_base(settings, embedder=HashEmbedder()) as kb:
        kb.index_paths([docs], workers=1)
        ids = sorted(kb.registry.chunk_ids())
        texts = kb.vectors.texts(ids)
        report_doc = kb.registry.get(str((docs / "report.md").resolve())).doc_id
        plant_doc = kb.registry.get(str((docs / "plant.md").resolve())).doc_id
        if backend == "postgres":
            downgrade_postgres_bm25(kb, texts)
            assert kb.bm25.search_tokens(["revenue"], 3)  # old terms are in place
            assert not kb.bm25.search_tokens(["revenu"], 3)
    if backend == "embedded":
        write_old_embedded_bm25(settings.data_dir, texts)

    with open_knowledge_base(settings, embedder=HashEmbedder()) as kb:
        assert search(kb, "revenues", mode="bm25", k=3)[0].doc_id == report_doc
        assert search(kb, "running", mode="bm25", k=3)[0].doc_id == plant_doc
        assert search(kb, "带薪年假", mode="bm25", k=3)  # Chinese as before
        assert kb.bm25.document_frequency("revenues") == 1 and kb.bm25.mentions("revenues")
        report = kb.check()
        assert report.clean, report.to_json()
        assert report.registry_chunks == report.bm25_chunks == len(ids)
        if backend == "embedded":  # written back on open (no writer was busy)
            with np.load(settings.data_dir / "bm25", allow_pickle=False) as data:
                meta = json.loads(bytes(data["header"]).decode("utf-8"))["meta"]
            assert meta["tokenizer"] == BM25_TOKENIZER_VERSION
        else:
            s = kb.db.s
            assert kb.db.scalar(f"SELECT max(version) FROM {s}.schema_version") == SCHEMA_VERSION
            tokenizer = kb.db.scalar(f"SELECT value FROM {s}.meta WHERE key = 'bm25_tokenizer'")
            assert tokenizer == str(BM25_TOKENIZER_VERSION)
        # and the knowledge base keeps working: a new document is indexed in the new terms
        (docs / "sales.md").write_text("# Sales\n\nSales revenues by quarter.\n", encoding="utf-8")
        kb.index_paths([docs], workers=1)
        assert kb.bm25.document_frequency("revenue") == 2
        assert kb.check().clean


# -- the PostgreSQL re-terming, against postings built with stems from the start -------------------------
WORDS = ["revenue", "revenues", "run", "runs", "running", "ran", "cost", "costs", "costing", "payment",
         "payments", "营业", "收入", "合同", "违约金", "2024", "q3", "abilities", "ability"]


@pytest.fixture
def db_pair(postgres_dsn: str) -> Iterator[tuple[Database, Database]]:
    pool = shared_pool(postgres_dsn, 2)
    dbs = (Database(pool, new_schema(), postgres_dsn), Database(pool, new_schema(), postgres_dsn))
    for db in dbs:
        migrate(db)
    yield dbs
    for db in dbs:
        db.execute(f"DROP SCHEMA {db.s} CASCADE")


def test_re_termed_postgres_postings_equal_postings_built_with_stems(db_pair: tuple[Database, Database]) -> None:
    rng = random.Random(5)
    texts = {f"c{i:04d}": " ".join(rng.choices(WORDS, k=rng.randint(1, 40))) for i in range(600)}
    old_db, new_db = db_pair
    old, new = PostgresBM25(old_db), PostgresBM25(new_db)
    for start in range(0, len(texts), 200):
        batch = list(texts)[start : start + 200]
        old.add_tokenized(batch, [tokenize_for_bm25(texts[c]) for c in batch])
        new.add_tokenized(batch, [bm25_terms(texts[c]) for c in batch])
    gone = rng.sample(list(texts), 50)
    old.remove(gone)
    new.remove(gone)
    s = old_db.s
    with old_db.transaction() as conn:
        conn.execute(f"DELETE FROM {s}.schema_version WHERE version >= 4")

    # interrupted: the transaction that re-terms is rolled back, nothing of it stays
    with pytest.raises(RuntimeError), old_db.transaction() as conn:
        restem_postings(conn, s)
        raise RuntimeError("killed mid-migration")
    assert old.search_full(["revenues"], 5) and not old.search_full(["revenu"], 5)
    assert old_db.scalar(f"SELECT max(version) FROM {s}.schema_version") == 3

    assert migrate(old_db) == 3
    embedded = BM25Index()
    live = [c for c in texts if c not in set(gone)]
    embedded.add(live, [texts[c] for c in live])
    queries = ["revenues", "running costs", "营业 收入", "ran ran revenue payments", "2024 q3", "ability", "nothing"]
    for query in queries:
        tokens = bm25_terms(query)
        a, b = old.search_full(tokens, 30), new.search_full(tokens, 30)
        assert [c for c, _ in a] == [c for c, _ in b], query
        assert np.allclose([x for _, x in a], [x for _, x in b], rtol=0, atol=1e-9), query
        assert [c for c, _ in old.search(query, 30)] == [c for c, _ in embedded.search(query, 30)], query
    assert old.script_shares() == pytest.approx(new.script_shares())
    assert old.document_scripts(live) == new.document_scripts(live)
    for table, columns in (("bm25_terms", "term, df"), ("bm25_stats", "n, total_length, df_zh, df_en")):
        where = " WHERE df > 0" if table == "bm25_terms" else ""
        rows = [sorted(db.execute(f"SELECT {columns} FROM {db.s}.{table}{where}")) for db in db_pair]
        assert rows[0] == rows[1], table
    # the pruned search's per-term bounds hold (exact after the re-terming; loose after deletes is allowed)
    assert old_db.execute(
        f"SELECT t.term FROM {s}.bm25_terms t JOIN {s}.bm25_postings p USING (term_id) "
        "GROUP BY t.term_id, t.term, t.max_tf, t.min_dl HAVING max(p.tf) > t.max_tf OR min(p.dl) < t.min_dl"
    ) == []
    docs = [sorted((c, ln, h, la, sorted(t)) for c, ln, h, la, t in db.execute(
        f"SELECT d.chunk_id, d.length, d.han, d.latin, array_agg(t.term) FROM {db.s}.bm25_docs d "
        f"JOIN {db.s}.bm25_terms t ON t.term_id = ANY(d.term_ids) GROUP BY d.chunk_id, d.length, d.han, d.latin"))
        for db in db_pair]
    assert docs[0] == docs[1]
    # deletes after the re-terming subtract the right terms
    more = rng.sample(live, 40)
    old.remove(more)
    new.remove(more)
    rows = [sorted(db.execute(f"SELECT term, df FROM {db.s}.bm25_terms WHERE df > 0")) for db in db_pair]
    assert rows[0] == rows[1]
