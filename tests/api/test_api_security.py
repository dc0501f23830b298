"""Local mode against other web pages, the size policy, rate limits and the shared error shape.

Through Litestar's test client over a real app (SQLite, Chroma, BM25 on a temporary folder) and
a fake Ollama that records every call, so "no work was done" is checked as "the model was
never asked and nothing was written". The browser half (a real second origin in Chromium)
is ``tests/browser/test_cross_origin.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient
from live_server import serve
from server_helpers import files_under, make_settings, upload, wait_indexed, wait_settled

from eval.fake_ollama import FakeOllama
from server.app import create_app
from server.cli import main

NOTE = "# 报销\n\n报销需在出差结束后十日内提交。\n".encode()
MEGABYTE = "报" * 1_000_000  # a 1,000,000-character message (3 MB of UTF-8)
QUESTION_ENDPOINTS = [
    ("/api/chat", lambda q: {"question": q, "stream": False}),
    ("/api/route", lambda q: {"instruction": q}),
    ("/v1/chat/completions", lambda q: {"model": "officeqa/default", "messages": [{"role": "user", "content": q}]}),
    ("/v1/completions", lambda q: {"model": "officeqa/default", "prompt": q}),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("security")


@pytest.fixture(scope="module")
def client(root: Path, fake: FakeOllama) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(root, ollama_url=fake.url))) as test_client:
        assert upload(test_client, {"报销.md": NOTE}).status_code == 202
        wait_indexed(test_client, ["报销.md"])
        wait_settled(test_client)
        yield test_client


# -- Host allow-list (DNS rebinding) -------------------------------------------------------------------------
@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example",
                                  "localhost.attacker.example", ""])
def test_a_forged_host_reads_nothing_in_local_mode(client: TestClient, host: str) -> None:
    for path in ("/api/documents", "/api/health", "/v1/models", "/"):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 400, (path, response.text)
        assert response.json()["error"]["code"] == "invalid_host"
        assert "报销" not in response.text


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST", "testserver.local"])
def test_loopback_and_configured_hosts_are_answered(client: TestClient, host: str) -> None:
    assert client.get("/api/documents", headers={"Host": host}).status_code == 200


def test_with_keys_any_host_is_answered_unless_names_are_configured(tmp_path: Path) -> None:
    config = tmp_path / "officeqa.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[embedding]\nbackend = "hash"\n', encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--config", str(config), "keys", "create", "--kb", "default", "--role", "read", "--json"]) == 0
    key = {"Authorization": f"Bearer {json.loads(out.getvalue())['key']}"}
    with TestClient(create_app(make_settings(tmp_path, allowed_hosts=[]), generator=None)) as open_hosts:
        assert open_hosts.get("/api/documents", headers={**key, "Host": "qa.corp"}).status_code == 200
    with TestClient(create_app(make_settings(tmp_path, allowed_hosts=["qa.corp"]), generator=None)) as named:
        assert named.get("/api/documents", headers={**key, "Host": "qa.corp:443"}).status_code == 200
        assert named.get("/api/documents", headers={**key, "Host": "other.corp"}).status_code == 400


# -- Origin and content type ---------------------------------------------------------------------------------
def test_a_cross_origin_upload_is_refused_and_writes_nothing(client: TestClient, root: Path) -> None:
    before = files_under(root)
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Origin": "http://testserver.local.evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        response = upload(client, {"planted.txt": "植入的文本".encode()}, headers=headers)
        assert response.status_code == 403, (headers, response.text)
        assert response.json()["error"] == {
            "message": response.json()["error"]["message"], "type": "permission_error", "param": None,
            "code": "cross_origin", "kind": "cross_origin"}
    assert files_under(root) == before
    names = [d["name"] for d in client.get("/api/documents").json()["documents"]]
    assert "planted.txt" not in names


def test_a_same_origin_page_may_upload(client: TestClient) -> None:
    response = upload(client, {"同源.txt": "同源页面上传的文本。".encode()},
                      headers={"Origin": "http://testserver.local", "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 202, response.text
    wait_indexed(client, ["同源.txt"])


def test_configured_origins_may_call_the_api(root: Path, fake: FakeOllama) -> None:
    settings = make_settings(root, ollama_url=fake.url, allowed_origins=["https://portal.corp"])
    with TestClient(create_app(settings)) as other:
        assert other.get("/api/kbs", headers={"Origin": "https://portal.corp"}).status_code == 200
        assert other.get("/api/kbs", headers={"Origin": "https://portal.corp:8443"}).status_code == 403


def test_cross_origin_reads_are_refused_too(client: TestClient) -> None:
    response = client.get("/api/documents", headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403


def test_text_plain_json_to_chat_is_415_and_never_reaches_the_model(client: TestClient, fake: FakeOllama) -> None:
    asked = len(fake.chat_requests())
    body = json.dumps({"question": "报销时限是多少？", "stream": False})
    for path in ("/api/chat", "/v1/chat/completions", "/api/route"):
        response = client.post(path, content=body, headers={"Content-Type": "text/plain"})
        assert response.status_code == 415, (path, response.text)
        assert "application/json" in response.json()["error"]["message"]
    assert len(fake.chat_requests()) == asked


# -- sizes ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "body"), QUESTION_ENDPOINTS)
def test_a_one_megabyte_message_is_refused_without_work(client: TestClient, fake: FakeOllama, path: str,
                                                        body) -> None:
    asked = len(fake.chat_requests())
    response = client.post(path, json=body(MEGABYTE))
    assert response.status_code == 413, response.text
    assert response.json()["error"]["code"] == "too_large"
    assert len(fake.chat_requests()) == asked


def test_a_long_question_under_the_body_limit_is_400_naming_the_setting(client: TestClient) -> None:
    response = client.post("/api/chat", json={"question": "x" * 9000, "stream": False})
    assert response.status_code == 400 and "server.max_question_chars" in response.json()["error"]["message"]
    response = client.post("/v1/chat/completions", json={"model": "officeqa/default", "messages": [
        {"role": "user", "content": "y" * 40_000}, {"role": "user", "content": "报销时限？"}]})
    assert response.status_code == 400 and "server.max_message_chars" in response.json()["error"]["message"]
    response = client.post("/api/chat", json={"question": "报销时限？", "stream": False,
                                              "history": [{"role": "user", "content": "a"}] * 250})
    assert response.status_code == 400 and response.json()["error"]["param"] == "history"


@pytest.mark.parametrize(("path", "body"), QUESTION_ENDPOINTS)
@pytest.mark.parametrize("question", ["", "   ", "\n\t　"])
def test_an_empty_question_is_400_with_a_clear_message(client: TestClient, path: str, body, question: str) -> None:
    response = client.post(path, json=body(question))
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "empty_question" and "empty" in error["message"]
    assert error["type"] == "invalid_request_error"


# -- rate limits ---------------------------------------------------------------------------------------------
def test_failed_keys_in_a_row_are_429_with_retry_after(tmp_path: Path) -> None:
    config = tmp_path / "officeqa.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[embedding]\nbackend = "hash"\n', encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--config", str(config), "keys", "create", "--kb", "default", "--role", "read", "--json"]) == 0
    good = {"Authorization": f"Bearer {json.loads(out.getvalue())['key']}"}
    with TestClient(create_app(make_settings(tmp_path), generator=None)) as client:
        statuses = [client.get("/api/documents", headers={"Authorization": f"Bearer oqa_0000{n:04d}_guess"})
                    for n in range(100)]
        assert {r.status_code for r in statuses[:20]} == {401}
        assert {r.status_code for r in statuses[20:]} == {429}
        assert int(statuses[-1].headers["Retry-After"]) > 0
        assert statuses[-1].json()["error"]["type"] == "rate_limit_error"
        assert client.get("/api/documents", headers=good).status_code == 429  # the address is blocked for now
        health = client.get("/api/health")  # load balancers still get an answer, without details
        assert health.status_code == 200 and health.json()["knowledge_bases"] == {}


def test_failed_attempts_aimed_at_one_key_id_block_that_id_from_any_address(tmp_path: Path) -> None:
    """Guesses from three loopback addresses (127.0.0.2-4, a real server) at one key id block that id, while an
    address that never failed is not blocked for other keys."""
    config = tmp_path / "officeqa.toml"
    config.write_text(f'data_dir = "{tmp_path / "data"}"\n[embedding]\nbackend = "hash"\n', encoding="utf-8")
    tokens = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["--config", str(config), "keys", "create", "--kb", "default", "--role", "read",
                         "--json"]) == 0
        tokens.append(json.loads(out.getvalue())["key"])
    target, other = tokens
    key_id = target.split("_")[1]

    def get(url: str, source: str, token: str) -> httpx.Response:
        transport = httpx.HTTPTransport(local_address=source)
        with httpx.Client(base_url=url, transport=transport) as http:
            return http.get("/api/documents", headers={"Authorization": f"Bearer {token}"})

    with serve(create_app(make_settings(tmp_path, failed_auth_limit=3), generator=None)) as url:
        for n in range(3):
            assert get(url, f"127.0.0.{n + 2}", f"oqa_{key_id}_wrong{n}").status_code == 401
        blocked = get(url, "127.0.0.9", target)
        assert blocked.status_code == 429 and "this API key" in blocked.json()["error"]["message"]
        assert get(url, "127.0.0.9", other).status_code == 200


def test_questions_per_minute_are_limited_per_address(root: Path, fake: FakeOllama) -> None:
    with TestClient(create_app(make_settings(root, ollama_url=fake.url, answers_per_minute=2),
                               generator=None)) as client:
        bodies = [client.post("/api/chat", json={"question": "报销时限？", "stream": False}) for _ in range(3)]
        assert [r.status_code for r in bodies] == [200, 200, 429]
        assert int(bodies[-1].headers["Retry-After"]) >= 1
        assert "server.answers_per_minute" in bodies[-1].json()["error"]["message"]
        assert client.get("/api/documents").status_code == 200  # reading is not an answer
