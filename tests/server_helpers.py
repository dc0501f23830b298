"""Helpers for the API tests: an app over a temporary data folder (hash embedder, real SQLite,
Chroma and BM25), clients through Litestar's test client, and waiting for the background indexer."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from officeqa.settings import EmbeddingSettings, OllamaSettings, ServerSettings, Settings

INDEX_TIMEOUT_S = 180.0  # guards against a hang only; CI is a busy 2-core machine


#: The host name of Litestar's test client ("http://testserver.local"): allowed like a configured name would be.
TEST_HOST = "testserver.local"


def make_settings(root: Path, ollama_url: str = "http://127.0.0.1:9", **server: Any) -> Settings:
    server.setdefault("allowed_hosts", [TEST_HOST])
    return Settings(
        data_dir=root / "data",
        embedding=EmbeddingSettings(backend="hash"),
        ollama=OllamaSettings(host=ollama_url, connect_timeout_s=0.5, retries=0),
        server=ServerSettings(**server),
    )


def upload(client: TestClient, files: dict[str, bytes], headers: dict[str, str] | None = None,
           kb: str | None = None) -> Any:
    params = {"kb": kb} if kb else None
    return client.post("/api/documents", files=[("files", (name, data)) for name, data in files.items()],
                       headers=headers or {}, params=params)


def wait_indexed(client: TestClient, names: list[str], headers: dict[str, str] | None = None,
                 kb: str | None = None) -> dict[str, dict[str, Any]]:
    """Poll GET /api/documents until every named file has left queued/indexing; returns them by name."""
    deadline = time.monotonic() + INDEX_TIMEOUT_S
    params = {"kb": kb} if kb else None
    while True:
        response = client.get("/api/documents", headers=headers or {}, params=params)
        assert response.status_code == 200, response.text
        docs = {d["name"]: d for d in response.json()["documents"]}
        if all(n in docs and docs[n]["state"] not in ("queued", "indexing") for n in names):
            return docs
        assert time.monotonic() < deadline, f"indexing did not finish: {docs}"
        time.sleep(0.2)


def sse_events(text: str) -> list[tuple[str, str]]:
    """(event, data) pairs of a text/event-stream body."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event, data = "message", []
        for line in block.split("\n"):
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
        if data:
            events.append((event, "\n".join(data)))
    return events


def wait_settled(client: TestClient, headers: dict[str, str] | None = None) -> None:
    """Poll GET /api/health until the job queue is empty: uploads indexed AND their summary trees built (the
    background summarise jobs write the tree store), so a before/after file listing sees only the request."""
    deadline = time.monotonic() + INDEX_TIMEOUT_S
    while client.get("/api/health", headers=headers or {}).json()["queue"]["depth"]:
        assert time.monotonic() < deadline, "the job queue did not drain"
        time.sleep(0.1)


#: Files a database keeps open while it works (DuckDB's and SQLite's write-ahead logs and journals): they come and go
#: with background jobs (a summarise job, a checkpoint) whatever a request did, so "nothing was written" ignores them.
_TRANSIENT_SUFFIXES = (".wal", "-wal", "-shm", "-journal")


def files_under(root: Path) -> set[str]:
    """The files under ``root`` (relative), less databases' transient logs (see _TRANSIENT_SUFFIXES)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and not p.name.endswith(_TRANSIENT_SUFFIXES)}
