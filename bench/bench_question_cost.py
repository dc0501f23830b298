"""No-model question cost on a knowledge base of real reports: this code against another code root, in one run.

Each code root runs in its own process (``--worker``) over the same data folder (an index of real report PDFs,
e.g. the Enterprise RAG Challenge's and the annual-report set): it opens a ``QuestionService`` with no model,
warms up on a few questions, then answers blocks of questions when the driver asks, so the two processes never
compete for the cores and the machine's load falls on both alike (blocks alternate, the order rotating). Per
question: wall seconds and the answering thread's CPU seconds (``time.thread_time``, the part load does not
inflate). Then, per root, 50 concurrent clients ask the set again through the server's answer pool
(:class:`server.pool.ServicePool`: ``server.answer_threads`` threads, one service per thread, one embedder and
router shared, as :class:`server.resources.ServerResources` builds them): answers per second and errors. The
answers of the two roots are compared (same text or not) question by question.

``--background``: then, per root, on a copy of the data folder each (the background model writes to it), the
question p50/p95 with the background model idle and while it runs its ``embed`` jobs in the same process (the
server's ingestion service), blocks alternating in one run.

    git worktree add /tmp/today d67a013
    python bench/bench_question_cost.py --data DATA_DIR --today-root /tmp/today
        [--tasks eval/annual/reports_tuning.jsonl] [--questions 40] [--clients 50] [--background]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
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


def questions(limit: int, tasks: str = "") -> list[str]:
    """``limit`` questions: spread evenly over a task file's (``--tasks``), else every other annual-dev question and
    the extra ones."""
    if tasks:
        rows = [json.loads(line)["question"] for line in Path(tasks).read_text(encoding="utf-8").splitlines() if line]
        step = max(1, len(rows) // max(1, limit))
        return rows[::step][:limit]
    rows = [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]
    return (rows[::2] + EXTRA)[:limit]


def worker(root: Path, data: Path, limit: int, tasks: str) -> None:
    """Answer blocks read from stdin with the code under ``root``; one JSON line per block."""
    sys.path.insert(0, str(root))
    from officeqa.settings import Settings
    from retrieval.service import QuestionService

    asked = questions(limit, tasks)
    service = QuestionService.open(Settings(data_dir=data), generator=None)
    for q in [*asked[:3], WARM_RETRIEVAL]:  # a retrieval question too: Chroma, the fast model, jieba's tagger load
        service.ask(q)
    print("READY", flush=True)
    for line in sys.stdin:
        command = line.split()
        if command[0] == "quit":
            break
        if command[0] == "load":
            print(json.dumps(_load(Settings(data_dir=data), asked, int(command[1]))), flush=True)
        elif command[0] == "background":
            sys.path.insert(0, str(REPO / "bench"))  # this checkout's helper, whichever root answers
            from question_background import idle_and_background

            print(json.dumps(idle_and_background(Settings(data_dir=Path(command[1])), asked, int(command[2]))),
                  flush=True)
        else:
            print(json.dumps(_timed(service, asked[int(command[1]):int(command[2])])), flush=True)
    service.close()


def _timed(service, asked: list[str]) -> list[list]:
    """[wall s, thread CPU s, question, answer text] per question."""
    out = []
    for q in asked:
        cpu, wall = time.thread_time(), time.perf_counter()
        answer = service.ask(q)
        out.append([time.perf_counter() - wall, time.thread_time() - cpu, q, answer.text])
    return out


def _load(settings, asked: list[str], clients: int) -> dict:
    """``clients`` questions at once through a fresh answer pool shaped as the server's (``server.pool``: one
    service per thread, the embedder and router shared): cold (each thread opens its service on its first
    question, as after a server start and its warm-up) and again warm."""
    from officeqa.embeddings import create_embedder
    from retrieval.l0 import get_router
    from retrieval.service import QuestionService
    from server.pool import ServicePool
    from server.resources import SerialEmbedder

    shared = SerialEmbedder(create_embedder(settings.embedding, settings.ollama))
    router = get_router(settings)
    from indexing.storage import open_knowledge_base

    def opener(_: str) -> QuestionService:
        return QuestionService(settings, open_knowledge_base(settings, shared), None, router=router)

    def closer(service: QuestionService) -> None:
        service.close()
        service.kb.close()

    from officeqa.text_tokens import bm25_terms

    shared.embed_query("warm-up 预热")  # what ServerResources.warm_up loads before the first request
    bm25_terms("预热 warm-up")
    pool = ServicePool(opener, closer, lambda _: 0, ANSWER_THREADS)
    batch = (asked * ((clients // len(asked)) + 1))[:max(clients, len(asked))]
    result = {"cold": _burst(pool, batch), "warm": _burst(pool, batch)}
    pool.close()
    return result


def _burst(pool, batch: list[str]) -> dict:
    """Answers per second, and per CPU-second of this process (steadier on a shared machine: other jobs' load
    stretches the wall clock, not the work)."""
    cpu, started = time.process_time(), time.perf_counter()
    futures = [pool.submit("default", lambda s, q=q: s.ask(q)) for q in batch]
    errors = []
    for future in futures:
        try:
            future.result()
        except Exception as exc:  # noqa: BLE001 - counted: the load test reports errors, it does not stop on them
            errors.append(f"{type(exc).__name__}: {exc}"[:200])
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"answers": len(batch), "errors": len(errors), "first_error": errors[0] if errors else "",
            "seconds": round(seconds, 2), "answers_per_s": round(len(batch) / seconds, 3),
            "cpu_s": round(cpu, 2), "answers_per_cpu_s": round(len(batch) / cpu, 3)}


def _start(root: Path, data: Path, limit: int, tasks: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, __file__, "--worker", str(root), "--data", str(data),
                             "--questions", str(limit), "--tasks", tasks], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=str(root),
                            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert proc.stdout is not None
    while (line := proc.stdout.readline()) and line.strip() != "READY":
        pass
    return proc


def _ask(proc: subprocess.Popen, command: str):
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def summary(rows: list[list]) -> dict:
    walls = sorted(r[0] for r in rows)
    cpus = [r[1] for r in rows]
    return {"p50_s": round(statistics.median(walls), 3), "p95_s": round(walls[round(0.95 * (len(walls) - 1))], 3),
            "max_s": round(walls[-1], 3), "cpu_per_answer_s": round(statistics.mean(cpus), 3),
            "max_over_p50": round(walls[-1] / statistics.median(walls), 1),
            "slowest_cpu": sorted(([round(r[1], 2), r[2][:40]] for r in rows), reverse=True)[:5]}


def same_answers(rows: dict[str, list[list]]) -> dict:
    """How many questions both roots answered with the same text; the first few that differ."""
    first, second = rows.values()
    differ = [[a[2], a[3][:160], b[3][:160]] for a, b in zip(first, second, strict=True) if a[3] != b[3]]
    return {"same": len(first) - len(differ), "of": len(first), "differ": differ[:5]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=False)
    parser.add_argument("--today-root", default="/tmp/today")
    parser.add_argument("--tasks", default="", help="a task file (JSONL with 'question') to draw questions from")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--block", type=int, default=5)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--background", action="store_true", help="also p50/p95 idle vs background model running")
    parser.add_argument("--rounds", type=int, default=3, help="--background: idle/running block pairs")
    parser.add_argument("--background-only", action="store_true", help="only the --background part")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.data is None or not Path(args.data, "registry.sqlite3").is_file():
        print(f"skipped: no indexed knowledge base at --data {args.data} (index report PDFs into it first)")
        return
    if args.worker:
        worker(Path(args.worker), Path(args.data), args.questions, args.tasks)
        return
    roots = {"today": Path(args.today_root).resolve(), "this code": REPO}
    procs = {name: _start(root, Path(args.data), args.questions, args.tasks) for name, root in roots.items()}
    rows: dict[str, list[list]] = {name: [] for name in roots}
    result: dict = {name: {} for name in roots}
    if not args.background_only:
        _serial_and_load(args, procs, rows, result)
    if args.background or args.background_only:
        with tempfile.TemporaryDirectory(prefix="officeqa-bg-") as tmp:
            for name in roots:
                copy = Path(tmp, name.replace(" ", "-"))
                shutil.copytree(args.data, copy)
                result[name]["background"] = _ask(procs[name], f"background {copy} {args.rounds}")
                shutil.rmtree(copy)
    for name in roots:
        _ask_quit(procs[name])
    print(json.dumps(result, indent=1, ensure_ascii=False))


def _serial_and_load(args: argparse.Namespace, procs: dict, rows: dict[str, list[list]], result: dict) -> None:
    """Blocks of questions alternating between the roots, the answers compared; then the load tests, alternating."""
    roots = list(procs)
    n = len(questions(args.questions, args.tasks))
    for i, lo in enumerate(range(0, n, args.block)):
        for name in roots if i % 2 == 0 else list(reversed(roots)):
            rows[name] += _ask(procs[name], f"block {lo} {lo + args.block}")
    for name, r in rows.items():
        result[name] = summary(r)
    result["answers"] = same_answers(rows)
    print(json.dumps(result, ensure_ascii=False), file=sys.stderr, flush=True)  # kept if the load test fails
    for i in range(2):  # load tests alternate too: today, this, this, today
        for name in roots if i == 0 else list(reversed(roots)):
            result[name].setdefault("load", []).append(_ask(procs[name], f"load {args.clients}"))


def _ask_quit(proc: subprocess.Popen) -> None:
    assert proc.stdin is not None
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=60)


if __name__ == "__main__":
    main()
