"""Summary-tree cost per 100 pages against the fake Ollama server, and what resuming a killed build costs.

The document is the generated annual report of the tests (``tests/summary_docs.py``: docx, real page
breaks, chapters and sections, ~1,000 Chinese characters per page at ``--density 3``), parsed and chunked
as indexing does. The model is the fake Ollama server (``eval/fake_ollama.py``) speaking the real API
through ``OllamaGenerator``; every call waits ``--latency-ms`` (the simulated generation time) and
answers a fixed ~120-character summary, reporting the prompt's token count as the server would.

Measured, each from an empty tree store unless said otherwise:

* concurrency 1 and 2: model calls, tokens sent (prompt estimates) and received (the fake's fixed
  summaries, counted), wall time;
  the ratio of the two wall times (2 concurrent calls against 1, same run);
* a second run on the unchanged document (the store of the first): calls and wall time;
* extractive only (no model): wall time;
* resume: a child process building the tree is SIGKILLed by the server at call N (half the
  calls); the parent re-runs the build: calls made, calls lost (the one in flight), wall time
  against the ideal (remaining calls x (latency + the fake's measured round trip) / concurrency).

    python bench/bench_summary.py [--pages 100] [--density 3] [--latency-ms 100]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from summary_docs import write_report  # noqa: E402

from eval.fake_ollama import FakeOllama, Reply  # noqa: E402
from indexing.chunking import chunk_document  # noqa: E402
from indexing.parsing import parse_file  # noqa: E402
from indexing.summary import DocumentSource, SummaryBuilder, SummaryStore, source_chunks  # noqa: E402
from officeqa.generation import OllamaGenerator  # noqa: E402
from officeqa.settings import OllamaSettings, Settings  # noqa: E402
from officeqa.tokens import default_token_counter  # noqa: E402

SUMMARY = "报告期内营业收入与毛利率保持增长，华东区域订单增长较快；子公司完成产能建设，累计投入持续增加；需关注原材料价格波动和应收账款周转。"  # noqa: E501


def load_source(path: Path) -> DocumentSource:
    parsed = parse_file(path)
    settings = Settings()
    chunks = source_chunks(chunk_document(parsed, settings.chunking, doc_id="bench").chunks)
    return DocumentSource(doc_id="bench", path=str(path), title="星辰集团2023年年度报告", language="zh", chunks=chunks)


def make_settings(data_dir: Path, host: str) -> Settings:
    return Settings(data_dir=data_dir, ollama=OllamaSettings(host=host, read_timeout_s=60.0, retries=0))


def serve(fake: FakeOllama, latency_s: float) -> None:
    count = default_token_counter().count

    def reply(body: dict) -> Reply:
        user = body["messages"][-1]["content"]
        tag = hashlib.sha256(user.encode("utf-8")).hexdigest()[:6]
        tokens = sum(count(m["content"]) + 8 for m in body["messages"])
        return Reply(pieces=[f"{SUMMARY}（{tag}）"], delay_s=latency_s, prompt_eval_count=tokens)

    fake.reply_fn = reply


def build(source: DocumentSource, store_path: Path, host: str | None, concurrency: int) -> tuple[dict, float]:
    settings = make_settings(store_path.parent, host or "http://127.0.0.1:9")
    generator = OllamaGenerator(settings.ollama) if host else None
    started = time.perf_counter()
    with SummaryStore(store_path) as store, SummaryBuilder(settings, store, generator,
                                                           concurrency=concurrency) as builder:
        report = builder.build(source)
    seconds = time.perf_counter() - started
    if generator is not None:
        generator.close()
    made = {n.key: n.tokens for n in report.tree.nodes if not n.extractive} if report.tree else {}
    return {**report.to_json(), "summary_tokens": sum(made.values())}, seconds


def round_trip(fake: FakeOllama, source: DocumentSource, calls: int = 20) -> dict:
    """The fake server's own cost per call (HTTP + the ollama client) with no simulated latency."""
    fake.reply_fn = lambda body: Reply(pieces=[SUMMARY], prompt_eval_count=1)
    generator = OllamaGenerator(make_settings(Path("."), fake.url).ollama)
    generator.num_ctx()
    text = "\n\n".join(c.text for c in source.chunks[:4])
    started = time.perf_counter()
    for i in range(calls):
        generator.chat([{"role": "user", "content": f"{i} {text}"}], num_predict=200)
    generator.close()
    return {"run": "fake server round trip, no latency", "ms_per_call": round((time.perf_counter() - started)
                                                                               / calls * 1000, 1)}


def child(args: argparse.Namespace) -> None:
    """The process the server kills mid-build (run by the parent with --child)."""
    build(load_source(Path(args.doc)), Path(args.store), args.host, args.concurrency)


