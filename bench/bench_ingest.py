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
    python bench/bench_ingest.py --corpus DIR_OF_PDFS --pdfs --baseline /tmp/base --rounds 2 --configs direct

``--pdfs`` adds pages/s and CPU seconds per page (the corpus's PDF pages, counted with pdfium; CPU =
user + system of the run and its parse worker, which a busy shared machine inflates less than wall time).
``--baseline DIR`` runs each configuration also with the code of another checkout (e.g. ``git archive
<rev> | tar -x -C DIR``), alternating baseline and this code for ``--rounds`` rounds in one run, and
reports this code's rate as a ratio of the baseline's.
"""

from __future__ import annotations

import argparse
import json
import os
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
    self_use = resource.getrusage(resource.RUSAGE_SELF)
    child_use = resource.getrusage(resource.RUSAGE_CHILDREN)
    self_kb, child_kb = self_use.ru_maxrss, child_use.ru_maxrss
    import indexing

    result["code_root"] = str(Path(indexing.__file__).resolve().parents[1])
    result["cpu_s"] = round(sum(u.ru_utime + u.ru_stime for u in (self_use, child_use)), 2)
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
    parser.add_argument("--pdfs", action="store_true", help="Report pages/s and CPU s/page (a corpus of PDFs).")
    parser.add_argument("--baseline", help="Also run every configuration with the code of this checkout.")
    parser.add_argument("--rounds", type=int, default=1, help="Alternating baseline/this-code rounds.")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, args.code)  # before any project import: the baseline's modules shadow ours
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


def _pdf_pages(corpus: Path) -> int:
    import pypdfium2 as pdfium

    total = 0
    for path in sorted(corpus.rglob("*.pdf")):
        doc = pdfium.PdfDocument(path)
        total += len(doc)
        doc.close()
    return total


def _run_one(args: argparse.Namespace, config: str, corpus: Path, code: str | None) -> dict:
    command = [
        sys.executable,
        __file__,
        "--one",
        config,
        "--corpus",
        str(corpus),
        "--backend",
        args.backend,
        "--attempts",
        str(args.attempts),
    ]
    env = {**os.environ, "PYTHONPATH": code} if code else None
    done = subprocess.run(
        [*command, *(["--code", code] if code else [])], capture_output=True, text=True, check=True, env=env
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["code"] = "baseline" if code else "this"
    return result


def run_all(args: argparse.Namespace, corpus: Path) -> None:
    results = []
    pages = _pdf_pages(corpus) if args.pdfs else 0
    codes = [args.baseline, None] if args.baseline else [None]
    for _ in range(args.rounds):
        for config in args.configs.split(","):
            for code in codes:
                r = _run_one(args, config, corpus, code)
                if pages:
                    r.update(
                        pages=pages,
                        pages_per_s=round(pages / r["seconds"], 2),
                        cpu_ms_per_page=round(1000 * r["cpu_s"] / pages, 1),
                    )
                print(json.dumps(r), flush=True)
                results.append(r)
    base = next((r for r in results if r["config"] == "direct" and r["code"] == "this"), None)
    for r in results:
        if base is not None and r is not base and r["code"] == "this":
            r["wall_vs_direct"] = round(r["seconds"] / base["seconds"], 2)
    if args.baseline:
        print(json.dumps(_speedups(results)))
    if args.write:
        write_markdown(results, corpus, args.backend)


def _speedups(results: list[dict]) -> dict:
    """Per configuration: this code's pages (or chunks) per wall second and per CPU second over the baseline's."""
    out: dict = {}
    for config in dict.fromkeys(r["config"] for r in results):
        mine = [r for r in results if r["config"] == config and r["code"] == "this"]
        theirs = [r for r in results if r["config"] == config and r["code"] == "baseline"]
        wall = sum(r["seconds"] for r in theirs) / len(theirs) / (sum(r["seconds"] for r in mine) / len(mine))
        cpu = sum(r["cpu_s"] for r in theirs) / len(theirs) / (sum(r["cpu_s"] for r in mine) / len(mine))
        out[config] = {"wall_speedup": round(wall, 2), "cpu_speedup": round(cpu, 2)}
    return out


def write_markdown(results: list[dict], corpus: Path, backend: str) -> None:
    lines = [
        f"\n### {time.strftime('%Y-%m-%d')}: {corpus.name} ({results[0]['files']} files), embedder `{backend}`, "
        f"jobs.max_attempts {results[-1].get('attempts', 1)}\n",
        "| config | code | wall s | CPU s | pages/s | CPU ms/page | files/min | chunks/s | chunks | main peak RSS MB "
        "| worker peak RSS MB | wall vs direct |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['config']} | {r['code']} | {r['seconds']} | {r['cpu_s']} | {r.get('pages_per_s', '')} | "
            f"{r.get('cpu_ms_per_page', '')} | {r['files_per_min']} | {r['chunks_per_s']} | {r['chunks']} | "
            f"{r['main_peak_rss_mb']} | {r['worker_peak_rss_mb']} | {r.get('wall_vs_direct', 1.0)} |"
        )
    out = ROOT / "bench" / "results" / "ingest.md"
    if not out.exists():
        out.write_text("# Ingestion benchmark (bench/bench_ingest.py)\n", encoding="utf-8")
    with open(out, "a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
