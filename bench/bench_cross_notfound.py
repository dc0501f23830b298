"""Cross-language "not found": how similar is the best sentence when the answer is there, and when it is not?

An English question over Chinese documents cannot be judged by shared words, so the extractive answer
ranks sentences by the embedder's cosine (``retrieval.extractive.answer._by_similarity``). Whether the
documents answer at all can only be judged by how high that best cosine is. This bench measures it on
MLQA en→zh (questions and paragraphs written by others; converted by ``python -m eval.datasets`` into
``bench/results/cache/datasets/mlqa_en2zh``): per question, the sentences of the 3 paragraphs nearest to
it (dense search, as the answer path sees them), scored by cosine to the question:

* **answerable**: the paragraphs nearest to the question, the gold paragraph among them when retrieved;
* **unanswerable**: the same question with its gold paragraph removed from the corpus (the nearest
  other paragraphs): what a question about something the documents never mention looks like.

It prints the best-sentence cosine distributions and, for thresholds, the share of answerable questions
that would be called "not found" (false) and the share of unanswerable ones that would (true), on two
fixed halves of the questions: the threshold is chosen on the first half and judged on the second.

    python bench/bench_cross_notfound.py [--set mlqa_en2zh] [--out bench/results/cross_notfound.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import cached_vectors, load_set
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings
from prompts.assembler import split_sentences

TOP = 3
MAX_CHARS = 160


def best_cosines(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    qa = load_set(name)
    embedder = create_embedder(EmbeddingSettings(backend="use"))
    doc_vectors, query_vectors, _ = cached_vectors(qa, embedder)
    sentences: list[list[str]] = []
    for text in qa.doc_texts:
        parts = [s.strip() for s in split_sentences(text) if 4 <= len(s.strip()) <= MAX_CHARS]
        sentences.append(parts or [text[:MAX_CHARS]])
    flat = [s for parts in sentences for s in parts]
    owner = np.array([i for i, parts in enumerate(sentences) for _ in parts])
    sentence_vectors = embedder.embed_documents(flat, batch_size=64)
    index = {d: i for i, d in enumerate(qa.doc_ids)}
    answerable, unanswerable = [], []
    for q, qid in enumerate(qa.qids):
        gold = {index[d] for d in qa.gold[qid] if d in index}
        order = np.argsort(-(doc_vectors @ query_vectors[q]))
        for removed, out in ((set(), answerable), (gold, unanswerable)):
            top = [int(i) for i in order if int(i) not in removed][:TOP]
            mask = np.isin(owner, top)
            out.append(float(np.max(sentence_vectors[mask] @ query_vectors[q])))
    return np.array(answerable), np.array(unanswerable), qa.qids


def report(answerable: np.ndarray, unanswerable: np.ndarray) -> list[str]:
    half = len(answerable) // 2
    lines = [f"questions: {len(answerable)} (first half {half}, second half {len(answerable) - half})", "",
             "| best cosine | p10 | p25 | p50 | p75 | p90 |", "|---|---|---|---|---|---|"]
    for label, values in (("answerable", answerable), ("gold removed", unanswerable)):
        q = np.percentile(values, [10, 25, 50, 75, 90])
        lines.append(f"| {label} | " + " | ".join(f"{v:.3f}" for v in q) + " |")
    lines += ["", "| threshold | half | answerable called not found | gold-removed called not found |",
              "|---|---|---|---|"]
    for threshold in np.arange(0.20, 0.46, 0.025):
        for name, part in (("first", slice(0, half)), ("second", slice(half, None))):
            a, u = answerable[part], unanswerable[part]
            lines.append(f"| {threshold:.3f} | {name} | {np.mean(a < threshold):.3f} | {np.mean(u < threshold):.3f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="mlqa_en2zh")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    answerable, unanswerable, _ = best_cosines(args.set)
    lines = report(answerable, unanswerable)
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.write_text(f"# Cross-language not-found (bench/bench_cross_notfound.py, {args.set}, \"use\")\n\n"
                            f"{text}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
