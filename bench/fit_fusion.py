"""Fit ``guarded`` fusion's one constant (the dense share) on the TUNING halves only.

Why worst case first: the product promises that hybrid is never below the better single retriever,
so a share is chosen by its worst margin (hybrid minus max(bm25, dense), nDCG@10 and Recall@10) over
every set's tuning half, then by the mean margin. The held-out halves are never read here; the
chosen value is then reported on both halves by ``bench/bench_fusion_sets.py``.

Per-query variants are scored the same way (they add no constant of their own):

* ``plain``: the share as is;
* ``agree``: the share times the top-10 agreement of the two lists (share of BM25's top-10 chunks in
  the dense top 10, raised to at least ``1 - bm25 trust``): a dense side that agrees with BM25 about
  nothing gets no say where BM25 can read the query;
* ``unsure``: the share times BM25's doubt: 1 minus the gap between BM25's first and second scores
  over the first (a BM25 list with a clear winner is left alone).

    python bench/fit_fusion.py [--sets ...] [--embedder use]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fusion_data import dense_runs, load_chunked, load_vectors
from bench.fusion_data import to_documents as docs_of
from eval.retrieval_metrics import evaluate
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings
from retrieval.fusion import guarded_fusion
from retrieval.query_signals import QuerySignals
from retrieval.search import query_signals_for

Hits = list[tuple[str, float]]
SHARES = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


def agreement(bm25: Hits, dense: Hits, k: int = 10) -> float:
    top_b = {c for c, _ in bm25[:k]}
    return len(top_b & {c for c, _ in dense[:k]}) / k if top_b else 0.0


def doubt(bm25: Hits) -> float:
    if len(bm25) < 2 or bm25[0][1] <= 0:
        return 1.0
    return 1.0 - (bm25[0][1] - bm25[1][1]) / bm25[0][1]


VARIANTS: dict[str, Callable[[Hits, Hits, QuerySignals], float]] = {
    "plain": lambda b, d, s: 1.0,
    "agree": lambda b, d, s: agreement(b, d),
    "unsure": lambda b, d, s: doubt(b),
}
RAISES: dict[str, Callable[[Hits, Hits, QuerySignals], float]] = {
    "agree-up": lambda b, d, s: agreement(b, d),
}
"""Variants that raise the share towards equal shares (0.5) as the two top-10 lists agree: where both
retrievers found the same candidates, the dense side only reorders them."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["rgb_zh", "rgb_zh_int", "scifact_full", "annual_pages"])
    parser.add_argument("--embedder", default="use")
    args = parser.parse_args()
    embedder = create_embedder(EmbeddingSettings(backend=args.embedder))
    prepared = []
    for name in args.sets:
        data = load_chunked(name)
        docs, queries = load_vectors(data, embedder)
        dense = dense_runs(data, docs, queries)
        tune = [q for q in data.qids if data.split[q] == "tune"]
        text = dict(zip(data.qids, data.questions, strict=True))
        bm25 = {q: data.bm25(text[q]) for q in tune}
        signals = {q: query_signals_for(data.index, text[q], [c for c, _ in dense[q]], embedder.scripts) for q in tune}
        gold = {q: data.gold[q] for q in tune}
        single = {
            "bm25": evaluate({q: docs_of(bm25[q], data.chunk_doc) for q in tune}, gold, recall_cutoffs=(10,)),
            "dense": evaluate({q: docs_of(dense[q], data.chunk_doc) for q in tune}, gold, recall_cutoffs=(10,)),
        }
        prepared.append((name, data, tune, bm25, dense, signals, gold, single))
    print("| variant | share | worst margin | mean margin | " + " | ".join(p[0] for p in prepared) + " |")
    print("|---|---|---|---|" + "---|" * len(prepared))
    results = []
    for variant, factor in [*VARIANTS.items(), *RAISES.items()]:
        for share in SHARES:
            margins, cells = [], []
            for _name, data, tune, bm25, dense, signals, gold, single in prepared:
                run = {}
                for q in tune:
                    trust_b = 1.0 if signals[q].coverage >= 0.5 else 0.0
                    scale = max(factor(bm25[q], dense[q], signals[q]), 1.0 - trust_b)
                    if variant in RAISES:
                        own = share + (0.5 - share) * factor(bm25[q], dense[q], signals[q])
                    else:
                        own = share * scale
                    hits = guarded_fusion(bm25[q], dense[q], signals[q], dense_share=own)
                    run[q] = docs_of(hits, data.chunk_doc)
                got = evaluate(run, gold, recall_cutoffs=(10,))
                set_margins = [got[m] - max(single["bm25"][m], single["dense"][m]) for m in ("ndcg@10", "recall@10")]
                margins.extend(set_margins)
                cells.append(f"{got['ndcg@10']:.4f} ({min(set_margins):+.4f})")
            worst, mean = min(margins), sum(margins) / len(margins)
            results.append((worst, mean, variant, share))
            print(f"| {variant} | {share} | {worst:+.4f} | {mean:+.4f} | " + " | ".join(cells) + " |", flush=True)
    best = max(results)
    print(f"\nchosen (worst margin, then mean): variant {best[2]}, share {best[3]} "
          f"(worst {best[0]:+.4f}, mean {best[1]:+.4f})")


if __name__ == "__main__":
    main()
