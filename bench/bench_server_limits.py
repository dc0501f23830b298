"""How fast the server refuses an oversized request, and what each answer thread costs in memory.

    python bench/bench_server_limits.py [--threads 1 8 32] [--out bench/results/server_limits.md]

Refusal: a 1,000,000-character message (ASCII and Chinese) is posted to every question endpoint of
a running ``officeqa serve`` (its own process, local mode, extractive answers); the time from
sending to the 413 is measured per endpoint (median of 5). Memory: for each thread count the
server is started fresh, every thread is made to open its knowledge-base handles (as many
concurrent questions as threads), and the server's RSS is read; the cost per thread is the slope
between the smallest and largest counts. Corpus: the 8 shared-corpus files of bench/bench_server.py.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
FILES = ["md/zh_分布式训练技术原理.md", "md/en_wiki.md", "txt/zh_test.txt", "docx/zh_股东会-会议通知.docx",
         "csv/zh_langchain-ChatGLM_closed.csv", "pptx/en_science-exploration-1p.pptx",
         "txt/en_norwich-city.txt", "html/zh_静静的顿河-wiki.html"]  # as bench/bench_server.py


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(data: Path, threads: int) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "OFFICEQA_DATA_DIR": str(data), "OFFICEQA_EMBEDDING__BACKEND": "hash",
           "OFFICEQA_SERVER__ANSWER_THREADS": str(threads), "OFFICEQA_SERVER__ACCESS_LOG": "false",
           "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--no-model"],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the server did not start")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()


def _index(base: str) -> None:
    payload = [("files", (Path(f).name, (CORPUS / f).read_bytes())) for f in FILES]
    assert httpx.post(f"{base}/api/documents", files=payload, timeout=120).status_code == 202
    while httpx.get(f"{base}/api/health", timeout=30).json()["queue"]["depth"]:
        time.sleep(0.5)


BODIES = {
    "/api/chat": lambda q: {"question": q, "stream": False},
    "/api/route": lambda q: {"instruction": q},
    "/v1/chat/completions": lambda q: {"model": "officeqa/default", "messages": [{"role": "user", "content": q}]},
    "/v1/completions": lambda q: {"model": "officeqa/default", "prompt": q},
}


def refusal_times(base: str) -> list[tuple[str, str, int, float]]:
    rows = []
    with httpx.Client(base_url=base, timeout=60) as http:
        for label, text in (("ASCII", "a" * 1_000_000), ("Chinese", "报" * 1_000_000)):
            for path, body in BODIES.items():
                times, status = [], 0
                for _ in range(5):
                    started = time.perf_counter()
                    response = http.post(path, json=body(text))
                    times.append((time.perf_counter() - started) * 1000)
                    status = response.status_code
                rows.append((path, label, status, statistics.median(times)))
    return rows


def rss_with_threads(data: Path, threads: int) -> float:
    process, base = _start(data, threads)
    try:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda _: httpx.post(f"{base}/api/chat", json={"question": "FSDP是如何对参数分片的？",
                                                                       "stream": False}, timeout=300),
                          range(threads * 2)))
        time.sleep(1)
        return psutil.Process(process.pid).memory_info().rss / 2**20
    finally:
        _stop(process)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "server_limits.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        process, base = _start(data, 2)
        try:
            _index(base)
            refusals = refusal_times(base)
        finally:
            _stop(process)
        memory = [(n, rss_with_threads(data, n)) for n in args.threads]
    lo, hi = memory[0], memory[-1]
    per_thread = (hi[1] - lo[1]) / (hi[0] - lo[0]) if hi[0] != lo[0] else 0.0
    lines = ["# Server limits: refusal time and memory per answer thread", "",
             "`python bench/bench_server_limits.py` (the server in its own process, hash embedder, no model).", "",
             "| endpoint | 1,000,000 characters of | status | time to refuse (median of 5) |", "|---|---|---|---|"]
    lines += [f"| `{p}` | {label} | {status} | {ms:.1f} ms |" for p, label, status, ms in refusals]
    lines += ["", "| answer threads | server RSS after every thread answered |", "|---|---|"]
    lines += [f"| {n} | {rss:.0f} MiB |" for n, rss in memory]
    lines += ["", f"Cost per answer thread (slope {lo[0]} -> {hi[0]} threads): {per_thread:.1f} MiB.", ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
