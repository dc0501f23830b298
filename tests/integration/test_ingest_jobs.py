"""Ingestion through the job queue: retries after a killed parse worker, settings drift, exclusions,
odd directory entries, the library API the server uses, and `index` + `remove` racing in two processes.

Real files, SQLite, Chroma and BM25; the deterministic hash embedder keeps them fast.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from indexing.jobs import DONE
from indexing.knowledge_base import KnowledgeBase
from indexing.registry import INDEXED, REMOVED, Registry
from indexing.service import IngestService
from officeqa.settings import EmbeddingSettings, JobsSettings, Settings
from retrieval.search import search
from server.cli import main

REPO = Path(__file__).resolve().parents[2]


def make_settings(tmp_path: Path, **jobs: object) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        embedding=EmbeddingSettings(backend="hash"),
        jobs=JobsSettings(workers=1, retry_backoff_s=0.0, **jobs),
    )


def assert_consistent(kb: KnowledgeBase) -> None:
    report = kb.check()
    assert report.clean, report.to_json()
    assert report.registry_chunks == report.chroma_chunks == report.bm25_chunks


def write_docs(folder: Path, n: int, prefix: str = "doc") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"{prefix}{i:02d}.txt"
        text = f"第{i}号文件\n\n{prefix}{i} 号合同约定供应第{i}批货物，违约金为{i * 100}元。\n"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def deadline_wait(condition, seconds: float = 180.0, what: str = "") -> None:
    """Poll ``condition`` until true; the generous deadline only guards against a hang (not a timing test)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.mark.slow
