"""The background model through the server: uploads are searchable at once, the server's pool then embeds them
with the background model, and ``/api/health`` and ``GET /api/documents`` show how much it covers; a deleted
document's strong vectors go with it. Real app and stores; hash test embedders (``background_backend = hash``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import TestClient
from server_helpers import INDEX_TIMEOUT_S, make_settings, upload, wait_indexed

from officeqa.settings import EmbeddingSettings
from server.app import create_app

FILES = {
    "差旅制度.md": ("# 差旅制度\n\n" + "\n\n".join(
        f"## 第{i}条\n\n" + f"员工出差第{i}类费用按标准报销，住宿费每晚不超过{300 + i * 20}元，需在十日内提交单据。" * 8
        for i in range(1, 13))).encode(),
    "会议通知.txt": "会议通知：年度总结大会于2025年1月18日召开，联系人赵敏，电话 13588886666。\n".encode(),
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    root = tmp_path_factory.mktemp("background")
    settings = make_settings(root)
    settings = settings.model_copy(update={"embedding": EmbeddingSettings(backend="hash", background_backend="hash",
                                                                           background_batch_size=3)})
    with TestClient(create_app(settings, generator=None)) as test_client:
        yield test_client


def wait_covered(client: TestClient) -> dict[str, Any]:
    """Poll /api/health until the background model covers every chunk and no embed job is live."""
    deadline = time.monotonic() + INDEX_TIMEOUT_S
    while True:
        health = client.get("/api/health").json()
        store = health["knowledge_bases"]["default"]
        done = store["background_embedding"]
        if done["covered_chunks"] == done["total_chunks"] and not health["queue"]["background_embeds"]:
            return dict(done)
        assert time.monotonic() < deadline, f"the background model did not catch up: {done}"
        time.sleep(0.1)


def test_uploads_are_covered_in_the_background_and_the_coverage_is_shown(client: TestClient) -> None:
    assert upload(client, FILES).status_code == 202
    docs = wait_indexed(client, list(FILES))
    chunks = sum(d["chunks"] for d in docs.values())
    assert chunks > 2
    done = wait_covered(client)
    assert done == {"model": "hash-ngram-128", "covered_chunks": chunks, "total_chunks": chunks, "share": 1.0}
    listed = client.get("/api/documents").json()["documents"]
    assert {d["name"]: d["background_chunks"] for d in listed} == {n: docs[n]["chunks"] for n in FILES}

    doc = docs["差旅制度.md"]
    assert client.delete(f"/api/documents/{doc['doc_id']}").status_code == 200
    left = docs["会议通知.txt"]["chunks"]
    deadline = time.monotonic() + INDEX_TIMEOUT_S
    while (store := client.get("/api/health").json()["knowledge_bases"]["default"])["chunks"] != left:
        assert time.monotonic() < deadline, "the answer threads did not see the removal"  # they reopen after writes
        time.sleep(0.1)
    assert store["background_embedding"] == {"model": "hash-ngram-128", "covered_chunks": left, "total_chunks": left,
                                             "share": 1.0}
