"""Load test of the HTTP server: concurrent streaming chat clients against a fake Ollama with latency.

The server runs as its own process (``officeqa serve``, so its RSS is its own) over a real
knowledge base (a few files of the shared corpus, ``hash`` embedder unless ``--embedder``),
with a fake Ollama server (``eval/fake_ollama.py``) that waits ``--ttft`` seconds before the
first piece and ``--gen`` seconds before the rest, like a model reading a prompt and writing.
Clients stream ``POST /api/chat`` (SSE) and record the time to the first ``delta`` event and
to the final ``answer`` event; any non-200 status, ``error`` event or missing answer counts as
an error.

Per answer-thread count (``--threads``), in the same run: a baseline of ONE client asking in
sequence, then ``--clients`` clients at once, each asking ``--questions`` questions. The
ratios against the baseline are the result; the absolute numbers depend on the machine.
Bounded in count (clients x questions) and time (``--timeout``). Not a CI gate.

    python bench/bench_server.py [--clients 50] [--questions 4] [--threads 8,50] [--ttft 0.3] [--gen 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from eval.fake_ollama import FakeOllama, Reply  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
FILES = ["md/zh_分布式训练技术原理.md", "md/en_wiki.md", "txt/zh_test.txt", "docx/zh_股东会-会议通知.docx",
         "csv/zh_langchain-ChatGLM_closed.csv", "pptx/en_science-exploration-1p.pptx",
         "txt/en_norwich-city.txt", "html/zh_静静的顿河-wiki.html"]
QUESTIONS = ["FSDP是如何对参数分片的？", "股东会会议在什么时间召开？", "How to ask ChatGPT for high-quality answers?",
             "数据并行有哪些方法？", "What does the wiki say about markdown syntax?", "会议通知的联系人是谁？"]
PIECES = 20


@dataclass
class Run:
    ttft: list[float] = field(default_factory=list)
    last: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def answers(self) -> int:
        return len(self.last)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fake_model(ttft: float, gen: float) -> FakeOllama:
    fake = FakeOllama()

    def reply(body: dict) -> Reply:
        release = threading.Event()
        timer = threading.Timer(ttft + gen, release.set)
        timer.daemon = True
        timer.start()
        pieces = [f"第{i}段回答，" for i in range(PIECES - 1)] + ["见资料 [1]。"]
        return Reply(pieces=pieces, delay_s=ttft, wait_after_first=release)

    fake.reply_fn = reply
    return fake.start()


def env_for(data_dir: Path, fake_url: str, embedder: str, threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_") and k != "OLLAMA_HOST"}
    env.update(OFFICEQA_DATA_DIR=str(data_dir), OFFICEQA_EMBEDDING__BACKEND=embedder,
               OFFICEQA_OLLAMA__HOST=fake_url, OFFICEQA_SERVER__ANSWER_THREADS=str(threads),
               OFFICEQA_OLLAMA__RETRIES="0",
               # a load test from one address: no per-address question limit, no access-log lines to write
               OFFICEQA_SERVER__ANSWERS_PER_MINUTE="0", OFFICEQA_SERVER__ACCESS_LOG="false")
    return env


def rss_kib(pid: int) -> tuple[int, int]:
    """(current, peak) resident set size of a process, KiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def one_question(client: httpx.AsyncClient, question: str, run: Run) -> None:
    started = time.perf_counter()
    first = None
    answered = False
    try:
        async with client.stream("POST", "/api/chat", json={"question": question}) as response:
            if response.status_code != 200:
                run.errors.append(f"status {response.status_code}: {(await response.aread())[:200]!r}")
                return
            event = ""
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    if event == "delta" and first is None:
                        first = time.perf_counter() - started
                    elif event == "answer":
                        answered = json.loads(line[5:])["mode"] == "model"
                    elif event == "error":
                        run.errors.append(line[5:200])
    except httpx.HTTPError as exc:
        run.errors.append(f"{type(exc).__name__}: {exc}")
        return
    if not answered or first is None:
        run.errors.append("no streamed model answer")
        return
    run.ttft.append(first)
    run.last.append(time.perf_counter() - started)


