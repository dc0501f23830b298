"""SIGKILL an indexing run at random moments (the main process, and once a parse worker), restart, repeat.

Afterwards every file has ended DONE or FAILED with a reason, `check` is clean, no chunk is
duplicated, nothing indexed before is lost, and no document that was committed before a
kill was embedded again after it (the CLI runs with an embedder that logs every text it
embeds, per run).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from indexing.jobs import DONE, FAILED
from indexing.knowledge_base import KnowledgeBase
from indexing.registry import DUPLICATE, INDEXED
from officeqa.settings import EmbeddingSettings, Settings

HELPER = Path(__file__).with_name("counting_cli.py")
CORPUS_FILES = [
    "md/en_codeblock.md",
    "md/zh_分布式训练技术原理.md",
    "html/EDGE_cp1252.html",
    "html/zh_静静的顿河-wiki.html",
    "csv/zh_langchain-ChatGLM_closed.csv",
    "csv/EDGE_semicolon-delimited.csv",
    "docx/en_docx-tables.docx",
    "docx/zh_股东会-会议通知.docx",
    "docx/EDGE_encrypted_pw-tika.docx",
    "docx/EDGE_truncated_testWORD_truncated.docx",
    "pdf/zh_chinese-tables.pdf",
    "pdf/en_layout-parser-paper-fast.pdf",
    "pdf/EDGE_encrypted_password.pdf",
    "pptx/en_fake-power-point.pptx",
]


def sha1(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def committed(data: Path) -> dict[str, str]:
    """path -> doc id of every indexed document, read straight from the registry (as a kill left it)."""
    db = data / "registry.sqlite3"
    if not db.exists():
        return {}
    conn = sqlite3.connect(db, timeout=60)
    try:
        rows = conn.execute("SELECT path, doc_id FROM documents WHERE status = ?", (INDEXED,)).fetchall()
        return {str(p): d for p, d in rows}
    except sqlite3.OperationalError:  # killed before the schema was written
        return {}
    finally:
        conn.close()


def running_job(data: Path) -> str | None:
    conn = sqlite3.connect(data / "registry.sqlite3", timeout=60)
    try:
        row = conn.execute("SELECT path FROM jobs WHERE state = 'RUNNING' LIMIT 1").fetchone()
        return None if row is None else str(row[0])
    except sqlite3.OperationalError:
        return None
    finally:
        conn.close()


def parse_workers(pid: int) -> list[psutil.Process]:
    try:
        children = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []
    found = []
    for child in children:
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:
            continue
    return found


def wait_until(condition, seconds: float = 300.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_sigkill_at_random_points_loses_nothing_and_redoes_nothing(tmp_path: Path, corpus_dir: Path) -> None:
    rng = random.Random(20261130)  # fixed: a failure is reproducible
    data = tmp_path / "data"
    log = tmp_path / "embedded.log"
    earlier, docs = tmp_path / "earlier", tmp_path / "docs"
    earlier.mkdir()
    docs.mkdir()
    for i in range(3):
        (earlier / f"old{i}.txt").write_text(f"早先索引的第{i}份文件，讲述仓库{i}号的管理规定。\n", encoding="utf-8")
    for name in CORPUS_FILES:
        shutil.copyfile(corpus_dir / name, docs / Path(name).name)
    for i in range(40):
        body = "\n\n".join(f"第{j}条 第{i}号规章第{j}款：员工{i}-{j}应当遵守的制度。" for j in range(30))
        (docs / f"rules{i:02d}.md").write_text(f"# 规章{i}\n\n{body}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(
        OFFICEQA_DATA_DIR=str(data),
        OFFICEQA_EMBEDDING__BACKEND="hash",
        OFFICEQA_JOBS__WORKERS="2",
        OFFICEQA_JOBS__RETRY_BACKOFF_S="0",
    )

    def start(run: str, folder: Path) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, str(HELPER), str(log), run, "index", str(folder), "--json"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

    first = start("0", earlier)
    out, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    with KnowledgeBase(Settings(data_dir=data, embedding=EmbeddingSettings(backend="hash"))) as kb:
        before = {r.path: (r.doc_id, kb.registry.chunk_ids(r.doc_id)) for r in kb.registry.documents()}

    done_before_kill: dict[int, dict[str, str]] = {}
    worker_victim: str | None = None
    for run in range(1, 6):
        proc = start(str(run), docs)
        if run == 2:  # kill a parse worker, then the main process a little later
            pid = proc.pid
            assert wait_until(lambda pid=pid: bool(parse_workers(pid)) and running_job(data) is not None)
            time.sleep(rng.uniform(0.2, 1.0))
            worker_victim = running_job(data)
            for child in parse_workers(proc.pid):
                child.send_signal(signal.SIGKILL)
            time.sleep(rng.uniform(1.0, 4.0))
        elif run == 1:  # early: while walking, hashing or starting workers
            time.sleep(rng.uniform(0.5, 3.0))
        else:  # mid-run: after a random number of further commits, at a random moment after that
            target = len(committed(data)) + rng.randint(1, 5)
            wait_until(lambda target=target, proc=proc: len(committed(data)) >= target or proc.poll() is not None)
            time.sleep(rng.uniform(0.0, 0.5))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=120)
        done_before_kill[run] = committed(data)
        print(f"kill {run}: {len(done_before_kill[run])} documents committed")
    final = start("final", docs)
    out, err = final.communicate(timeout=1200)
    assert final.returncode == 0, err
    assert "Traceback" not in err
    report = json.loads(out.splitlines()[-1])
    assert report["event"] == "report" and report["queued"] == 0

    settings = Settings(data_dir=data, embedding=EmbeddingSettings(backend="hash"))
    with KnowledgeBase(settings) as kb:
        check = kb.check()
        assert check.clean, check.to_json()
        # every file ended DONE or FAILED with a reason, and nothing is left in the queue
        assert not [j for j in kb.jobs.find() if j.live]
        for path in sorted(str(p) for p in docs.iterdir()):
            job = kb.jobs.find(paths=[path], limit=1)[0]
            assert job.state in (DONE, FAILED), (path, job)
            if job.state == FAILED:
                assert job.error_kind and job.error_message, job
            assert kb.registry.get(path).status in (INDEXED, DUPLICATE, "failed")
        failed = {Path(j.path).name: j.error_kind for j in kb.jobs.find(states=[FAILED]) if str(docs) in j.path}
        assert failed == {
            "EDGE_encrypted_pw-tika.docx": "encrypted",
            "EDGE_truncated_testWORD_truncated.docx": "corrupt",
            "EDGE_encrypted_password.pdf": "encrypted",
        }
        if worker_victim is not None and worker_victim not in failed:  # a killed parse worker is a retry
            assert kb.registry.get(worker_victim).status == INDEXED
        # no chunk duplicated: one set of ids in every store, one document per content
        registry_ids = kb.registry.chunk_ids()
        assert len(registry_ids) == len(set(registry_ids)) == kb.vectors.count() == len(kb.bm25.ids())
        indexed = kb.registry.documents(statuses=[INDEXED])
        assert len({r.doc_id for r in indexed}) == len(indexed)
        assert sum(r.chunk_count for r in indexed) == len(registry_ids)
        # nothing indexed earlier was lost
        for path, (doc_id, chunk_ids) in before.items():
            record = kb.registry.get(path)
            assert (record.status, record.doc_id, kb.registry.chunk_ids(doc_id)) == (INDEXED, doc_id, chunk_ids)
        # documents committed before a kill were never embedded again by a later run
        texts = {
            r.doc_id: {sha1(t) for t, _ in kb.fetch(kb.registry.chunk_ids(r.doc_id)).values()} for r in indexed
        }
    embedded: list[tuple[str, str]] = [tuple(line.split("\t")) for line in log.read_text().splitlines()]
    runs = {str(k): k for k in range(6)} | {"final": 99}
    for kill, done in done_before_kill.items():
        finished_ids = set(done.values())
        mine = set().union(*(texts.get(d, set()) for d in finished_ids)) if finished_ids else set()
        others = set().union(*(t for d, t in texts.items() if d not in finished_ids)) if texts else set()
        unique = mine - others
        again = [h for run, h in embedded if runs[run] > kill and h in unique]
        assert again == [], f"{len(again)} chunks of documents committed before kill {kill} were embedded again"
    assert any(done_before_kill.values()), "no kill happened after a commit: the test proved nothing"
