"""What adaptive fusion adds to a query at 100k chunks, against zscore fusion, in the same run.

``bench/bench_query.py`` measures whole searches (query embedding, Chroma, BM25, fusion,
fetching texts) and needs minutes of index building; on a loaded machine its absolute numbers
say more about the load than about the code. This script isolates what ``fusion=adaptive``
adds per query: the signals (query tokenization, term document frequencies, the corpus
script shares, the scripts of the 100 dense candidates) and the fusion itself, next to the
zscore fusion of the same lists and the BM25 search, all over a real BM25 index of 100k
chunks (CMRC paragraphs repeated with distinct ids, as bench_query builds it). Dense lists are
100 random candidates with cosine-like scores (fusion does not look at vectors).

    python bench/bench_fusion_cost.py [--chunks 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import load_set
from indexing.bm25_index import BM25Index
from officeqa.settings import RetrievalSettings
from officeqa.text_tokens import bm25_terms
from retrieval.fusion import fuse_hybrid
from retrieval.search import query_signals_for


def pct(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    return f"p50 {statistics.median(ms):.2f} ms, p95 {ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    qa = load_set("cmrc2018_dev")
    tokens = [bm25_terms(t) for t in qa.doc_texts]
    index = BM25Index()
    n = len(tokens)
    started = time.perf_counter()
    for lo in range(0, args.chunks, 5000):
        ids = [f"rep{i // n:04d}-{i % n:04d}" for i in range(lo, min(args.chunks, lo + 5000))]
        index.add_tokenized(ids, [tokens[i % n] for i in range(lo, min(args.chunks, lo + 5000))])
    print(f"# BM25 index of {len(index)} chunks built in {time.perf_counter() - started:.1f}s")
    started = time.perf_counter()
    index.script_shares()
    print(f"# corpus script shares, first call after the build (then cached): {time.perf_counter() - started:.3f}s")
    rng = np.random.default_rng(0)
    all_ids = sorted(index.ids())
    adaptive, zscore = RetrievalSettings(fusion="adaptive"), RetrievalSettings(fusion="zscore")
    t_bm25, t_signals, t_adaptive, t_zscore = [], [], [], []
    for question in (qa.questions * 2)[: args.queries]:
        began = time.perf_counter()
        bm25 = index.search(question, 100)
        t_bm25.append(time.perf_counter() - began)
        picks = rng.choice(len(all_ids), 100, replace=False)
        dense = [(all_ids[i], float(s)) for i, s in zip(picks, np.sort(rng.uniform(0.2, 0.9, 100))[::-1], strict=True)]
        began = time.perf_counter()
        signals = query_signals_for(index, question, [doc_id for doc_id, _ in dense])
        t_signals.append(time.perf_counter() - began)
        began = time.perf_counter()
        fuse_hybrid(bm25, dense, adaptive, signals)
        t_adaptive.append(time.perf_counter() - began)
        began = time.perf_counter()
        fuse_hybrid(bm25, dense, zscore)
        t_zscore.append(time.perf_counter() - began)
    print(f"bm25 search          {pct(t_bm25)}")
    print(f"adaptive signals     {pct(t_signals)}")
    print(f"adaptive fusion      {pct(t_adaptive)}")
    print(f"zscore fusion        {pct(t_zscore)}")
    extra = [s + a - z for s, a, z in zip(t_signals, t_adaptive, t_zscore, strict=True)]
    print(f"adaptive - zscore    {pct(extra)} per query (signals + fusion, vs zscore fusion)")


if __name__ == "__main__":
    main()
