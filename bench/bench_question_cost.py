"""No-model question cost on a knowledge base of real reports: this code against another code root, in one run.

Each code root runs in its own process (``--worker``) over the same data folder (an index of real report PDFs,
e.g. the Enterprise RAG Challenge's and the annual-report set): it opens a ``QuestionService`` with no model,
warms up on a few questions, then answers blocks of questions when the driver asks, so the two processes never
compete for the cores and the machine's load falls on both alike (blocks alternate, the order rotating). Per
question: wall seconds and the answering thread's CPU seconds (``time.thread_time``, the part load does not
inflate). Then, per root, 50 concurrent clients (threads) ask the set again: answers per second and errors.

    git worktree add /tmp/today 8bdb4b6
    python bench/bench_question_cost.py --data DATA_DIR --today-root /tmp/today [--questions 40] [--clients 50]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ANSWER_THREADS = 8
WARM_RETRIEVAL = "年报中提示了哪些经营风险？"
QUESTIONS = REPO.parent / "shared" / "annual-dev" / "questions.jsonl"
EXTRA = [
    "贵州茅台2019年的营业收入是多少？",
    "What were Procter & Gamble's net sales in 2022?",
    "What was the total revenue in the latest year?",
    "Who is the CEO of the company?",
    "How many employees did the company have at year end?",
    "公司的主要风险有哪些？",
]


def questions(limit: int) -> list[str]:
    rows = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    return (rows[::2] + EXTRA)[:limit]


def worker(root: Path, data: Path, limit: int) -> None:
    """Answer blocks read from stdin with the code under ``root``; one JSON line per block."""
    sys.path.insert(0, str(root))
    from officeqa.settings import Settings
    from retrieval.service import QuestionService

    asked = questions(limit)
    service = QuestionService.open(Settings(data_dir=data), generator=None)
    for q in [*asked[:3], WARM_RETRIEVAL]:  # a retrieval question too: Chroma, the fast model, jieba's tagger load
        service.ask(q)
    print("READY", flush=True)
    for line in sys.stdin:
        command = line.split()
        if command[0] == "quit":
            break
        if command[0] == "load":
            print(json.dumps(_load(lambda: QuestionService.open(Settings(data_dir=data), generator=None), asked,
                                   int(command[1]))), flush=True)
            continue
        lo, hi = int(command[1]), int(command[2])
        out = []
        for q in asked[lo:hi]:
            cpu, wall = time.thread_time(), time.perf_counter()
            service.ask(q)
            out.append([time.perf_counter() - wall, time.thread_time() - cpu, q])
        print(json.dumps(out), flush=True)
    service.close()


def _load(open_service, asked: list[str], clients: int) -> dict:
    """``clients`` questions at once, each answer thread with its own service (as the server's pool does:
    a SQLite connection belongs to its thread); the thread count is ``server.answer_threads``' default."""
    import threading

    local = threading.local()
    errors: list[str] = []

    def one(q: str) -> None:
        try:
            if not hasattr(local, "service"):
                local.service = open_service()
            local.service.ask(q)
        except Exception as exc:  # noqa: BLE001 - counted: the load test reports errors, it does not stop on them
            errors.append(f"{type(exc).__name__}: {exc}"[:200])

    barrier = threading.Barrier(ANSWER_THREADS)

    def warm(q: str) -> None:
        one(q)
        barrier.wait()  # every thread opens (and warms) its own service before the clock starts

    with ThreadPoolExecutor(max_workers=ANSWER_THREADS) as pool:
        list(pool.map(warm, asked[:ANSWER_THREADS]))
        errors.clear()
        started = time.perf_counter()
        list(pool.map(one, (asked * ((clients // len(asked)) + 1))[:max(clients, len(asked))]))
        seconds = time.perf_counter() - started
    n = max(clients, len(asked))
    return {"answers": n, "errors": len(errors), "first_error": errors[0] if errors else "",
            "seconds": round(seconds, 2), "answers_per_s": round(n / seconds, 3)}


def _start(root: Path, data: Path, limit: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, __file__, "--worker", str(root), "--data", str(data),
                             "--questions", str(limit)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=str(root), env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert proc.stdout is not None
    while (line := proc.stdout.readline()) and line.strip() != "READY":
        pass
    return proc


def _ask(proc: subprocess.Popen, command: str):
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def summary(rows: list[list[float]]) -> dict:
    walls = sorted(r[0] for r in rows)
    cpus = [r[1] for r in rows]
    return {"p50_s": round(statistics.median(walls), 3), "p95_s": round(walls[round(0.95 * (len(walls) - 1))], 3),
            "max_s": round(walls[-1], 3), "cpu_per_answer_s": round(statistics.mean(cpus), 3),
            "max_over_p50": round(walls[-1] / statistics.median(walls), 1),
            "slowest_cpu": sorted(([round(r[1], 2), r[2][:40]] for r in rows), reverse=True)[:5]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=False)
    parser.add_argument("--today-root", default="/tmp/today")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--block", type=int, default=5)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.data is None or not Path(args.data, "registry.sqlite3").is_file():
        print(f"skipped: no indexed knowledge base at --data {args.data} (index report PDFs into it first)")
        return
    if args.worker:
        worker(Path(args.worker), Path(args.data), args.questions)
        return
    roots = {"today": Path(args.today_root).resolve(), "this code": REPO}
    procs = {name: _start(root, Path(args.data), args.questions) for name, root in roots.items()}
    rows: dict[str, list[list[float]]] = {name: [] for name in roots}
    n = len(questions(args.questions))
    for i, lo in enumerate(range(0, n, args.block)):
        order = list(roots) if i % 2 == 0 else list(reversed(roots))
        for name in order:
            rows[name] += _ask(procs[name], f"block {lo} {lo + args.block}")
    result = {name: summary(r) for name, r in rows.items()}
    print(json.dumps(result), file=sys.stderr, flush=True)  # the serial part, kept if the load test fails
    for name in roots:
        result[name]["load"] = _ask(procs[name], f"load {args.clients}")
        _ask_quit(procs[name])
    print(json.dumps(result, indent=1))


def _ask_quit(proc: subprocess.Popen) -> None:
    assert proc.stdin is not None
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=60)


if __name__ == "__main__":
    main()
