"""What English stemming costs at indexing time: BM25 terms with and without stems, on the same texts.

    python bench/bench_bm25_stemming.py [--sets scifact_full annual_pages xquad_zh] [--rounds 5]

``bm25_terms`` is ``tokenize_for_bm25`` (jieba) followed by one cached stem per token, so the cost is
measured as its parts, each the best of ``--rounds`` (the shared machine's load swings more than the
difference between two whole runs): jieba over every chunk; stemming every resulting token with an
empty stem cache (what a fresh process pays); and ``BM25Index.add_tokenized`` of the plain and of the
stemmed tokens. Throughput ratio = jieba / (jieba + stems); index-to-searchable ratio =
(jieba + stems + add stemmed) / (jieba + add plain). Below 1 / above 1 means slower with stems.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fusion_data import load_chunked
from indexing.bm25_index import BM25Index
from officeqa.text_tokens import stem_term, tokenize_for_bm25


def best_of(rounds: int, work: Callable[[], object], before: Callable[[], None] = lambda: None) -> float:
    times = []
    for _ in range(rounds):
        before()
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def index_of(tokens: list[list[str]]) -> BM25Index:
    index = BM25Index()
    index.add_tokenized([f"c{i}" for i in range(len(tokens))], tokens)
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", default=["scifact_full", "annual_pages", "xquad_zh"])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tokenize_for_bm25("预热 warm-up")
    stem_term("warming")
    print("| set | chunks | jieba | stems (cold cache) | tokenize passages/s: jieba / + stems | ratio | "
          "add plain | add stemmed | searchable ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.sets:
        texts = load_chunked(name).texts
        plain = [tokenize_for_bm25(t) for t in texts]
        stemmed = [[stem_term(t) for t in tokens] for tokens in plain]
        jieba_s = best_of(args.rounds, lambda: [tokenize_for_bm25(t) for t in texts])  # noqa: B023
        stem_s = best_of(args.rounds, lambda: [[stem_term(t) for t in ts] for ts in plain],  # noqa: B023
                         stem_term.cache_clear)
        add_plain = best_of(args.rounds, lambda: index_of(plain))  # noqa: B023
        add_stem = best_of(args.rounds, lambda: index_of(stemmed))  # noqa: B023
        n = len(texts)
        print(f"| {name} | {n} | {jieba_s:.2f} s | {stem_s:.3f} s | {n / jieba_s:.0f} / {n / (jieba_s + stem_s):.0f} "
              f"| {jieba_s / (jieba_s + stem_s):.3f} | {add_plain:.3f} s | {add_stem:.3f} s | "
              f"{(jieba_s + stem_s + add_stem) / (jieba_s + add_plain):.3f} |", flush=True)


if __name__ == "__main__":
    main()
