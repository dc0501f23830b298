"""Does a bilingual query expansion from document vocabulary help cross-lingual questions? (It did not.)

No bilingual dictionary ships with any package here, so the expansion takes its words from
the documents themselves: the dense side's top ``--top`` documents for the question (in the
corpus language), their ``--terms`` highest tf-idf BM25 terms as a second BM25 query
(pseudo-relevance feedback across languages). The expanded BM25 list is then fused with the
dense list as if BM25 could read the question (full trust), and compared with dense alone and
with the product's adaptive fusion on the cross-lingual sets. Recorded in
``bench/results/expansion.md``.

    python bench/bench_expansion.py [--sets mlqa_en2zh mlqa_zh2en] [--embedder use]
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_heldout import DEPTH, bm25_run, embedder_settings, metrics, signals_for
from bench.qa_cache import cached_vectors, dense_run, load_set
from indexing.bm25_index import BM25Index
from officeqa.embeddings import create_embedder
from retrieval.fusion import adaptive_fusion
from retrieval.query_signals import QuerySignals


def expansion_terms(index: BM25Index, texts: list[str], n_terms: int) -> list[str]:
    """The ``n_terms`` terms of ``texts`` with the highest tf x idf in ``index``."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(index.tokenize(text))
    terms = list(counts)
    n = max(len(index), 1)
    idf = {t: math.log1p((n - df + 0.5) / (df + 0.5)) for t, df in zip(terms, index.document_frequencies(terms),
                                                                          strict=True)}
    return sorted(terms, key=lambda t: -counts[t] * idf[t])[:n_terms]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["mlqa_en2zh", "mlqa_zh2en"])
    parser.add_argument("--embedder", default="use")
    args = parser.parse_args()
    config = embedder_settings(args.embedder)
    if config is None:
        raise SystemExit(f"{args.embedder}: not installed")
    embedder = create_embedder(config)
    print("| set | embedder | top docs | terms | expanded bm25 nDCG/R@10 | expanded+dense | dense | adaptive |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.sets:
        qa = load_set(name)
        bm25, index = bm25_run(qa)
        docs, queries, _ = cached_vectors(qa, embedder)
        dense = dense_run(docs, queries, qa, DEPTH)
        signals = signals_for(index, qa, dense, embedder.scripts)
        text = dict(zip(qa.doc_ids, qa.doc_texts, strict=True))
        md = metrics(dense, qa)
        ma = metrics({q: adaptive_fusion(bm25[q], dense[q], signals[q]) for q in qa.qids}, qa)
        for top, n_terms in ((1, 10), (3, 10), (3, 20)):
            expanded = {
                q: index.search_tokens(expansion_terms(index, [text[d] for d, _ in dense[q][:top]], n_terms), DEPTH)
                for q in qa.qids
            }
            me = metrics(expanded, qa)
            mf = metrics({q: adaptive_fusion(expanded[q], dense[q], QuerySignals()) for q in qa.qids}, qa)
            cells = [f"{m['ndcg@10']:.4f} / {m['recall@10']:.4f}" for m in (me, mf, md, ma)]
            print(f"| {name} | {args.embedder} | {top} | {n_terms} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
