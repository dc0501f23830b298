"""BM25 back-ends at 10k and 100k chunks: build time, query latency p50/p95, add/delete cost.

Compared on the same jieba tokens (tokenization is measured once, separately):

* rank-bm25 ``BM25Okapi`` (the library the issue names) — baseline;
* bm25s (sparse matrix of precomputed scores; no incremental add/delete: rebuild);
* ``indexing.bm25_index.BM25Index`` (segments of term postings, exact statistics on add/delete).

The corpus is the CMRC2018 dev paragraphs (~510 characters each, chunk-sized) repeated
with distinct ids. Queries are the CMRC slice questions. rank-bm25 at 100k is measured on
fewer queries because each takes a long time.

    python bench/bench_bm25.py [--sizes 10000 100000] [--queries 100] [--skip-rank-bm25-100k]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import load_set
from indexing.bm25_index import BM25Index
from officeqa.text_tokens import bm25_terms


def percentiles(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):8.2f} ms  p95 {p95:8.2f} ms  (n={len(ms)})"


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def bench_rank_bm25(tokens: list[list[str]], queries: list[list[str]]) -> None:
    from rank_bm25 import BM25Okapi

    model, build = timed(BM25Okapi, tokens)
    latencies = []
    for q in queries:
        start = time.perf_counter()
        scores = model.get_scores(q)
        np.argsort(-scores, kind="stable")[:10]
        latencies.append(time.perf_counter() - start)
    print(f"  rank-bm25  build {build:7.2f} s   query {percentiles(latencies)}   add/delete = full rebuild")


def bench_bm25s(tokens: list[list[str]], queries: list[list[str]]) -> None:
    import bm25s

    model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    _, build = timed(lambda: model.index(tokens, show_progress=False))
    latencies = []
    for q in queries:
        start = time.perf_counter()
        model.retrieve([q], k=10, show_progress=False, n_threads=1)
        latencies.append(time.perf_counter() - start)
    print(f"  bm25s      build {build:7.2f} s   query {percentiles(latencies)}   add/delete = full rebuild")


def bench_ours(ids: list[str], tokens: list[list[str]], queries: list[list[str]], batch: int) -> None:
    index = BM25Index()

    def build() -> None:
        for start in range(0, len(ids), batch):
            index.add_tokenized(ids[start : start + batch], tokens[start : start + batch])

    _, build_s = timed(build)
    latencies = []
    for q in queries:
        start = time.perf_counter()
        index.search_tokens(q, 10)
        latencies.append(time.perf_counter() - start)
    print(f"  BM25Index  build {build_s:7.2f} s   query {percentiles(latencies)}   (adds of {batch} chunks)")
    # A 10-chunk document deleted, then re-added, then the next query.
    victim = ids[len(ids) // 2 : len(ids) // 2 + 10]
    _, delete_s = timed(index.remove, victim)
    _, readd_s = timed(index.add_tokenized, victim, tokens[len(ids) // 2 : len(ids) // 2 + 10])
    _, query_s = timed(index.search_tokens, queries[0], 10)
    print(f"             delete 10 chunks {delete_s * 1000:.1f} ms, add 10 chunks {readd_s * 1000:.1f} ms, "
          f"next query {query_s * 1000:.1f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bm25.npz"
        _, save_s = timed(index.save, path)
        loaded, load_s = timed(BM25Index.load, path)
        print(f"             save {save_s:.2f} s, load {load_s:.2f} s, file {path.stat().st_size / 1e6:.1f} MB, "
              f"{len(loaded)} chunks")
    many = ids[: len(ids) // 4]  # a quarter: segments that become >30% dead are compacted
    _, merge_s = timed(index.remove, many)
    print(f"             delete {len(many)} chunks (a quarter, compaction included) {merge_s:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rank-bm25-queries-100k", type=int, default=10)
    parser.add_argument("--skip-rank-bm25-100k", action="store_true")
    args = parser.parse_args()

    qa = load_set("cmrc2018_dev")
    base_tokens, tok_s = timed(lambda: [bm25_terms(t) for t in qa.doc_texts])
    chars = sum(len(t) for t in qa.doc_texts)
    print(f"BM25 terms (jieba + English stems): {len(base_tokens)} passages in {tok_s:.2f} s = "
          f"{len(base_tokens) / tok_s:.0f} passages/s, "
          f"{chars / tok_s / 1e3:.0f} k chars/s; {statistics.mean(map(len, base_tokens)):.0f} tokens/passage")
    queries = [bm25_terms(q) for q in qa.questions][: args.queries]

    for size in args.sizes:
        ids = [f"c{i}" for i in range(size)]
        tokens = [base_tokens[i % len(base_tokens)] for i in range(size)]
        print(f"\n== {size} chunks ==")
        if size >= 100_000 and args.skip_rank_bm25_100k:
            print("  rank-bm25  skipped")
        else:
            n = args.rank_bm25_queries_100k if size >= 100_000 else len(queries)
            bench_rank_bm25(tokens, queries[:n])
        bench_bm25s(tokens, queries)
        bench_ours(ids, tokens, queries, batch=500)


if __name__ == "__main__":
    main()
