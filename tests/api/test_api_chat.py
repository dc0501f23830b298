"""Chat (SSE and JSON), route explanations, health and the OpenAPI schema, through Litestar's test client.

A fake Ollama server (a real HTTP server speaking Ollama's API) writes the model answers, so
streaming, citations and the budget report are exercised end to end.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient
from server_helpers import make_settings, sse_events, upload, wait_indexed

from eval.fake_ollama import FakeOllama, Reply
from server.app import create_app

FILES = {
    "差旅费管理办法.md": (
        "# 差旅费管理办法\n\n## 第一章 住宿标准\n\n员工出差住宿费标准为每人每晚不超过550元。\n\n"
        "## 第二章 交通\n\n出差乘坐高铁二等座，八小时以上可乘坐飞机经济舱。\n"
    ).encode(),
    "年度总结大会通知.txt": (
        "关于召开年度总结大会的通知\n\n公司定于2025年1月18日下午两点在三楼报告厅召开年度总结大会，"
        "请各部门负责人于1月15日前报送参会名单。\n"
    ).encode(),
}
ASK_KEYS = {"answer", "mode", "notice", "question", "standalone_question", "language", "citations", "metadata"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chat")


@pytest.fixture(scope="module")
def client(root: Path, fake: FakeOllama) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(root, ollama_url=fake.url))) as test_client:
        assert upload(test_client, FILES).status_code == 202
        docs = wait_indexed(test_client, list(FILES))
        assert all(d["state"] == "indexed" for d in docs.values()), docs
        test_client.docs = docs  # type: ignore[attr-defined]
        yield test_client


@pytest.fixture(scope="module")
def offline(root: Path, client: TestClient) -> Iterator[TestClient]:
    """The same knowledge base, served with no model at all (extractive and rule answers)."""
    with TestClient(create_app(make_settings(root), generator=None)) as test_client:
        yield test_client


def test_a_streamed_answer_sends_pieces_then_citations_report_and_answer(
    client: TestClient, fake: FakeOllama
) -> None:
    fake.add_reply(Reply(pieces=["住宿费标准", "为每晚不超过550元 [1]。"]))
    response = client.post("/api/chat", json={"question": "差旅住宿费标准是多少？"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds == ["delta", "delta", "citations", "report", "answer"]
    assert [json.loads(data)["text"] for kind, data in events if kind == "delta"] == [
        "住宿费标准", "为每晚不超过550元 [1]。"]
    citations = json.loads(events[2][1])
    assert citations[0]["n"] == 1 and citations[0]["document"] == "差旅费管理办法.md"
    assert "550元" in citations[0]["quote"]
    report = json.loads(events[3][1])
    assert report["mode"] == "model" and report["notice"] is None
    assert report["route"]["route"] and report["assembly"]["tokens"]["total"] > 0  # the budget report
    answer = json.loads(events[4][1])
    assert set(answer) == ASK_KEYS and answer["mode"] == "model" and "550元" in answer["answer"]


def test_a_json_answer_has_the_shape_of_ask_json(client: TestClient, fake: FakeOllama, root: Path) -> None:
    fake.add_reply(Reply(pieces=["会议定于2025年1月18日召开 [1]。"]))
    response = client.post("/api/chat", json={"question": "年度总结大会哪天召开？", "stream": False})
    assert response.status_code == 200
    answer = response.json()
    assert set(answer) == ASK_KEYS
    assert answer["mode"] == "model" and answer["citations"][0]["document"] == "年度总结大会通知.txt"
    cli = subprocess.run(
        [sys.executable, "-m", "server.cli", "ask", "年度总结大会哪天召开？", "--json", "--no-model"],
        capture_output=True, text=True, check=True,
        env={"OFFICEQA_DATA_DIR": str(root / "data"), "OFFICEQA_EMBEDDING__BACKEND": "hash", "PATH": "/usr/bin"},
    )
    assert set(json.loads(cli.stdout.splitlines()[-1])) == set(answer)
    assert set(answer["citations"][0]) <= {"n", "chunk_id", "doc_id", "path", "document", "heading_path", "quote",
                                           "referenced", "page", "page_end", "sheet", "slide", "row", "label"}
    assert answer["citations"][0]["path"] == "年度总结大会通知.txt"  # relative: no server path reaches a client
    assert str(root) not in response.text


def test_a_failed_model_call_does_not_show_the_ollama_address(client: TestClient, fake: FakeOllama) -> None:
    fake.add_reply(Reply(status=500, error="model crashed"))
    response = client.post("/api/chat", json={"question": "年度总结大会哪天召开？", "stream": False})
    answer = response.json()
    assert answer["mode"] == "extractive" and answer["notice"]
    address = fake.url.split("//", 1)[1]
    assert address not in response.text and "127.0.0.1" not in answer["notice"]


def test_without_a_model_the_answer_is_extractive_with_a_visible_notice(offline: TestClient) -> None:
    response = offline.post("/api/chat", json={"question": "出差可以坐飞机吗？"})
    events = dict(sse_events(response.text))
    answer = json.loads(events["answer"])
    assert answer["mode"] == "extractive"
    assert answer["notice"]  # the client shows it
    assert any("飞机" in c["quote"] for c in answer["citations"])
    assert "delta" not in events


def test_follow_up_questions_use_the_history(offline: TestClient) -> None:
    history = [{"role": "user", "content": "年度总结大会在哪天召开？"},
               {"role": "assistant", "content": "2025年1月18日。"}]
    response = offline.post("/api/chat", json={"question": "那参会名单什么时候报送？", "history": history,
                                               "stream": False})
    answer = response.json()
    assert answer["metadata"]["rewrite"]["method"] == "rule"
    assert "1月15日" in answer["answer"]


def test_documents_scope_the_answer(offline: TestClient, client: TestClient) -> None:
    doc_id = client.docs["差旅费管理办法.md"]["doc_id"]  # type: ignore[attr-defined]
    response = offline.post("/api/chat", json={"question": "出差交通怎么安排？", "documents": [doc_id[:12]],
                                               "stream": False})
    answer = response.json()
    assert answer["metadata"]["scope"]["method"] == "explicit"
    assert {c["doc_id"] for c in answer["citations"]} == {doc_id}


@pytest.mark.parametrize(
    "body",
    [{}, {"question": "x", "history": [{"role": "robot", "content": "x"}]},
     {"question": "x", "mode": "magic"}, {"question": 3}],
)
def test_bad_chat_requests_are_400_with_the_field_named(client: TestClient, body: dict) -> None:
    response = client.post("/api/chat", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["kind"] == "invalid_request" and error["message"]


def test_an_unknown_knowledge_base_is_404_before_any_stream(client: TestClient) -> None:
    response = client.post("/api/chat", json={"question": "x"}, headers={"X-Knowledge-Base": "nope"})
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"]["kind"] == "unknown_knowledge_base"


def test_route_explains_every_rule(client: TestClient) -> None:
    response = client.post("/api/route", json={"instruction": "提取合同中的所有电话号码"})
    assert response.status_code == 200
    decision = response.json()
    assert decision["route"] == "extract_phone"
    assert len(decision["rules"]) > 5 and any(r.get("matched") for r in decision["rules"])
    assert client.post("/api/route", json={"instruction": ""}).status_code == 400


def test_health_reports_stores_embedder_model_and_queue(client: TestClient, offline: TestClient) -> None:
    health = client.get("/api/health").json()
    assert health["status"] == "ok" and health["answers"] == "model"
    assert health["ollama"]["reachable"] and health["ollama"]["model_present"]
    store = health["knowledge_bases"]["default"]
    assert store["chunks"] > 0 and store["chunks"] == store["bm25_chunks"] == store["vector_chunks"]
    assert health["embedder"]["backend"] == "hash" and health["embedder"]["dim"] > 0
    assert health["queue"]["queued"] == 0 and health["queue"]["answer_threads"] >= 1
    assert offline.get("/api/health").json()["ollama"]["configured"] is False


def test_health_says_when_the_model_is_missing(root: Path, client: TestClient) -> None:
    empty = FakeOllama(models={}).start()
    try:
        with TestClient(create_app(make_settings(root, ollama_url=empty.url))) as other:
            model = other.get("/api/health").json()["ollama"]
    finally:
        empty.stop()
    assert model["reachable"] is True and model["model_present"] is False and model["answers"] == "extractive"
    assert "host" not in model and empty.url.split("//")[1] not in json.dumps(model)  # no internal address


def test_the_openapi_schema_documents_every_endpoint(client: TestClient) -> None:
    schema = client.get("/schema/openapi.json").json()
    assert {"/api/documents", "/api/documents/{doc_id}", "/api/documents/{doc_id}/chunks", "/api/chat",
            "/api/route", "/api/health", "/api/kbs", "/v1/chat/completions", "/v1/models"} <= set(schema["paths"])
    chat = schema["paths"]["/api/chat"]["post"]
    assert "requestBody" in chat
    assert "multipart/form-data" in schema["paths"]["/api/documents"]["post"]["requestBody"]["content"]
    assert "question" in json.dumps(schema["components"]["schemas"])
    assert "/v1/completions" in schema["paths"]


def test_the_schema_page_works_offline_and_the_page_has_an_icon(client: TestClient) -> None:
    page = client.get("/schema")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/api/chat" in page.text and "/v1/completions" in page.text
    assert "<script" not in page.text and "http://" not in page.text and "https://" not in page.text  # no CDN
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert 'rel="icon"' in client.get("/").text


def test_the_access_log_has_one_json_line_per_request_and_questions_only_when_enabled(
    root: Path, fake: FakeOllama
) -> None:
    class Lines(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.INFO)
            self.lines: list[dict] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.lines.append(json.loads(record.getMessage()))

    logger = logging.getLogger("officeqa.access")
    for with_questions in (False, True):
        handler, level = Lines(), logger.level
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        try:
            settings = make_settings(root, ollama_url=fake.url, access_log_questions=with_questions)
            with TestClient(create_app(settings, generator=None)) as other:
                assert other.post("/api/chat?x=1", json={"question": "住宿标准？", "stream": False}).status_code == 200
                assert other.get("/api/kbs").status_code == 200
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        chat = next(line for line in handler.lines if line["path"] == "/api/chat")
        assert chat["method"] == "POST" and chat["status"] == 200 and chat["ms"] >= 0 and chat["key"] == "local"
        assert ("question" in chat) is with_questions and chat.get("question", "住宿标准？") == "住宿标准？"
        assert any(line["path"] == "/api/kbs" and "question" not in line for line in handler.lines)
