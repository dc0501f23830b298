"""Chunking throughput (MB of block text per second, from already-parsed blocks).

Files: docx/en_handbook-872p.docx and the whole corpus (every file the parsers accept,
OCR off). Parsing happens once, before timing. For each set the script prints the best of
``--repeat`` runs of ``chunk_document`` with a fresh token counter (cold word cache) and with
the counter reused (warm cache, as in a long indexing run), plus the baseline measured in
the same run: the raw ``tokenizers`` WordPiece encoding of the same block texts
(``encode_batch``, no special tokens), i.e. what "just count the tokens" would cost.
Throughput is given per wall second and per CPU second of this process (tokenizer threads
included): on a shared machine the CPU figure is the stable one, and the load average is
printed with it. Target: >= 5 MB/s. The corpus-wide chunk metrics are printed last.

    python bench/bench_chunking.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from indexing.chunking import chunk_document, merge_metrics
from indexing.parsing import parse_file
from officeqa.domain import ParsedDocument
from officeqa.errors import UnreadableDocument
from officeqa.settings import ChunkingSettings, ParsingSettings
from officeqa.tokens import DEFAULT_TOKENIZER_PATH, HFTokenCounter

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
HANDBOOK = "docx/en_handbook-872p.docx"


def load_corpus() -> dict[str, ParsedDocument]:
    settings = ParsingSettings(ocr_enabled=False)
    docs: dict[str, ParsedDocument] = {}
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.parent != CORPUS):
        try:
            docs[str(path.relative_to(CORPUS))] = parse_file(path, settings=settings)
        except (UnreadableDocument, ImportError):
            continue
    return docs


def text_mb(docs: list[ParsedDocument]) -> float:
    return sum(len(b.text.encode("utf-8")) for d in docs for b in d.blocks) / 1e6


def _timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process incl. tokenizer threads) of ``fn()``."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def time_chunking(docs: list[ParsedDocument], repeat: int) -> dict[str, tuple[float, float]]:
    settings = ChunkingSettings()
    shared = HFTokenCounter.from_file(DEFAULT_TOKENIZER_PATH)
    cold: list[tuple[float, float]] = []
    warm: list[tuple[float, float]] = []
    for _ in range(repeat):
        counter = HFTokenCounter.from_file(DEFAULT_TOKENIZER_PATH)
        cold.append(_timed(lambda c=counter: [chunk_document(d, settings, c) for d in docs]))
        warm.append(_timed(lambda: [chunk_document(d, settings, shared) for d in docs]))
    return {"cold": min(cold), "warm": min(warm)}


def time_raw_tokenizer(docs: list[ParsedDocument], repeat: int) -> tuple[float, float]:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(DEFAULT_TOKENIZER_PATH))
    tok.no_truncation()
    tok.no_padding()
    texts = [b.text for d in docs for b in d.blocks if b.text]
    return min(_timed(lambda: tok.encode_batch(texts, add_special_tokens=False)) for _ in range(repeat))


def report(label: str, docs: list[ParsedDocument], repeat: int) -> None:
    mb = text_mb(docs)
    times = time_chunking(docs, repeat)
    raw = time_raw_tokenizer(docs, repeat)
    print(
        json.dumps(
            {
                "set": label,
                "documents": len(docs),
                "text_mb": round(mb, 2),
                "chunk_cold_mb_s": round(mb / times["cold"][0], 2),
                "chunk_warm_mb_s": round(mb / times["warm"][0], 2),
                "chunk_cold_mb_per_cpu_s": round(mb / times["cold"][1], 2),
                "chunk_warm_mb_per_cpu_s": round(mb / times["warm"][1], 2),
                "baseline_raw_tokenizer_mb_s": round(mb / raw[0], 2),
                "baseline_raw_tokenizer_mb_per_cpu_s": round(mb / raw[1], 2),
                "speedup_cold_vs_raw_tokenizer": round(raw[0] / times["cold"][0], 2),
                "target_mb_s": 5.0,
                "load_average_1m": round(os.getloadavg()[0], 1),
                "cpus": os.cpu_count(),
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    docs = load_corpus()
    if HANDBOOK in docs:
        report(HANDBOOK, [docs[HANDBOOK]], args.repeat)
    report("corpus", list(docs.values()), args.repeat)
    results = [chunk_document(doc, ChunkingSettings()) for doc in docs.values()]
    print(json.dumps({"corpus_metrics": merge_metrics([r.metrics for r in results]).to_json()}))


if __name__ == "__main__":
    main()