def test_a_parse_worker_killed_by_a_signal_is_retried_not_failed(tmp_path: Path, corpus_dir: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    slow = docs / "big-manual.pdf"
    shutil.copyfile(corpus_dir / "pdf" / "en_DA-619p.pdf", slow)
    write_docs(docs, 1)
    settings = make_settings(tmp_path)
    events: list[dict] = []
    result: dict = {}

    def index() -> None:
        with KnowledgeBase(settings) as kb:
            result["report"] = kb.index_paths([docs], on_event=events.append)

    thread = threading.Thread(target=index)
    thread.start()
    registry = None

    def parsing_the_pdf() -> bool:
        nonlocal registry
        if registry is None and (settings.data_dir / "registry.sqlite3").exists():
            registry = Registry(settings.data_dir / "registry.sqlite3")
        if registry is None:
            return False
        row = registry.connection.execute("SELECT state FROM jobs WHERE path = ?", (str(slow),)).fetchone()
        return row is not None and row[0] == "RUNNING" and bool(_parse_workers())

    deadline_wait(parsing_the_pdf, what="the PDF's job to run")
    time.sleep(0.5)
    for child in _parse_workers():
        child.send_signal(signal.SIGKILL)
    thread.join(timeout=600)
    registry.close()
    report = result["report"]
    assert [Path(p).name for p in report.added] == ["big-manual.pdf", "doc00.txt"] and not report.failed
    pdf = [e for e in events if e.get("event") == "job" and e["path"].endswith(".pdf")]
    assert [(e["state"], e.get("error_kind")) for e in pdf] == [("RETRY", "crashed"), ("DONE", None)]
    with KnowledgeBase(settings) as kb:
        assert kb.registry.get(str(slow)).status == INDEXED
        assert_consistent(kb)


def _parse_workers() -> list[psutil.Process]:
    """The guarded parse worker processes (multiprocessing "spawn" children) of this test process."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            cmdline = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if "spawn_main" in cmdline:
            found.append(child)
    return found


def test_settings_drift_is_listed_and_reindex_stale_queues_only_those(tmp_path: Path, capsys) -> None:
    docs = tmp_path / "docs"
    old_files = write_docs(docs, 2, "old")
    settings = make_settings(tmp_path)
    with KnowledgeBase(settings) as kb:
        kb.index_paths([docs])
        assert kb.stale_documents() == []
    changed = settings.model_copy(update={"chunking": settings.chunking.model_copy(update={"target_tokens": 200})})
    with KnowledgeBase(changed) as kb:
        new = write_docs(docs, 1, "new")[0]
        report = kb.index_paths([docs])
        assert [Path(p).name for p in report.added] == ["new00.txt"] and len(report.skipped) == 2
        stale = {Path(r.path).name: changes for r, changes in kb.status().stale}
        assert stale == {p.name: ["chunking.target_tokens 512 -> 200"] for p in old_files}
        report = kb.reindex(stale_only=True)
        assert sorted(Path(p).name for p in report.updated) == ["old00.txt", "old01.txt"]
        assert kb.jobs.find(paths=[str(new)])[0].outcome == "added"  # the fresh one was not queued again
        assert kb.stale_documents() == []
        assert_consistent(kb)


def test_status_and_reindex_stale_on_the_command_line(tmp_path: Path, monkeypatch, capsys) -> None:
    docs = tmp_path / "docs"
    write_docs(docs, 2)
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    monkeypatch.setenv("OFFICEQA_JOBS__WORKERS", "1")
    assert main(["index", str(docs), "--no-progress"]) == 0
    monkeypatch.setenv("OFFICEQA_CHUNKING__OVERLAP_RATIO", "0.3")
    capsys.readouterr()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "stale (2; `officeqa reindex --stale` updates them):" in out
    assert "chunking.overlap_ratio 0.15 -> 0.3" in out
    assert main(["reindex", "--stale", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["event"] == "report" and report["updated"] == 2
    assert main(["status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stale"] == []
    assert main(["jobs", "--json", "--state", "DONE"]) == 0
    jobs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(jobs) == 4 and {j["state"] for j in jobs} == {"DONE"}


def test_a_removed_file_stays_out_of_its_folder_until_asked_back(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    first, _second = write_docs(docs, 2)
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        kb.index_paths([docs])
        kb.remove(str(first))
        report = kb.index_paths([docs])
        assert report.excluded == [str(first)] and not report.added
        assert kb.registry.get(str(first)).status == REMOVED
        # naming the file lifts the exclusion
        assert [Path(p).name for p in kb.index_paths([first]).added] == ["doc00.txt"]
        kb.remove(str(first))
        report = kb.index_paths([docs], include_removed=True)
        assert [Path(p).name for p in report.added] == ["doc00.txt"] and not report.excluded
        assert kb.registry.get(str(first)).status == INDEXED
        assert_consistent(kb)


def test_odd_directory_entries_never_stop_a_run(tmp_path: Path, monkeypatch, capsys) -> None:
    """A FIFO named *.txt, a symlink loop and a non-UTF-8 file name: reported or indexed, and the rest goes on."""
    docs = tmp_path / "docs"
    write_docs(docs, 1)
    os.mkfifo(docs / "pipe.txt")
    (docs / "loop.txt").symlink_to("loop.txt")
    (docs / "dir-loop").symlink_to(".")
    odd = os.fsdecode(bytes(docs) + b"/\xb9\xab\xcb\xbe-gbk-name.txt")  # a GBK name on a UTF-8 system
    Path(odd).write_text("公司章程规定股东会每年召开一次。\n", encoding="utf-8")
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    monkeypatch.setenv("OFFICEQA_JOBS__WORKERS", "1")
    assert main(["index", str(docs), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["added"] == 2 and report["failed"] == []
    assert sorted(Path(e["path"]).name for e in report["skipped_entries"]) == ["dir-loop", "loop.txt", "pipe.txt"]
    assert main(["status", "--json"]) == 0
    paths = [d["path"] for d in json.loads(capsys.readouterr().out)["documents"]]
    assert any(p.endswith("-gbk-name.txt") and "\\xb9\\xab" in p for p in paths)  # undecodable bytes escaped
    with KnowledgeBase(make_settings(tmp_path)) as kb:
        record = kb.registry.get(odd)  # stored losslessly: the exact bytes find the row
        assert record is not None and record.status == INDEXED
        assert record.doc_id in {h.doc_id for h in search(kb, "股东会", mode="bm25")}
        assert_consistent(kb)
    assert main(["remove", odd]) == 0
    assert main(["check"]) == 0


def test_the_ingest_service_runs_background_workers_and_reports_job_states(tmp_path: Path) -> None:
    docs = tmp_path / "uploads"
    files = write_docs(docs, 3)
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip archive")
    settings = make_settings(tmp_path)
    service = IngestService(settings, workers=1)
    service.start()
    try:
        ids = service.enqueue([*files, docs / "broken.docx"], source="upload")
        assert len(ids) == 4

        def finished() -> bool:
            return all(j.state in ("DONE", "FAILED") for j in service.jobs(paths=[*files, docs / "broken.docx"]))

        deadline_wait(finished, what="the uploads to be indexed")
        states = {Path(j.path).name: (j.state, j.outcome, j.error_kind) for j in service.jobs()}
        assert states["broken.docx"] == ("FAILED", "failed", "corrupt")
        assert {states[f.name] for f in files} == {("DONE", "added", None)}
        assert service.counts() == {"DONE": 3, "FAILED": 1}
    finally:
        service.stop()
    assert not service.running
    with KnowledgeBase(settings) as kb:
        assert {h.doc_id for h in search(kb, "违约金", mode="bm25", k=10)} == {
            kb.registry.get(str(f)).doc_id for f in files
        }
        assert_consistent(kb)


def _cli(args: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("officeqa")), *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(
        OFFICEQA_DATA_DIR=str(tmp_path / "data"),
        OFFICEQA_EMBEDDING__BACKEND="hash",
        OFFICEQA_JOBS__WORKERS="1",
        OFFICEQA_JOBS__RETRY_BACKOFF_S="0",
    )
    return env


@pytest.mark.slow
def test_index_and_remove_in_two_processes_keep_the_stores_consistent(tmp_path: Path) -> None:
    """`remove` during an `index` of the same folder, repeatedly: `check` is clean after every round."""
    docs = tmp_path / "docs"
    env = cli_env(tmp_path)
    write_docs(docs, 4, "base")
    assert _cli(["index", str(docs)], env).wait(timeout=600) == 0
    for round_ in range(3):
        fresh = write_docs(docs, 4, f"r{round_}-")
        victim = docs / f"base{round_:02d}.txt"  # indexed earlier
        racing = fresh[-1]  # being indexed right now
        indexer = _cli(["index", str(docs)], env)
        time.sleep(0.5 + round_)
        removers = [_cli(["remove", str(victim)], env), _cli(["remove", str(racing)], env)]
        codes = [p.wait(timeout=600) for p in removers]
        out, err = indexer.communicate(timeout=600)
        assert indexer.returncode == 0, err
        assert codes[0] == 0, removers[0].stderr.read()
        assert "Traceback" not in err
        check = _cli(["check", "--json"], env)
        out, err = check.communicate(timeout=600)
        assert check.returncode == 0, out + err
        assert json.loads(out)["clean"] is True
        with KnowledgeBase(make_settings(tmp_path)) as kb:
            assert kb.registry.get(str(victim)).status == REMOVED
            if codes[1] == 0:  # the remove won the race: the indexer must not have brought the file back
                assert kb.registry.get(str(racing)).status == REMOVED
            live_chunks = set(kb.registry.chunk_ids())
            assert live_chunks == set(kb.vectors.all_ids()) == kb.bm25.ids()
            assert not [j for j in kb.jobs.find() if j.live]
            assert {j.state for j in kb.jobs.find()} <= {DONE, "FAILED"}


def test_a_knowledge_base_damaged_before_the_job_queue_is_repaired(tmp_path: Path, capsys, monkeypatch) -> None:
    """The reported case: registry and Chroma hold chunks the BM25 file lacks, in a schema-2 knowledge base
    (BM25 snapshot without a log, deletions journalled in bm25.deleted). `check --repair` re-adds them."""
    from indexing.bm25_index import BM25Index

    docs = tmp_path / "docs"
    files = write_docs(docs, 4)
    settings = make_settings(tmp_path)
    with KnowledgeBase(settings) as kb:
        kb.index_paths([docs])
        all_ids = sorted(kb.registry.chunk_ids())
        lacking = kb.registry.chunk_ids(kb.registry.get(str(files[0])).doc_id)
    data = settings.data_dir
    # turn it into what the old code left behind after a kill
    old = BM25Index()
    kept = [cid for cid in all_ids if cid not in lacking]
    with KnowledgeBase(settings) as kb:
        texts = {cid: text for cid, (text, _) in kb.fetch(kept).items()}
    old.add(kept, [texts[c] for c in kept])
    old.save(data / "bm25")  # no epoch: written before the log existed
    (data / "bm25.log").unlink()
    (data / "bm25.deleted").write_text("", encoding="utf-8")
    conn = sqlite3.connect(data / "registry.sqlite3")
    conn.executescript(
        "DROP TABLE jobs; DROP TABLE exclusions; DROP TABLE dirty; DROP TABLE meta; PRAGMA user_version=2;"
    )
    conn.close()
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(data))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    assert main(["check", "--json"]) == 4
    report = json.loads(capsys.readouterr().out)
    assert report["missing_in_bm25"] == sorted(lacking)
    assert main(["check", "--repair"]) == 0
    assert "re-added 1 chunks to BM25 from the vector store's texts" in capsys.readouterr().err
    with KnowledgeBase(settings) as kb:
        assert_consistent(kb)
        assert kb.registry.get(str(files[0])).doc_id in {h.doc_id for h in search(kb, "doc0 号合同", mode="bm25")}
        assert kb.index_paths([docs]).skipped == [str(f) for f in files]


def test_index_into_a_log_file_reports_progress_in_plain_lines(tmp_path: Path) -> None:
    """stderr is a pipe here, not a terminal: no bar, but a progress line (every 30 s and at the end)."""
    docs = tmp_path / "docs"
    write_docs(docs, 3, "log")
    env = cli_env(tmp_path)
    proc = _cli(["index", str(docs)], env)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "progress: 3/3 files" in err and "0 failed" in err, err
    assert "\r" not in err  # no terminal bar redraws in a log
    quiet = _cli(["index", str(docs), "--no-progress"], env)
    _, err = quiet.communicate(timeout=600)
    assert quiet.returncode == 0 and "progress:" not in err, err
