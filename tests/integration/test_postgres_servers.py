"""Two ``officeqa serve`` processes on one PostgreSQL: what one is told, the other answers from.

Real processes (``python -m server.cli serve``) on two ports, one data folder (the shared volume of a
deployment) and one PostgreSQL schema: an upload through A is answered through B; uploads and
deletes through both at once leave ``check`` clean and both servers listing the same documents.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from postgres_server import new_schema

from indexing.backends import job_queue
from indexing.jobs import KIND_SUMMARISE
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings, StorageSettings

START_TIMEOUT_S = 180.0  # guards against a hang only
INDEX_TIMEOUT_S = 240.0

CONTRACT = (
    "第一章 总则\n\n本合同约定苹果供应事项。\n\n"
    "第二章 违约责任\n\n乙方逾期交付苹果的，应当按日支付违约金百分之五。\n"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(env: dict[str, str], log: Path) -> Iterator[str]:
    port = _free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--no-model"],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def documents(url: str) -> dict[str, dict]:
    response = httpx.get(f"{url}/api/documents", timeout=30)
    assert response.status_code == 200, response.text
    return {d["name"]: d for d in response.json()["documents"]}


def wait_for(url: str, names: set[str], gone: set[str] = frozenset()) -> dict[str, dict]:
    deadline = time.monotonic() + INDEX_TIMEOUT_S
    while True:
        docs = documents(url)
        settled = all(n in docs and docs[n]["state"] not in ("queued", "indexing") for n in names)
        if settled and not (gone & set(docs)):
            return docs
        assert time.monotonic() < deadline, f"not settled: {docs}"
        time.sleep(0.3)


def test_two_servers_on_one_postgres_share_uploads_answers_and_deletes(tmp_path: Path, postgres_dsn: str) -> None:
    schema = new_schema()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_") and k != "OLLAMA_HOST"}
    env.update({
        "OFFICEQA_DATA_DIR": str(tmp_path / "data"),
        "OFFICEQA_EMBEDDING__BACKEND": "hash",
        "OFFICEQA_STORAGE__BACKEND": "postgres",
        "OFFICEQA_STORAGE__POSTGRES_DSN": postgres_dsn,
        "OFFICEQA_STORAGE__POSTGRES_SCHEMA": schema,
        "OFFICEQA_JOBS__WORKERS": "1",
        "OLLAMA_HOST": "http://127.0.0.1:9",
    })
    with server(env, tmp_path / "a.log") as a, server(env, tmp_path / "b.log") as b:
        # upload through A, answer through B
        response = httpx.post(f"{a}/api/documents", files=[("files", ("contract.txt", CONTRACT.encode()))], timeout=60)
        assert response.status_code == 202, response.text
        doc_id = response.json()["documents"][0]["doc_id"]
        assert wait_for(b, {"contract.txt"})["contract.txt"]["state"] == "indexed"
        answer = httpx.post(f"{b}/api/chat", json={"question": "逾期交付苹果的违约金是多少？", "stream": False},
                            timeout=120)
        assert answer.status_code == 200, answer.text
        assert "contract.txt" in answer.text and "百分之五" in answer.text
        # the upload's summary tree is built in the background by a summarise job claimed from PostgreSQL
        storage = StorageSettings(backend="postgres", postgres_dsn=postgres_dsn, postgres_schema=schema)
        deadline = time.monotonic() + INDEX_TIMEOUT_S
        while True:
            with job_queue(Settings(data_dir=tmp_path / "data", storage=storage)) as jobs:
                summaries = [j for j in jobs.find() if j.kind == KIND_SUMMARISE]
            if summaries and not any(j.live for j in summaries):
                break
            assert time.monotonic() < deadline, summaries
            time.sleep(0.3)
        assert [(j.state, j.outcome) for j in summaries] == [("DONE", "summarised")], summaries

        # uploads and deletes through both at once
        names = [f"note-{i}.md" for i in range(8)]

        def upload(i: int) -> str:
            url = (a, b)[i % 2]
            body = f"# 笔记 {i}\n\n第{i}号笔记记录了项目{i}的预算与进度。\n".encode()
            r = httpx.post(f"{url}/api/documents", files=[("files", (names[i], body))], timeout=60)
            assert r.status_code == 202, r.text
            return r.json()["documents"][0]["doc_id"]

        with ThreadPoolExecutor(4) as pool:
            ids = list(pool.map(upload, range(len(names))))
        wait_for(a, set(names))
        with ThreadPoolExecutor(4) as pool:
            removed = list(pool.map(lambda i: httpx.delete(f"{(b, a)[i % 2]}/api/documents/{ids[i]}", timeout=60),
                                    range(0, len(names), 2)))
        assert all(r.status_code == 200 for r in removed), [r.text for r in removed]
        gone = {names[i] for i in range(0, len(names), 2)}
        # a delete reaches both servers at once: neither lists the removed documents any more
        for url in (a, b):
            docs = wait_for(url, {"contract.txt", *(set(names) - gone)}, gone)
            assert not (gone & set(docs))
        assert set(documents(a)) == set(documents(b))
        deleted = httpx.delete(f"{a}/api/documents/{doc_id}", timeout=60)
        assert deleted.status_code == 200, deleted.text
        miss = httpx.post(f"{b}/api/chat", json={"question": "逾期交付苹果的违约金是多少？", "stream": False},
                          timeout=120)
        assert miss.status_code == 200 and "百分之五" not in miss.text

    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"),
                        storage=StorageSettings(backend="postgres", postgres_dsn=postgres_dsn, postgres_schema=schema))
    with open_knowledge_base(settings) as kb:
        report = kb.check()
        assert report.clean, report.to_json()
        assert report.registry_chunks == report.chroma_chunks == report.bm25_chunks > 0
        assert kb.jobs.counts().get("FAILED", 0) == 0


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx must reach 127.0.0.1 directly whatever proxy the machine sets."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
