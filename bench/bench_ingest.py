"""Ingestion throughput through the job queue (1 and 2 workers) against indexing the same files directly.

Each configuration runs in a fresh subprocess over a fresh data folder, so its timings
and peak memory are its own:

* ``direct``: the pipeline without the queue: one guarded parse worker, chunk, then embed
  and write in batches (``KnowledgeBase.write``), all in one loop: the baseline;
* ``queue-1`` / ``queue-2``: ``officeqa index`` as users run it (enqueue, worker pool with 1
  or 2 parse workers, per-document commits under the write lock, BM25 log).

Reported per configuration: files/min, chunks/s, wall seconds, peak RSS of the main
process and of the largest parse worker (``getrusage``), and the queue's overhead as a
ratio of its wall time to the direct baseline measured in the same run.

    python bench/bench_ingest.py [--corpus ../shared/corpus] [--backend use|hash] [--write]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIGS = ("direct", "queue-1", "queue-2")


def _settings(data_dir: Path, backend: str, workers: int, attempts: int = 1):
    from officeqa.settings import EmbeddingSettings, JobsSettings, Settings

    return Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(backend=backend),
        jobs=JobsSettings(workers=workers, max_attempts=attempts),
    )


def run_direct(corpus: Path, data_dir: Path, backend: str) -> dict:
    """The baseline: parse (guarded), chunk, embed and write in batches, no queue."""
    from indexing.knowledge_base import KnowledgeBase
    from indexing.parsing.guard import GuardedParser
    from indexing.preparation import prepare, supported_suffixes
    from indexing.registry import DocumentRecord
    from indexing.walking import file_sha256, walk
    from officeqa.errors import UnreadableDocument

    settings = _settings(data_dir, backend, 1)
    started = time.perf_counter()
    files = walk([corpus], supported_suffixes()).files
    chunks = done = 0
    with KnowledgeBase(settings) as kb, GuardedParser(settings.parsing) as parser:
        _ = kb.embedder  # model load counted, as in the queued runs
        batch = []
        for path in files:
            digest, st = file_sha256(path)
            record = DocumentRecord(path=path, doc_id=digest, file_type=Path(path).suffix.lstrip("."), size=st.st_size)
            try:
                prepared = prepare(settings.chunking, parser.parse(path), record)
            except UnreadableDocument:
                continue
            if prepared.chunks:
                batch.append(prepared)
                done += 1
                chunks += len(prepared.chunks)
            if sum(len(d.chunks) for d in batch) >= settings.embedding.batch_size * 4:
                kb.write(batch)
                batch = []
        kb.write(batch)
    return {"seconds": time.perf_counter() - started, "files": len(files), "indexed": done, "chunks": chunks}


def run_queue(corpus: Path, data_dir: Path, backend: str, workers: int, attempts: int) -> dict:
    from indexing.knowledge_base import KnowledgeBase

    settings = _settings(data_dir, backend, workers, attempts)
    started = time.perf_counter()
    with KnowledgeBase(settings) as kb:
        _ = kb.embedder
        report = kb.index_paths([corpus], workers=workers)
        clean = kb.check().clean
    files = len(report.added) + len(report.failed) + len(report.duplicates) + len(report.skipped)
    return {
        "seconds": time.perf_counter() - started,
        "files": files,
        "indexed": len(report.added),
        "chunks": report.chunks_added,
        "failed": sorted(f"{Path(f.path).name}: {f.kind}" for f in report.failed),
        "check_clean": clean,
    }


def one(config: str, corpus: Path, backend: str, attempts: int) -> None:
    """Run one configuration in this (fresh) process and print its JSON line."""
    with tempfile.TemporaryDirectory(prefix="officeqa-bench-ingest-") as tmp:
        data_dir = Path(tmp) / "data"
        if config == "direct":
            result = run_direct(corpus, data_dir, backend)
        else:
            result = run_queue(corpus, data_dir, backend, int(config.split("-")[1]), attempts)
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    minutes = result["seconds"] / 60
    result.update(
        attempts=attempts,
        config=config,
        backend=backend,
        files_per_min=round(result["files"] / minutes, 1),
        chunks_per_s=round(result["chunks"] / result["seconds"], 1),
        main_peak_rss_mb=round(self_kb / 1024, 1),
        worker_peak_rss_mb=round(child_kb / 1024, 1),
        seconds=round(result["seconds"], 2),
    )
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--backend", default="use", help="Embedding backend (use = default, hash = no model).")
    parser.add_argument(
        "--generated",
        type=int,
        default=0,
        help="Index N small .txt files written from the CMRC paragraphs instead (parsing is cheap there, so the "
        "queue's per-file cost shows).",
    )
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument(
        "--attempts",
        type=int,
        default=1,
        help="jobs.max_attempts for the queued runs (1 = the same work as the direct run; the product default 3 "
        "retries a timeout, which costs up to 3 x parsing.timeout_s on such a file)",
    )
    parser.add_argument("--write", action="store_true", help="Append the results to bench/results/ingest.md.")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    if args.one:
        one(args.one, corpus, args.backend, args.attempts)
        return
    with tempfile.TemporaryDirectory(prefix="officeqa-bench-corpus-") as tmp:
        if args.generated:
            corpus = write_generated(Path(tmp) / f"cmrc-{args.generated}", args.generated)
        run_all(args, corpus)


def write_generated(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True)
    source = ROOT.parent / "shared" / "qa" / "cmrc2018_dev" / "corpus.jsonl"
    with open(source, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i >= count:
                break
            row = json.loads(line)
            (folder / f"{row['id']}.txt").write_text(f"{row['title']}\n\n{row['text']}\n", encoding="utf-8")
    return folder


def run_all(args: argparse.Namespace, corpus: Path) -> None:
    results = []
    for config in args.configs.split(","):
        done = subprocess.run(
            [sys.executable, __file__, "--one", config, "--corpus", str(corpus), "--backend", args.backend,
             "--attempts", str(args.attempts)],
            capture_output=True, text=True, check=True,
        )
        line = done.stdout.strip().splitlines()[-1]
        print(line, flush=True)
        results.append(json.loads(line))
    base = next((r for r in results if r["config"] == "direct"), None)
    for r in results:
        if base is not None and r is not base:
            r["wall_vs_direct"] = round(r["seconds"] / base["seconds"], 2)
            print(json.dumps({"config": r["config"], "wall_vs_direct": r["wall_vs_direct"]}))
    if args.write:
        write_markdown(results, corpus, args.backend)


def write_markdown(results: list[dict], corpus: Path, backend: str) -> None:
    lines = [
        f"\n### {time.strftime('%Y-%m-%d')}: {corpus.name} ({results[0]['files']} files), embedder `{backend}`, "
        f"jobs.max_attempts {results[-1].get('attempts', 1)}\n",
        "| config | wall s | files/min | chunks/s | chunks | main peak RSS MB | worker peak RSS MB | wall vs direct |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['config']} | {r['seconds']} | {r['files_per_min']} | {r['chunks_per_s']} | {r['chunks']} | "
            f"{r['main_peak_rss_mb']} | {r['worker_peak_rss_mb']} | {r.get('wall_vs_direct', 1.0)} |"
        )
    out = ROOT / "bench" / "results" / "ingest.md"
    if not out.exists():
        out.write_text("# Ingestion benchmark (bench/bench_ingest.py)\n", encoding="utf-8")
    with open(out, "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
