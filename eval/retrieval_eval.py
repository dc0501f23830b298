"""Retrieval evaluation on a JSONL corpus: the library behind ``officeqa eval-retrieval``.

Why it indexes through the product: the numbers must describe what users get, so each
corpus line becomes a one-paragraph document that goes through the same chunker,
embedder, stores and ranking as a real file (only parsing is skipped). Rankings are by
DOCUMENT, as published retrieval benchmarks (MTEB, BEIR) count them: each document
takes its best chunk's rank, ties keep the ranking's order, and every mode is asked for
100 documents so Recall@100 is real. The knowledge base lives in a temporary folder.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.retrieval_metrics import evaluate
from indexing.knowledge_base import KnowledgeBase
from indexing.preparation import prepare_parsed
from indexing.registry import DocumentRecord
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import ConfigurationError
from officeqa.settings import Settings
from retrieval.search import MODES, rank_documents

DEPTH_DOCS = 100
_WRITE_GROUP = 256


@dataclass(slots=True)
class RetrievalEvalResult:
    corpus: str
    questions: int
    documents: int
    chunks: int
    embedder: str
    index_seconds: float
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)  # mode -> metric -> value
    query_seconds: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "questions": self.questions,
            "documents": self.documents,
            "chunks": self.chunks,
            "embedder": self.embedder,
            "index_seconds": round(self.index_seconds, 2),
            "metrics": {m: {k: round(v, 4) for k, v in vals.items()} for m, vals in self.metrics.items()},
            "query_seconds": {m: round(v, 2) for m, v in self.query_seconds.items()},
        }

    def table(self) -> str:
        names = ["ndcg@10", "recall@1", "recall@5", "recall@10", "recall@100", "mrr@10"]
        names = [n for n in names if any(n in vals for vals in self.metrics.values())] or names
        lines = [
            f"{self.corpus}: {self.documents} documents, {self.chunks} chunks, {self.questions} questions, "
            f"embedder {self.embedder}",
            "| mode | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for mode, vals in self.metrics.items():
            lines.append(f"| {mode} | " + " | ".join(f"{vals.get(n, 0.0):.4f}" for n in names) + " |")
        return "\n".join(lines)


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigurationError(f"{path}:{number}: not a JSON line: {exc}") from exc
    return rows


def corpus_document(row: dict[str, Any]) -> ParsedDocument:
    """One corpus line as a one-paragraph document: title, newline, text."""
    title = str(row.get("title") or "").strip()
    text = str(row.get("text") or "").strip()
    body = f"{title}\n{text}" if title else text
    return ParsedDocument(
        path=f"corpus://{row['id']}",
        file_type="jsonl",
        blocks=[Block(type=BlockType.PARAGRAPH, text=body)],
        title=title,
    )


def index_corpus(kb: KnowledgeBase, rows: Sequence[dict[str, Any]], progress: bool = False) -> int:
    """Chunk, embed and write every corpus row (doc id = the row's id); returns the chunk count."""
    from tqdm import tqdm


    total = 0
    bar = tqdm(total=len(rows), unit="doc", file=sys.stderr, disable=not progress, desc="index")
    try:
        for start in range(0, len(rows), _WRITE_GROUP):
            group = []
            for row in rows[start : start + _WRITE_GROUP]:
                doc_id = str(row["id"])
                record = DocumentRecord(path=f"corpus://{doc_id}", doc_id=doc_id, file_type="jsonl")
                group.append(prepare_parsed(kb, corpus_document(row), record))
            kb.write(group)
            total += sum(len(d.chunks) for d in group)
            bar.update(len(group))
    finally:
        bar.close()
    kb.save()
    return total


def run_retrieval_eval(
    corpus_path: str | Path,
    questions_path: str | Path,
    settings: Settings,
    modes: Sequence[str] = MODES,
    k: int = 10,
    progress: bool = False,
) -> RetrievalEvalResult:
    """Index ``corpus_path`` into a temporary knowledge base and score each mode on the questions."""
    for mode in modes:
        if mode not in MODES:
            raise ConfigurationError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    rows = read_jsonl(corpus_path)
    questions = [q for q in read_jsonl(questions_path) if q.get("gold_doc_ids")]
    with tempfile.TemporaryDirectory(prefix="officeqa-eval-") as tmp:
        kb = KnowledgeBase(settings.model_copy(update={"data_dir": Path(tmp)}))
        try:
            started = time.perf_counter()
            chunks = index_corpus(kb, rows, progress)
            result = RetrievalEvalResult(
                corpus=str(corpus_path),
                questions=len(questions),
                documents=len(rows),
                chunks=chunks,
                embedder=kb.embedder.name,
                index_seconds=time.perf_counter() - started,
            )
            result.metrics, result.query_seconds = score_modes(kb, questions, modes, k, progress)
        finally:
            kb.close()
    return result


def score_modes(
    kb: KnowledgeBase, questions: Sequence[dict[str, Any]], modes: Sequence[str], k: int, progress: bool = False
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Metrics per mode over ``questions`` (each with ``gold_doc_ids``) on an indexed ``kb``."""
    from tqdm import tqdm

    chunk_doc = kb.chunk_doc_map()
    total_chunks = len(chunk_doc)
    gold = {str(q["id"]): {str(d) for d in q["gold_doc_ids"]} for q in questions}
    vectors = None
    if any(m in ("dense", "hybrid") for m in modes):
        texts = [str(q["question"]) for q in questions]
        vectors = kb.embedder.embed_queries(texts) if texts else None
    metrics: dict[str, dict[str, float]] = {}
    seconds: dict[str, float] = {}
    depth_docs = max(DEPTH_DOCS, k)
    for mode in modes:
        run: dict[str, list[str]] = {}
        started = time.perf_counter()
        for i, question in enumerate(tqdm(questions, desc=mode, file=sys.stderr, disable=not progress)):
            vector = vectors[i] if vectors is not None else None
            run[str(question["id"])] = rank_documents(
                kb, str(question["question"]), mode, depth_docs, chunk_doc, total_chunks, vector
            )
        seconds[mode] = time.perf_counter() - started
        metrics[mode] = evaluate(run, gold, recall_cutoffs=(1, 5, 10, 100), ndcg_k=k, mrr_k=k)
    return metrics, seconds