def per_100(value: float, pages: int) -> float:
    return round(value * 100 / pages, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--density", type=int, default=3, help="x ~330 characters per page")
    parser.add_argument("--latency-ms", type=float, default=100.0, help="simulated time of one model call")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--doc", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--host", help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    latency = args.latency_ms / 1000
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        doc = folder / "report.docx"
        write_report(doc, pages=args.pages, density=args.density)
        began = time.perf_counter()
        source = load_source(doc)
        chars = sum(len(c.text) for c in source.chunks)
        print(f"# {args.pages} pages, {len(source.chunks)} chunks, {chars} characters; parse + chunk "
              f"{time.perf_counter() - began:.1f}s; simulated latency {args.latency_ms:.0f} ms per call", flush=True)
        from officeqa.text_tokens import tokenize_for_bm25

        tokenize_for_bm25("预热")  # jieba's dictionary loads once per process (~1-2 s), not per tree
        fake = FakeOllama().start()
        try:
            results.append(round_trip(fake, source))
            print(json.dumps(results[-1]), flush=True)
            serve(fake, latency)
            for concurrency in (1, 2):
                fake.requests.clear()
                report, seconds = build(source, folder / f"c{concurrency}" / "s.sqlite3", fake.url, concurrency)
                results.append({
                    "run": f"model, concurrency {concurrency}", "nodes": report["nodes"],
                    "model_calls": report["model_calls"], "chat_requests": len(fake.chat_requests()),
                    "prompt_tokens": report["prompt_tokens"], "summary_tokens": report["summary_tokens"],
                    "seconds": round(seconds, 2),
                    "per_100_pages": {"model_calls": per_100(report["model_calls"], args.pages),
                                      "prompt_tokens": per_100(report["prompt_tokens"], args.pages),
                                      "seconds": per_100(seconds, args.pages)},
                })
                print(json.dumps(results[-1], ensure_ascii=False), flush=True)
            trip, c1, c2 = results[0]["ms_per_call"] / 1000, results[1], results[2]
            results.append({"run": "ratio", "wall_c2_over_c1": round(c2["seconds"] / c1["seconds"], 3),
                            "ideal_c1_seconds": round(c1["model_calls"] * (latency + trip), 2),
                            "builder_overhead_ms_per_call": round(
                                (c1["seconds"] / c1["model_calls"] - latency - trip) * 1000, 1)})
            print(json.dumps(results[-1]), flush=True)

            fake.requests.clear()
            report, seconds = build(source, folder / "c1" / "s.sqlite3", fake.url, 1)
            results.append({"run": "unchanged, second run", "model_calls": report["model_calls"],
                            "chat_requests": len(fake.chat_requests()), "seconds": round(seconds, 3)})
            print(json.dumps(results[-1]), flush=True)

            report, seconds = build(source, folder / "x" / "s.sqlite3", None, 1)
            results.append({"run": "extractive (no model)", "nodes": report["nodes"], "seconds": round(seconds, 2),
                            "per_100_pages_seconds": per_100(seconds, args.pages)})
            print(json.dumps(results[-1]), flush=True)

            for concurrency in (1, 2):
                results.append(resume(fake, doc, source, folder / f"r{concurrency}" / "s.sqlite3", concurrency,
                                      c1["model_calls"], latency + trip))
                print(json.dumps(results[-1]), flush=True)
        finally:
            fake.stop()
    out = ROOT / "bench" / "results" / "summary.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results), encoding="utf-8")
    print(f"# written to {out.relative_to(ROOT)}")


def resume(fake: FakeOllama, doc: Path, source: DocumentSource, store: Path, concurrency: int, total: int,
           call_s: float) -> dict:
    """Kill a child build at call total//2 (SIGKILL from the server), then resume it here; the ideal resume
    is the remaining calls at ``call_s`` each (simulated latency + the fake's round trip) / concurrency."""
    kill_at = total // 2
    answer = fake.reply_fn
    proc: dict[str, subprocess.Popen] = {}

    def killing(body: dict) -> Reply:
        if len(fake.chat_requests()) == kill_at and "p" in proc:
            os.kill(proc["p"].pid, signal.SIGKILL)
        return answer(body)

    fake.requests.clear()
    fake.reply_fn = killing
    store.parent.mkdir(parents=True, exist_ok=True)
    proc["p"] = subprocess.Popen([sys.executable, __file__, "--child", "--doc", str(doc), "--store", str(store),
                                  "--host", fake.url, "--concurrency", str(concurrency)], cwd=ROOT)
    proc["p"].wait(timeout=600)
    first_calls = len(fake.chat_requests())
    fake.reply_fn = answer
    fake.requests.clear()
    report, seconds = build(source, store, fake.url, concurrency)
    remaining = report["model_calls"]
    ideal = remaining * call_s / concurrency
    return {
        "run": f"resume after SIGKILL, concurrency {concurrency}", "killed_at_call": kill_at,
        "killed_returncode": proc["p"].returncode, "calls_before_kill": first_calls, "calls_after": remaining,
        "calls_total": first_calls + remaining, "calls_uninterrupted": total,
        "calls_lost": first_calls + remaining - total, "resume_seconds": round(seconds, 2),
        "ideal_resume_seconds": round(ideal, 2), "resume_overhead_seconds": round(seconds - ideal, 2),
    }


if __name__ == "__main__":
    main()
