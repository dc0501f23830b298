"""`officeqa watch` keeps the knowledge base following a folder: new, changed and deleted files.

The real command runs in a subprocess (OS events, and the polling mode used for network
shares); the test polls the registry with a generous deadline that only guards against a
hang, it does not time anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexing.knowledge_base import KnowledgeBase
from indexing.registry import INDEXED, REMOVED, Registry
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.search import search

DEADLINE_S = 180.0


def wait_for(condition, what: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"the knowledge base did not follow: {what}")


def status_of(registry: Registry, path: Path | str) -> tuple[str | None, str | None]:
    record = registry.get(str(path))
    return (record.status, record.doc_id) if record else (None, None)


@pytest.mark.slow
@pytest.mark.parametrize("poll", [False, True], ids=["events", "polling"])
def test_watch_follows_new_changed_and_deleted_files(tmp_path: Path, poll: bool) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "keep.txt").write_text("第一份文件：关于苹果的采购合同。\n", encoding="utf-8")
    (docs / "gone.md").write_text("# 将被删除\n\n这份文件稍后会被删除。\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(
        OFFICEQA_DATA_DIR=str(tmp_path / "data"),
        OFFICEQA_EMBEDDING__BACKEND="hash",
        OFFICEQA_JOBS__WORKERS="1",
        OFFICEQA_JOBS__WATCH_POLL_INTERVAL_S="0.5",
    )
    args = [str(Path(sys.executable).with_name("officeqa")), "watch", str(docs), "--json"]
    args += ["--poll"] if poll else []
    watcher = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    registry = None
    try:

        def opened() -> bool:
            nonlocal registry
            if registry is None and (tmp_path / "data" / "registry.sqlite3").exists():
                registry = Registry(tmp_path / "data" / "registry.sqlite3")
            return registry is not None

        wait_for(opened, "the watcher to start")
        wait_for(lambda: status_of(registry, docs / "keep.txt")[0] == INDEXED, "the first files")
        wait_for(lambda: status_of(registry, docs / "gone.md")[0] == INDEXED, "the first files")

        new = docs / "sub" / "new.txt"
        new.parent.mkdir()
        new.write_text("新加入的文件：香蕉的运输条款。\n", encoding="utf-8")
        wait_for(lambda: status_of(registry, new)[0] == INDEXED, "a file created in a new folder")

        changed = "第一份文件：改为关于葡萄的采购合同。\n"
        (docs / "keep.txt").write_text(changed, encoding="utf-8")
        digest = hashlib.sha256(changed.encode("utf-8")).hexdigest()
        wait_for(lambda: status_of(registry, docs / "keep.txt") == (INDEXED, digest), "a changed file")

        (docs / "gone.md").unlink()
        wait_for(lambda: status_of(registry, docs / "gone.md")[0] == REMOVED, "a deleted file")

        if poll:  # names that OS-event watchers cannot represent are followed when polling
            odd = os.fsdecode(bytes(docs) + b"/\xb9\xab-odd.txt")
            Path(odd).write_text("编码不是 UTF-8 的文件名。\n", encoding="utf-8")
            wait_for(lambda: status_of(registry, odd)[0] == INDEXED, "a file with a non-UTF-8 name")
    finally:
        if registry is not None:
            registry.close()
        watcher.send_signal(signal.SIGINT)
        out, err = watcher.communicate(timeout=120)
    assert watcher.returncode == 0, err
    assert "Traceback" not in err
    events = [json.loads(line) for line in out.splitlines()]
    assert {e["outcome"] for e in events if e.get("event") == "job"} >= {"added", "updated", "removed"}
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))
    with KnowledgeBase(settings) as kb:
        report = kb.check()
        assert report.clean, report.to_json()
        assert search(kb, "葡萄", mode="bm25") and search(kb, "香蕉", mode="bm25")
        assert not search(kb, "苹果", mode="bm25") and not search(kb, "删除", mode="bm25")


@pytest.mark.slow
def test_watch_feeds_the_postgres_knowledge_base(tmp_path: Path, postgres_dsn: str) -> None:
    """With storage.backend=postgres the watcher's jobs go to the shared queue (nothing in a local SQLite file)."""
    from postgres_server import new_schema

    from indexing.backends import open_registry
    from officeqa.settings import StorageSettings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "first.txt").write_text("第一份文件：关于苹果的采购合同。\n", encoding="utf-8")
    storage = StorageSettings(backend="postgres", postgres_dsn=postgres_dsn, postgres_schema=new_schema())
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(
        OFFICEQA_DATA_DIR=str(tmp_path / "data"),
        OFFICEQA_EMBEDDING__BACKEND="hash",
        OFFICEQA_JOBS__WORKERS="1",
        OFFICEQA_JOBS__WATCH_POLL_INTERVAL_S="0.5",
        OFFICEQA_STORAGE__BACKEND="postgres",
        OFFICEQA_STORAGE__POSTGRES_DSN=postgres_dsn,
        OFFICEQA_STORAGE__POSTGRES_SCHEMA=storage.postgres_schema,
    )
    args = [str(Path(sys.executable).with_name("officeqa")), "watch", str(docs), "--poll", "--json"]
    watcher = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"), storage=storage)
    registry = None
    try:

        def indexed(path: Path) -> bool:
            nonlocal registry
            try:
                registry = registry or open_registry(settings)
            except Exception:  # noqa: BLE001 - the watcher creates the schema on start
                return False
            return status_of(registry, path)[0] == INDEXED

        wait_for(lambda: indexed(docs / "first.txt"), "the first file")
        (docs / "second.txt").write_text("第二份文件：香蕉的运输条款。\n", encoding="utf-8")
        wait_for(lambda: indexed(docs / "second.txt"), "a new file")
    finally:
        if registry is not None:
            registry.close()
        watcher.send_signal(signal.SIGINT)
        _, err = watcher.communicate(timeout=120)
    assert watcher.returncode == 0, err
    assert not (tmp_path / "data" / "registry.sqlite3").exists()  # the queue lived in PostgreSQL
