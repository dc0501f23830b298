"""Query latency per mode at 10k and 100k chunks, and the cost of deleting one document.

The knowledge base is a real one (SQLite registry, Chroma persistent collection, BM25
index) in a temporary folder. Chunks are the CMRC2018 dev paragraphs (~510 characters,
chunk-sized) repeated with distinct ids until the target size. To keep the build to
minutes on 2 cores, the paragraph vectors are embedded once (cached by bench/qa_cache.py)
and each copy gets its own small random perturbation (so HNSW does not index exact
duplicates), and BM25 tokens are computed once per paragraph. The query side is real:
every search embeds its question with the "use" embedder and goes through
``retrieval.search.search`` (ranking, fusion, fetching texts, de-duplication).

Targets (issue 4): hybrid p50 < 50 ms and p95 < 150 ms at 100k chunks; delete < 1 s.

    python bench/bench_query.py [--sizes 10000 100000] [--queries 200] [--fusions guarded adaptive ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import cached_vectors, load_set
from indexing.knowledge_base import KnowledgeBase
from indexing.registry import INDEXED, DocumentRecord, now_iso
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings, Settings
from officeqa.text_tokens import bm25_terms
from retrieval.search import MODES, search

NOISE = 0.02
GROUP = 5000


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in seconds)
    return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def grow(kb: KnowledgeBase, texts, tokens, vectors, start: int, stop: int, rng: np.random.Generator) -> float:
    """Add copies ``start..stop-1`` (copy i = paragraph i % n, rep i // n) to every store; returns seconds."""
    n = len(texts)
    model = kb.model
    began = time.perf_counter()
    for lo in range(start, stop, GROUP):
        hi = min(stop, lo + GROUP)
        idx = np.arange(lo, hi)
        docs = [f"rep{i // n:04d}_{i % n:04d}" for i in idx]  # one chunk per document, ids as the product's:
        ids = [f"{doc}-0" for doc in docs]  # "<doc id>-<position>" (the strong store counts coverage from them)
        base = vectors[idx % n]
        noisy = base + rng.normal(0.0, NOISE, base.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        chunk_texts = [texts[i % n] for i in idx]
        metas = [
            {"doc_id": doc, "path": f"bench://{doc}", "file_type": "txt", "heading_path": "", "kind": "text",
             "position": 0, "overlap_chars": 0, "tokens": len(tokens[i % n])}
            for doc, i in zip(docs, idx, strict=True)
        ]
        with kb.writing():  # the write lock; BM25 changes go to its log, the registry commit bumps the generation
            kb.vectors.add(ids, noisy.astype(np.float32), chunk_texts, metas, model)
            kb.bm25_store.add_tokenized(ids, [tokens[i % n] for i in idx])
            with kb.registry.transaction():
                for doc, cid in zip(docs, ids, strict=True):
                    kb.registry.upsert(
                        DocumentRecord(path=f"bench://{doc}", doc_id=doc, file_type="txt", status=INDEXED,
                                       chunk_count=1, embedding_model=model[0], indexed_at=now_iso())
                    )
                    kb.registry.replace_chunks(doc, [(cid, 0)])
                kb.mark_committed()
    kb.save()  # folds the BM25 log into its snapshot
    return time.perf_counter() - began


def measure(kb: KnowledgeBase, questions: list[str], k: int) -> dict[str, dict[str, tuple[float, float]]]:
    """Per mode: end-to-end latency (query embedding included) and retrieval alone (vector made before)."""
    for q in questions[:30]:  # the USE model answers its first ~20 calls slowly (warm-up, measured: ~200 ms each)
        kb.embedder.embed_query(q)
    embed_times = []
    vectors = []
    for q in questions:
        began = time.perf_counter()
        vectors.append(kb.embedder.embed_query(q))
        embed_times.append(time.perf_counter() - began)
    out: dict[str, dict[str, tuple[float, float]]] = {"query embedding": {"alone": percentiles(embed_times)}}
    for mode in MODES:
        search(kb, questions[0], mode=mode, k=k)  # warm caches (HNSW pages, SQLite)
        full, retrieval = [], []
        for q, vector in zip(questions, vectors, strict=True):
            began = time.perf_counter()
            hits = search(kb, q, mode=mode, k=k)
            full.append(time.perf_counter() - began)
            assert hits, f"no hits for {q!r} in {mode}"
            began = time.perf_counter()
            search(kb, q, mode=mode, k=k, query_vector=vector)
            retrieval.append(time.perf_counter() - began)
        out[mode] = {"end-to-end": percentiles(full), "retrieval only": percentiles(retrieval)}
    return out


def compare_fusions(kb: KnowledgeBase, questions: list[str], fusions: list[str], k: int) -> list[str]:
    """Hybrid p50 / p95 per fusion setting on the same knowledge base, interleaved query by query.

    Why interleaved: on a shared machine the load changes by the minute; timing each fusion on the
    same query back to back (the order rotating) makes the ratio between them fair, where two
    separate runs would mostly measure the neighbours. Rows: end-to-end (query embedded) and
    retrieval only (vector made before), and each fusion's p50 over the first one's.
    """
    base = kb.settings
    vectors = [kb.embedder.embed_query(q) for q in questions]
    timings: dict[str, dict[str, list[float]]] = {f: {"end-to-end": [], "retrieval only": []} for f in fusions}
    settings = {f: base.model_copy(update={"retrieval": base.retrieval.model_copy(update={"fusion": f})})
                for f in fusions}
    for f in fusions:  # warm each path once
        kb.settings = settings[f]
        search(kb, questions[0], mode="hybrid", k=k)
    for i, (q, vector) in enumerate(zip(questions, vectors, strict=True)):
        for f in fusions[i % len(fusions):] + fusions[: i % len(fusions)]:
            kb.settings = settings[f]
            began = time.perf_counter()
            search(kb, q, mode="hybrid", k=k)
            timings[f]["end-to-end"].append(time.perf_counter() - began)
            began = time.perf_counter()
            search(kb, q, mode="hybrid", k=k, query_vector=vector)
            timings[f]["retrieval only"].append(time.perf_counter() - began)
    kb.settings = base
    rows = ["| fusion | end-to-end p50 ms | p95 ms | retrieval only p50 ms | p95 ms | p50 ratio to "
            f"{fusions[0]} (end-to-end / retrieval only) |", "|---|---|---|---|---|---|"]
    first = {kind: percentiles(values)[0] for kind, values in timings[fusions[0]].items()}
    for f in fusions:
        full, alone = percentiles(timings[f]["end-to-end"]), percentiles(timings[f]["retrieval only"])
        rows.append(f"| {f} | {full[0]:.1f} | {full[1]:.1f} | {alone[0]:.1f} | {alone[1]:.1f} | "
                    f"{full[0] / first['end-to-end']:.2f} / {alone[0] / first['retrieval only']:.2f} |")
    return rows


def _load_bm25(kb: KnowledgeBase) -> float:
    began = time.perf_counter()
    len(kb.bm25)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument(
        "--data-dir", help="Keep the knowledge base in this folder and reuse what it holds (smaller sizes are skipped)."
    )
    parser.add_argument(
        "--fusions", nargs="+", help="Also time hybrid under each of these fusion settings (first = the baseline)."
    )
    args = parser.parse_args()

    qa = load_set("cmrc2018_dev")
    embedder = create_embedder(EmbeddingSettings(backend="use"))
    vectors, _, _ = cached_vectors(qa, embedder)
    began = time.perf_counter()
    tokens = [bm25_terms(t) for t in qa.doc_texts]
    print(f"corpus: {len(qa.doc_texts)} CMRC paragraphs; jieba tokens for all in {time.perf_counter() - began:.1f}s")
    questions = qa.questions[: args.queries]
    rng = np.random.default_rng(20180101)
    with tempfile.TemporaryDirectory(prefix="officeqa-bench-") as tmp:
        kb = KnowledgeBase(Settings(data_dir=Path(args.data_dir or tmp)), embedder=embedder)
        size = kb.vectors.count()
        if size:
            print(f"# reusing {size} chunks in {args.data_dir}; BM25 loaded in {_load_bm25(kb):.1f}s")
        print("| chunks | mode | end-to-end p50 ms | p95 ms | retrieval only p50 ms | p95 ms |")
        print("|---|---|---|---|---|---|")
        rows = []
        for target in sorted(t for t in args.sizes if t >= size):
            seconds = grow(kb, qa.doc_texts, tokens, vectors, size, target, rng)
            print(f"# grew {size} -> {target} chunks in {seconds:.1f}s (Chroma add + BM25 add + registry + BM25 save)")
            size = target
            for mode, timing in measure(kb, questions, args.k).items():
                full = timing.get("end-to-end", timing.get("alone"))
                alone = timing.get("retrieval only", timing.get("alone"))
                rows.append((target, mode, *full, *alone))
                print(
                    f"| {target} | {mode} | {full[0]:.1f} | {full[1]:.1f} | {alone[0]:.1f} | {alone[1]:.1f} |",
                    flush=True,
                )
        if args.fusions:
            print(f"# hybrid by fusion setting at {size} chunks, {len(questions)} queries, interleaved")
            print("\n".join(compare_fusions(kb, questions, args.fusions, args.k)), flush=True)
        victim = f"bench://rep0000_{len(qa.doc_texts) // 2:04d}"
        began = time.perf_counter()
        kb.remove(victim)  # every store: Chroma (where doc_id), BM25 (+ journal), registry
        delete_s = time.perf_counter() - began
        report = kb.check()
        # grow() fills Chroma, BM25 and the registry only; the sinks (stored documents, tables) hold none of the
        # synthetic documents, so their "missing" lists are the bench's doing, not the delete's.
        report.sinks = {}
        print(
            f"delete of one document at {size} chunks: {delete_s * 1000:.0f} ms (Chroma, BM25 + its journal, "
            f"registry); check clean (sinks not filled by this bench): {report.clean} "
            f"({report.chroma_chunks} chunks left)"
        )
        hybrid = next(r for r in rows if r[0] == max(args.sizes) and r[1] == "hybrid")
        print(
            f"targets at {hybrid[0]}: hybrid p50 {hybrid[2]:.1f} ms (< 50) p95 {hybrid[3]:.1f} ms (< 150) end-to-end, "
            f"{hybrid[4]:.1f} / {hybrid[5]:.1f} ms without the query embedding; delete {delete_s:.2f} s (< 1)"
        )
        kb.close()


if __name__ == "__main__":
    main()