async def load(base: str, clients: int, questions: int, timeout: float) -> Run:
    run = Run()
    limits = httpx.Limits(max_connections=clients + 5, max_keepalive_connections=clients + 5)
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(timeout), limits=limits) as client:

        async def user(i: int) -> None:
            for q in range(questions):
                await one_question(client, QUESTIONS[(i + q) % len(QUESTIONS)], run)

        started = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(user(i) for i in range(clients))), timeout)
        run.seconds = time.perf_counter() - started
    return run


def wait_ready(base: str, process: subprocess.Popen, limit: float = 300.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}")
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("the server did not start")


def build_kb(data_dir: Path, embedder: str) -> int:
    from indexing.storage import open_knowledge_base
    from officeqa.settings import EmbeddingSettings, Settings

    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(backend=embedder))
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([CORPUS / f for f in FILES])
        return report.chunks_added


def measure(data_dir: Path, fake: FakeOllama, args: argparse.Namespace, threads: int) -> dict:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port)], cwd=ROOT,
                               env=env_for(data_dir, fake.url, args.embedder, threads),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_ready(base, process)
        asyncio.run(load(base, 2, 1, args.timeout))  # warm every path once
        idle = rss_kib(process.pid)[0]
        baseline = asyncio.run(load(base, 1, args.baseline, args.timeout))
        loaded = asyncio.run(load(base, args.clients, args.questions, args.timeout))
        current, peak = rss_kib(process.pid)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
    return {"threads": threads, "baseline": baseline, "loaded": loaded, "rss_idle": idle, "rss_peak": peak,
            "rss_after": current}


def report(results: list[dict], args: argparse.Namespace, chunks: int) -> str:
    lines = [
        "# HTTP server load test (bench/bench_server.py)",
        "",
        f"{args.clients} concurrent streaming `/api/chat` clients x {args.questions} questions each; fake Ollama "
        f"with {args.ttft:g} s to the first piece and {args.gen:g} s more for the other {PIECES - 1} pieces; "
        f"knowledge base: {len(FILES)} corpus files, {chunks} chunks, `{args.embedder}` embedder; server in its "
        f"own process (`officeqa serve`). Baseline: one client asking {args.baseline} questions in sequence, "
        f"same server, same run. Measured {time.strftime('%Y-%m-%d')} on the shared 2-core machine.",
        "",
        "| answer threads | clients | answers | errors | throughput /s | TTFT p50 s | TTFT p95 s | last p50 s "
        "| last p95 s | TTFT p50 vs 1 client | RSS idle MiB | RSS peak MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for label, run in (("1 (baseline)", r["baseline"]), (str(args.clients), r["loaded"])):
            ratio = statistics.median(run.ttft) / statistics.median(r["baseline"].ttft) if run.ttft else float("nan")
            lines.append(
                f"| {r['threads']} | {label} | {run.answers} | {len(run.errors)} | {run.answers / run.seconds:.2f} | "
                f"{pct(run.ttft, .5):.2f} | {pct(run.ttft, .95):.2f} | {pct(run.last, .5):.2f} | "
                f"{pct(run.last, .95):.2f} | x{ratio:.1f} | {r['rss_idle'] / 1024:.0f} | {r['rss_peak'] / 1024:.0f} |")
        if r["loaded"].errors:
            lines.append(f"\nerrors with {r['threads']} threads (first 3): {r['loaded'].errors[:3]}\n")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--questions", type=int, default=4, help="Questions per client.")
    parser.add_argument("--baseline", type=int, default=8, help="Questions of the one-client baseline.")
    parser.add_argument("--threads", default="8,50", help="Answer-thread counts to compare (comma-separated).")
    parser.add_argument("--ttft", type=float, default=0.3, help="Fake model: seconds to the first piece.")
    parser.add_argument("--gen", type=float, default=1.0, help="Fake model: seconds for the remaining pieces.")
    parser.add_argument("--embedder", default="hash", help="Embedding backend of the knowledge base.")
    parser.add_argument("--timeout", type=float, default=600.0, help="Upper bound of one load phase (s).")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "server.md")
    args = parser.parse_args()
    fake = fake_model(args.ttft, args.gen)
    try:
        with tempfile.TemporaryDirectory(prefix="officeqa-bench-server-") as tmp:
            data_dir = Path(tmp) / "data"
            chunks = build_kb(data_dir, args.embedder)
            results = [measure(data_dir, fake, args, int(n)) for n in args.threads.split(",")]
    finally:
        fake.stop()
    text = report(results, args, chunks)
    print(text)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
