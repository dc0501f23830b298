"""Warm question latency through the question service (no model) against retrieval alone, and CLI cold start.

The knowledge base is real (SQLite registry with stored parsed documents and profiles,
Chroma, BM25) with 10k chunks: the CMRC2018 dev paragraphs grouped into documents of
50 paragraphs (each document stored in parsed form with a title, as indexing stores it),
repeated with distinct ids until the target size. Paragraph vectors come from the "use"
embedder once (bench/qa_cache.py); the question side is real. Per question, in the same run:

* ``retrieval``: ``retrieval.search.search`` in hybrid mode (what the service calls inside);
* ``service``: ``QuestionService.ask`` with no generator — rewrite, routing, scope, retrieval,
  extractive answer, citations refined from the stored documents.

CLI cold start: ``officeqa ask --no-model`` in a fresh process against the same knowledge base,
against ``python -c "import server.cli"`` (interpreter + CLI import) as the baseline.

    python bench/bench_service.py [--chunks 10000] [--queries 200]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.qa_cache import cached_vectors, load_set
from indexing.knowledge_base import KnowledgeBase
from indexing.registry import INDEXED, DocumentRecord, now_iso
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.embeddings import create_embedder
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from officeqa.text_tokens import bm25_terms
from retrieval.search import search
from retrieval.service import QuestionService

PER_DOCUMENT = 50
NOISE = 0.02


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1000 for s in seconds)
    return statistics.median(ms), ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]


def build(kb: KnowledgeBase, texts: list[str], vectors: np.ndarray, chunks: int) -> None:
    """Documents of PER_DOCUMENT paragraphs, each chunk one paragraph, every store written as indexing does."""
    rng = np.random.default_rng(7)
    n = len(texts)
    model = kb.model
    tokens = [bm25_terms(t) for t in texts]
    for start in range(0, chunks, PER_DOCUMENT):
        doc_id = f"doc{start // PER_DOCUMENT:05d}"
        idx = np.arange(start, min(chunks, start + PER_DOCUMENT))
        ids = [f"{doc_id}-{j:03d}" for j in range(len(idx))]
        path = f"/bench/{doc_id}.docx"
        paragraphs = [texts[i % n] for i in idx]
        noisy = vectors[idx % n] + rng.normal(0.0, NOISE, (len(idx), vectors.shape[1])).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        metas = [{"doc_id": doc_id, "path": path, "file_type": "docx", "heading_path": f"第{j + 1}节",
                  "kind": "text", "position": j, "overlap_chars": 0, "tokens": len(tokens[i % n])}
                 for j, i in enumerate(idx)]
        kb.vectors.add(ids, noisy.astype(np.float32), paragraphs, metas, model)
        kb.bm25.add_tokenized(ids, [tokens[i % n] for i in idx])
        blocks = [Block(type=BlockType.HEADING, text=f"文档 {doc_id}", level=1)]
        for j, text in enumerate(paragraphs):
            blocks += [Block(type=BlockType.HEADING, text=f"第{j + 1}节", level=2),
                       Block(type=BlockType.PARAGRAPH, text=text)]
        with kb.registry.transaction():
            kb.registry.upsert(DocumentRecord(path=path, doc_id=doc_id, file_type="docx", status=INDEXED,
                                              chunk_count=len(ids), embedding_model=model[0], indexed_at=now_iso()))
            kb.registry.replace_chunks(doc_id, [(cid, j) for j, cid in enumerate(ids)])
            kb.documents.put(doc_id, ParsedDocument(path=path, file_type="docx", blocks=blocks))
    kb._bm25_dirty = True
    kb.save()


def cold_start(settings_file: Path, question: str, runs: int = 3) -> tuple[float, float]:
    """Best-of-``runs`` seconds: the CLI answering once, and the bare interpreter + CLI import."""
    ask = [sys.executable, "-m", "server.cli", "--config", str(settings_file), "ask", question, "--no-model"]
    base = [sys.executable, "-c", "import server.cli"]
    timings = []
    for command in (ask, base):
        best = float("inf")
        for _ in range(runs):
            began = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            best = min(best, time.perf_counter() - began)
        timings.append(best)
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    qa = load_set("cmrc2018_dev")
    embedder = create_embedder(EmbeddingSettings(backend="use"))
    vectors, _, _ = cached_vectors(qa, embedder)
    questions = qa.questions[: args.queries]
    with tempfile.TemporaryDirectory(prefix="officeqa-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp), ollama=OllamaSettings(host="http://127.0.0.1:9"))
        kb = KnowledgeBase(settings, embedder=embedder)
        began = time.perf_counter()
        build(kb, qa.doc_texts, vectors, args.chunks)
        print(f"# built {args.chunks} chunks in {args.chunks // PER_DOCUMENT} documents in "
              f"{time.perf_counter() - began:.1f}s")
        service = QuestionService(settings, kb, generator=None)
        for q in questions[:30]:  # warm-up: the embedder's first calls, SQLite pages, HNSW
            service.ask(q)
        retrieval, answered = [], []
        for q in questions:
            began = time.perf_counter()
            search(kb, q, "hybrid", 10)
            retrieval.append(time.perf_counter() - began)
            began = time.perf_counter()
            answer = service.ask(q)
            answered.append(time.perf_counter() - began)
            assert answer.text
        r50, r95 = percentiles(retrieval)
        s50, s95 = percentiles(answered)
        print("| path | p50 ms | p95 ms |")
        print("|---|---|---|")
        print(f"| retrieval alone (hybrid, k=10) | {r50:.1f} | {r95:.1f} |")
        print(f"| QuestionService.ask, no model | {s50:.1f} | {s95:.1f} |")
        print(f"service / retrieval: p50 x{s50 / r50:.2f}, p95 x{s95 / r95:.2f}")
        kb.close()
        config = Path(tmp) / "bench.toml"
        config.write_text(f'data_dir = "{Path(tmp).as_posix()}"\n[ollama]\nhost = "http://127.0.0.1:9"\n',
                          encoding="utf-8")
        ask_s, import_s = cold_start(config, questions[0])
        print(f"CLI cold start: `officeqa ask --no-model` {ask_s:.2f}s; interpreter + CLI import {import_s:.2f}s "
              f"(x{ask_s / import_s:.1f})")


if __name__ == "__main__":
    main()
