"""``officeqa embed`` and ``officeqa index --embed-now``: the background model's queued work done in the foreground.

Through the real CLI (``main`` in-process, a subprocess for the kill), real files, SQLite, Chroma and BM25; the
fast model is the hash test embedder and the background one its smaller sibling (``background_backend = "hash"``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexing.jobs import KIND_EMBED, RUNNING
from indexing.storage import open_knowledge_base
from officeqa.settings import load_settings
from server.cli import main

REPO = Path(__file__).resolve().parents[2]
SLOW_CLI = Path(__file__).with_name("slow_background_cli.py")


def write_docs(folder: Path, n: int = 3, sections: int = 15) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        body = "\n\n".join(
            f"## 第{p}节\n\n第{p}条：申请人须在{p + 3}个工作日内提交材料，由部门负责人审核后备案，编号{i}-{p}。" * 3
            for p in range(sections)
        )
        (folder / f"doc{i}.md").write_text(f"# 办法{i}\n\n{body}\n", encoding="utf-8")


@pytest.fixture
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in [k for k in os.environ if k.startswith("OFFICEQA_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKGROUND_BACKEND", "hash")
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKGROUND_BATCH_SIZE", "4")
    monkeypatch.setenv("OFFICEQA_JOBS__WORKERS", "1")
    write_docs(tmp_path / "docs")
    return tmp_path / "docs"


def coverage() -> tuple[int, int]:
    with open_knowledge_base(load_settings(None)) as kb:
        summary = kb.background_coverage()[0]
    return int(str(summary["covered_chunks"])), int(str(summary["total_chunks"]))


def live_embed_jobs() -> int:
    with open_knowledge_base(load_settings(None)) as kb:
        return kb.jobs.live_counts().get(KIND_EMBED, {}).get("PENDING", 0) + kb.jobs.live_counts().get(
            KIND_EMBED, {}).get(RUNNING, 0)


def test_index_says_what_awaits_the_background_model_and_embed_finishes_it(
    docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(docs), "--no-progress"]) == 0
    _, total = coverage()
    assert total > 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"{total} chunks await the background model hash-ngram-128: `officeqa embed` embeds them")
    assert "`officeqa worker`" in last
    assert live_embed_jobs() == 3

    assert main(["status"]) == 0
    assert f"{total} chunks await the background model: `officeqa embed` embeds them now" in capsys.readouterr().out

    assert main(["embed", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"background model hash-ngram-128: embedded {total} chunks of 3 documents" in out
    assert f"{total}/{total} chunks covered" in out
    assert coverage() == (total, total)
    assert live_embed_jobs() == 0

    assert main(["status"]) == 0
    status = capsys.readouterr().out
    assert "chunks await" not in status and f"{total}/{total} chunks covered (100%)" in status
    assert main(["embed", "--json"]) == 0  # nothing left: says so, changes nothing
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["event"] == "embed_report"
    assert (report["embedded_chunks"], report["covered_chunks"], report["total_chunks"]) == (0, total, total)


def test_index_embed_now_leaves_nothing_pending(docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", str(docs), "--embed-now", "--no-progress"]) == 0
    out = capsys.readouterr().out
    covered, total = coverage()
    assert covered == total > 0
    assert "added 3" in out and f"embedded {total} chunks of 3 documents" in out and "chunks await" not in out
    assert live_embed_jobs() == 0
    assert main(["index", str(docs), "--embed-now", "--no-wait"]) == 2
    assert "cannot go with --no-wait" in capsys.readouterr().err


def test_embed_with_the_background_model_off_is_one_error_line(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKGROUND_BACKEND", "off")
    assert main(["index", str(docs), "--no-progress"]) == 0  # a knowledge base, else embed says there is none
    capsys.readouterr()
    assert main(["embed"]) == 5
    err = capsys.readouterr().err.strip()
    assert err == ("officeqa: error: the background embedding model is off (embedding.background_backend): "
                   "nothing to embed")


def test_a_killed_embed_run_goes_on_from_the_last_stored_batch(docs: Path, tmp_path: Path) -> None:
    assert main(["index", str(docs), "--no-progress"]) == 0
    log = tmp_path / "embedded.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cli = [sys.executable, str(SLOW_CLI), str(log)]
    first = subprocess.Popen([*cli, "first", "embed", "--no-progress"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while first.poll() is None and (not log.exists() or len(log.read_text().splitlines()) < 8):
            time.sleep(0.05)
        assert first.poll() is None, "the first run ended before it could be killed"
        first.send_signal(signal.SIGKILL)
    finally:
        first.wait()
    stored, total = coverage()
    assert 0 < stored < total

    second = subprocess.run([*cli, "second", "embed", "--json"], env=env, capture_output=True, text=True,
                            check=False)
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout.splitlines()[-1])
    assert (report["covered_chunks"], report["total_chunks"]) == (total, total)
    runs = [line.split("\t")[0] for line in log.read_text().splitlines()]
    assert runs.count("second") == report["embedded_chunks"] == total - stored  # nothing stored was redone
    assert coverage() == (total, total)
    with open_knowledge_base(load_settings(None)) as kb:
        jobs = [j for j in kb.jobs.find() if j.kind == KIND_EMBED]
    assert {j.state for j in jobs} == {"DONE"} and sum(j.interruptions for j in jobs) >= 1
