"""API keys and knowledge bases: hashed at rest, scoped by role and knowledge base, on every endpoint.

Two knowledge bases (``a``, ``b``) in one server; keys are made with the real CLI
(``officeqa keys create``). A key for ``a`` must never see ``b``'s documents, chunks or citations.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient
from server_helpers import make_settings, sse_events, upload, wait_indexed

from server.app import create_app
from server.cli import main
from server.cli.serve_cmd import bind_host

SECRET_A = "甲库独有：项目代号青龙，预算三百万元。".encode()
SECRET_B = "乙库独有：项目代号白虎，预算九百万元。".encode()


def _config(root: Path) -> Path:
    config = root / "officeqa.toml"
    config.write_text(
        f'data_dir = "{root / "data"}"\n[embedding]\nbackend = "hash"\n[server]\nknowledge_bases = ["a", "b"]\n',
        encoding="utf-8",
    )
    return config


def _create_key(config: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["--config", str(config), "keys", "create", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["key"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, dict[str, str]], Path]]:
    root = tmp_path_factory.mktemp("keys")
    config = _config(root)
    keys: dict[str, dict[str, str]] = {}

    def create(*args: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["--config", str(config), "keys", "create", *args, "--json"]) == 0
        return json.loads(out.getvalue())["key"]

    keys["a_write"] = {"Authorization": f"Bearer {create('--kb', 'a', '--role', 'write')}"}
    keys["a_read"] = {"Authorization": f"Bearer {create('--kb', 'a', '--role', 'read', '--label', 'reader')}"}
    keys["b_write"] = {"X-API-Key": create("--kb", "b", "--role", "write")}
    settings = make_settings(root, knowledge_bases=["a", "b"])
    with TestClient(create_app(settings, generator=None)) as client:
        assert upload(client, {"甲.txt": SECRET_A}, keys["a_write"], kb="a").status_code == 202
        assert upload(client, {"乙.txt": SECRET_B}, keys["b_write"], kb="b").status_code == 202
        wait_indexed(client, ["甲.txt"], keys["a_write"], kb="a")
        wait_indexed(client, ["乙.txt"], keys["b_write"], kb="b")
        yield client, keys, root


def _doc_id(client: TestClient, headers: dict[str, str], kb: str, name: str) -> str:
    docs = client.get("/api/documents", headers=headers, params={"kb": kb}).json()["documents"]
    return next(d["doc_id"] for d in docs if d["name"] == name)


def test_the_keys_file_holds_hashes_not_keys(setup: tuple) -> None:
    _client, keys, root = setup
    text = (root / "data" / "api-keys.json").read_text(encoding="utf-8")
    for headers in keys.values():
        token = next(iter(headers.values())).removeprefix("Bearer ")
        assert token not in text and token.split("_", 2)[2] not in text
    assert '"secret_sha256"' in text
    assert (root / "data" / "api-keys.json").stat().st_mode & 0o077 == 0


def test_no_key_or_a_wrong_key_is_401(setup: tuple) -> None:
    client, _keys, _ = setup
    for headers in ({}, {"Authorization": "Bearer oqa_00000000_wrong"}, {"X-API-Key": "garbage"}):
        for method, url in (("GET", "/api/documents"), ("POST", "/api/chat"), ("GET", "/v1/models"),
                            ("POST", "/api/documents")):
            response = client.request(method, url, headers=headers, json={"question": "x"} if "chat" in url else None)
            assert response.status_code == 401, (url, headers, response.text)
            assert response.json()["error"]["kind"] == "unauthenticated"
            assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_read_key_cannot_upload_or_delete(setup: tuple) -> None:
    client, keys, root = setup
    before = sorted(p.name for p in (root / "data" / "kbs" / "a" / "uploads").iterdir())
    response = upload(client, {"新.txt": b"new text"}, keys["a_read"], kb="a")
    assert response.status_code == 403 and response.json()["error"]["kind"] == "forbidden"
    assert sorted(p.name for p in (root / "data" / "kbs" / "a" / "uploads").iterdir()) == before
    doc_id = _doc_id(client, keys["a_read"], "a", "甲.txt")
    response = client.delete(f"/api/documents/{doc_id}", headers=keys["a_read"], params={"kb": "a"})
    assert response.status_code == 403
    assert _doc_id(client, keys["a_read"], "a", "甲.txt") == doc_id  # still there
    # what a read key may do
    assert client.get(f"/api/documents/{doc_id}/chunks", headers=keys["a_read"], params={"kb": "a"}).status_code == 200
    assert client.post("/api/chat", json={"question": "青龙项目预算多少？", "stream": False},
                       headers=keys["a_read"]).status_code == 200


def test_a_key_for_a_gets_404_for_everything_of_b(setup: tuple) -> None:
    client, keys, _ = setup
    a = keys["a_write"]
    b_doc = _doc_id(client, keys["b_write"], "b", "乙.txt")
    for method, url, params in (
        ("GET", "/api/documents", {"kb": "b"}),
        ("GET", f"/api/documents/{b_doc}/chunks", {"kb": "b"}),
        ("DELETE", f"/api/documents/{b_doc}", {"kb": "b"}),
        ("POST", "/api/documents", {"kb": "b"}),
    ):
        response = client.request(method, url, headers=a, params=params)
        assert response.status_code == 404, (url, response.text)
        assert "乙" not in response.text and "白虎" not in response.text
    # b's document id asked of a's knowledge base: not found there either
    response = client.get(f"/api/documents/{b_doc}/chunks", headers=a, params={"kb": "a"})
    assert response.status_code == 404
    response = client.post("/api/chat", json={"question": "x"}, headers={**a, "X-Knowledge-Base": "b"})
    assert response.status_code == 404


def test_a_key_for_a_never_gets_citations_of_b(setup: tuple) -> None:
    client, keys, _ = setup
    a = keys["a_write"]
    b_doc = _doc_id(client, keys["b_write"], "b", "乙.txt")
    for question in ("白虎项目预算是多少？", "项目代号和预算是什么？"):
        for stream in (False, True):
            response = client.post("/api/chat", json={"question": question, "stream": stream, "documents": [b_doc]},
                                   headers=a)
            assert response.status_code == 200
            answer = json.loads(dict(sse_events(response.text))["answer"]) if stream else response.json()
            assert all(c["doc_id"] != b_doc and "白虎" not in c["quote"] for c in answer["citations"])
            assert "白虎" not in answer["answer"] and "九百万" not in answer["answer"]
    # the same question with b's key finds b's document
    answer = client.post("/api/chat", json={"question": "白虎项目预算是多少？", "stream": False},
                         headers=keys["b_write"]).json()
    assert any(c["doc_id"] == b_doc for c in answer["citations"])


def test_the_openai_endpoint_is_scoped_by_the_key_too(setup: tuple) -> None:
    client, keys, _ = setup
    a = keys["a_write"]
    models = client.get("/v1/models", headers=a).json()
    assert [m["id"] for m in models["data"]] == ["officeqa/a"]
    response = client.post("/v1/chat/completions", headers=a,
                           json={"model": "officeqa/b", "messages": [{"role": "user", "content": "白虎预算？"}]})
    assert response.status_code == 404 and "白虎" not in response.text
    response = client.post("/v1/chat/completions", headers={**a, "X-Knowledge-Base": "b"},
                           json={"model": "officeqa/a", "messages": [{"role": "user", "content": "白虎预算？"}]})
    assert response.status_code == 404
    question = {"role": "user", "content": "项目预算是多少？"}
    body = client.post("/v1/chat/completions", headers=a, json={"model": "officeqa/a", "messages": [question]}).json()
    assert all(c["document"] == "甲.txt" for c in body["citations"])


def test_kbs_and_health_show_only_the_keys_knowledge_bases(setup: tuple) -> None:
    client, keys, _ = setup
    kbs = client.get("/api/kbs", headers=keys["a_read"]).json()
    assert kbs == {"local_mode": False, "knowledge_bases": [{"name": "a", "write": False}]}
    health = client.get("/api/health", headers=keys["a_read"]).json()
    assert list(health["knowledge_bases"]) == ["a"]
    assert client.get("/api/health").json()["knowledge_bases"] == {}  # no key: no detail


def test_a_revoked_key_stops_working_while_the_server_runs(setup: tuple, capsys: pytest.CaptureFixture[str]) -> None:
    client, _, root = setup
    config = root / "officeqa.toml"
    token = _create_key(config, capsys, "--kb", "a", "--role", "read")
    headers = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/documents", headers=headers).status_code == 200
    key_id = token.split("_")[1]
    assert main(["--config", str(config), "keys", "revoke", key_id]) == 0
    assert client.get("/api/documents", headers=headers).status_code == 401
    assert main(["--config", str(config), "keys", "list", "--json"]) == 0
    listed = {k["id"]: k for k in json.loads(capsys.readouterr().out.splitlines()[-1])["keys"]}
    assert listed[key_id]["revoked_at"] and "secret_sha256" not in listed[key_id]


def test_bad_key_requests_at_the_cli_are_refused_with_one_line(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path)
    # a bad knowledge-base name is a configuration error (exit 5)
    assert main(["--config", str(config), "keys", "create", "--kb", "Bad Name", "--role", "read"]) == 5
    assert "knowledge base name" in capsys.readouterr().err
    assert main(["--config", str(config), "keys", "revoke", "nope"]) == 4


def test_local_mode_allows_everything_and_binds_to_localhost_only(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    with TestClient(create_app(settings, generator=None)) as client:
        assert client.get("/api/kbs").json() == {"local_mode": True,
                                                 "knowledge_bases": [{"name": "default", "write": True}]}
    assert bind_host(settings, "0.0.0.0", has_keys=False)[0] == "127.0.0.1"
    assert "no API key" in (bind_host(settings, "0.0.0.0", has_keys=False)[1] or "")
    assert bind_host(settings, "0.0.0.0", has_keys=True) == ("0.0.0.0", None)
    assert bind_host(settings, "::1", has_keys=False) == ("::1", None)


def test_the_overview_is_of_the_keys_own_knowledge_base(setup: tuple) -> None:
    """GET /api/overview (the chat page's first screen): what one knowledge base holds, to a key that may read it."""
    client, keys, _root = setup
    response = client.get("/api/overview", headers=keys["a_read"], params={"kb": "a"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["knowledge_base"], body["documents"], body["kinds"], body["failed"]) == ("a", 1, {"txt": 1}, 0)
    assert body["answers"] == "extractive" and body["model"]["configured"] is False  # served with no model
    assert "乙" not in response.text
    assert client.get("/api/overview", headers=keys["a_read"], params={"kb": "b"}).status_code == 404
    assert client.get("/api/overview", params={"kb": "a"}).status_code == 401
