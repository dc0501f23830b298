"""The real ``ollama`` client against the fake Ollama server (tests/fake_ollama.py).

Covers what the request carries (num_ctx, prompt parts, temperature), streaming that
reaches the caller piece by piece, and every failure that must end in the degraded
extractive answer: timeout, dropped connection, unreachable server, missing model,
empty answers.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from pathlib import Path

import httpx
import ollama
import pytest
from fake_ollama import DEFAULT_MODEL, FakeOllama, ModelSpec, Reply

from officeqa.generation import FailureKind, GenerationError, OllamaGenerator
from officeqa.settings import OllamaSettings, Settings
from retrieval.followup import Turn
from retrieval.pipeline import AnswerPipeline
from retrieval.search import SearchHit

HITS = [
    SearchHit("d1:0001", "d1", 0.9, "第一季度华东区销售额为120万元。第一季度华南区销售额为80万元。",
              {"doc_id": "d1", "path": "/docs/销售报告.docx", "heading_path": "销售 > 第一季度", "position": 1}),
    SearchHit("d1:0002", "d1", 0.5, "第二季度华东区销售额为150万元。",
              {"doc_id": "d1", "path": "/docs/销售报告.docx", "heading_path": "销售 > 第二季度", "position": 2}),
]


class Retriever:
    """Fixed hits; remembers the queries it was asked (to check follow-up rewriting)."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def __call__(self, query: str, k: int) -> list[SearchHit]:
        self.queries.append(query)
        return HITS[:k]


def make_settings(tmp_path: Path, host: str, **ollama: object) -> Settings:
    values = {"host": host, "num_ctx": 4096, "answer_reserve_tokens": 512, "connect_timeout_s": 1.0,
              "read_timeout_s": 1.0, "retries": 1, **ollama}
    return Settings(data_dir=tmp_path, ollama=OllamaSettings(**values))


def pipeline(settings: Settings, retriever: Retriever | None = None) -> tuple[AnswerPipeline, OllamaGenerator]:
    generator = OllamaGenerator(settings.ollama)
    return AnswerPipeline(settings, retriever or Retriever(), generator), generator


def test_request_carries_num_ctx_and_the_prompt_parts(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_reply(Reply(pieces=["华东区第一季度销售额为120万元[1]。"]))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url))
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    generator.close()
    (body,) = fake_ollama.chat_requests()
    assert body["model"] == DEFAULT_MODEL
    assert body["options"]["num_ctx"] == 4096
    assert body["options"]["temperature"] == 0.2
    system, user = body["messages"]
    assert system["role"] == "system" and "文档问答助手" in system["content"]
    content = user["content"]
    for part in (
        "任务：",
        "背景：资料来自以下文档：销售报告.docx",
        "[1] 销售报告.docx · 销售 > 第一季度\n第一季度华东区",
        "[2] 销售报告.docx · 销售 > 第二季度",
        "问题：第一季度华东区销售额是多少？",
        "输出要求",
    ):
        assert part in content
    assert answer.mode == "model" and answer.notice is None
    assert answer.text == "华东区第一季度销售额为120万元[1]。"
    (citation,) = answer.citations
    assert (citation.n, citation.chunk_id, citation.document) == (1, "d1:0001", "销售报告.docx")
    assert citation.quote == "第一季度华东区销售额为120万元。"
    assert answer.metadata["assembly"]["tokens"]["total"] <= 4096 - 512
    assert answer.metadata["generation"]["num_ctx"] == 4096


def test_num_ctx_is_clamped_to_the_models_context_length(
    tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    fake_ollama.models[DEFAULT_MODEL] = ModelSpec(architecture="llama", context_length=2048)
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url, num_ctx=8192))
    with caplog.at_level(logging.WARNING, logger="officeqa.generation"):
        answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    generator.close()
    assert fake_ollama.chat_requests()[0]["options"]["num_ctx"] == 2048
    assert generator.context_length == 2048
    assert any("clamped" in r.message for r in caplog.records)
    assert answer.metadata["assembly"]["budget"]["window"] == 2048


def test_temperature_none_is_left_to_the_model_and_null_is_accepted(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url, temperature=None))
    assert answer_pipeline.ask("第一季度华东区销售额是多少？").mode == "model"
    generator.close()
    assert "temperature" not in fake_ollama.chat_requests()[0]["options"]
    raw = httpx.post(f"{fake_ollama.url}/api/chat", json={
        "model": DEFAULT_MODEL, "stream": False, "messages": [{"role": "user", "content": "hi"}],
        "options": {"num_ctx": 2048, "temperature": None},
    })
    assert raw.status_code == 200 and raw.json()["message"]["content"]


def test_streaming_reaches_the_caller_piece_by_piece(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    release = threading.Event()
    fake_ollama.add_reply(Reply(pieces=["第一季度", "华东区为120万元", "[1]。"], wait_after_first=release))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url, read_timeout_s=15.0))
    deltas: list[str] = []
    final = None
    for event in answer_pipeline.stream("第一季度华东区销售额是多少？"):
        if event.kind == "delta":
            if not deltas:
                assert not fake_ollama.finished.is_set(), "the first piece arrived only after the server finished"
                release.set()
            deltas.append(event.text)
        else:
            final = event.answer
    generator.close()
    assert deltas == ["第一季度", "华东区为120万元", "[1]。"]
    assert fake_ollama.chat_requests()[0]["stream"] is True
    assert final is not None and final.mode == "model" and [c.n for c in final.citations] == [1]


def assert_degraded(answer, kind: str) -> None:
    assert answer.mode == "extractive"
    assert answer.metadata["failure"]["kind"] == kind
    assert answer.notice and "摘录" in answer.notice
    assert "第一季度华东区销售额为120万元。 [1]" in answer.text
    assert answer.citations[0].chunk_id == "d1:0001"


def test_a_timeout_gives_the_degraded_answer_within_5_s(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_reply(Reply(delay_s=8.0))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url, read_timeout_s=1.0))
    started = time.monotonic()
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    elapsed = time.monotonic() - started
    generator.close()
    assert_degraded(answer, "timeout")
    assert elapsed < 5.0


@pytest.mark.parametrize("drop", ["before", "after_first"])
def test_a_dropped_connection_gives_the_degraded_answer(tmp_path: Path, fake_ollama: FakeOllama, drop: str) -> None:
    fake_ollama.add_reply(Reply(pieces=["部分", "回答"], drop=drop))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url))
    started = time.monotonic()
    events = list(answer_pipeline.stream("第一季度华东区销售额是多少？"))
    elapsed = time.monotonic() - started
    generator.close()
    answer = events[-1].answer
    assert_degraded(answer, "connection_dropped")
    assert elapsed < 5.0
    if drop == "after_first":
        assert [e.text for e in events[:-1]] == ["部分"]
        assert answer.metadata["partial_model_text"] == "部分"


def test_an_unreachable_server_degrades_without_waiting(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    answer_pipeline, generator = pipeline(make_settings(tmp_path, f"http://127.0.0.1:{port}", retries=2))
    started = time.monotonic()
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    elapsed = time.monotonic() - started
    generator.close()
    assert_degraded(answer, "unreachable")
    assert f"127.0.0.1:{port}" in answer.notice
    assert elapsed < 5.0


def test_a_missing_model_degrades(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url, model="nope:1b"))
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    generator.close()
    assert_degraded(answer, "model_missing")
    assert "nope:1b" in answer.notice
    assert fake_ollama.chat_requests() == []


def test_an_empty_answer_is_retried_once_then_reported(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    settings = make_settings(tmp_path, fake_ollama.url)
    fake_ollama.add_reply(Reply(pieces=["  ", "\n"]))
    fake_ollama.add_reply(Reply(pieces=[" ", "答案[1]"]))
    answer_pipeline, generator = pipeline(settings)
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    assert answer.mode == "model" and answer.metadata["generation"]["attempts"] == 2
    fake_ollama.add_reply(Reply(pieces=[" "]))
    fake_ollama.add_reply(Reply(pieces=["\n"]))
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    generator.close()
    assert_degraded(answer, "empty_answer")
    assert len(fake_ollama.chat_requests()) == 4


def test_prompt_eval_count_far_from_the_estimate_is_logged(
    tmp_path: Path, fake_ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    fake_ollama.add_reply(Reply(pieces=["答案[1]"], prompt_eval_count=5000))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url))
    with caplog.at_level(logging.WARNING, logger="officeqa.generation"):
        answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    generator.close()
    assert any("prompt_eval_count 5000 differs" in r.message for r in caplog.records)
    assert answer.metadata["generation"]["warnings"]


def test_invented_markers_are_removed_and_counted(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_reply(Reply(pieces=["华东区为120万元[1][7]，华南区为80万元[9]。"]))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url))
    answer = answer_pipeline.ask("第一季度各区销售额是多少？")
    generator.close()
    assert answer.text == "华东区为120万元[1]，华南区为80万元。"
    assert answer.metadata["markers_removed"] == 2
    assert [c.n for c in answer.citations] == [1]


def test_follow_up_is_rewritten_by_the_model_before_retrieval(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_reply(Reply(pieces=["第二季度华东区销售额是多少？"]))
    fake_ollama.add_reply(Reply(pieces=["第二季度华东区为150万元[2]。"]))
    retriever = Retriever()
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url), retriever)
    answer = answer_pipeline.ask("那第二季度呢？", [Turn("第一季度华东区销售额是多少？", "120万元[1]")])
    generator.close()
    assert retriever.queries == ["第二季度华东区销售额是多少？"]
    assert answer.metadata["rewrite"]["method"] == "model"
    rewrite_request = fake_ollama.chat_requests()[0]
    assert "那第二季度呢？" in rewrite_request["messages"][1]["content"]
    assert rewrite_request["options"]["num_ctx"] == 4096


def test_connection_errors_are_retried_with_backoff(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    generator = OllamaGenerator(OllamaSettings(host=f"http://127.0.0.1:{port}", retries=2, connect_timeout_s=1.0))
    with caplog.at_level(logging.INFO, logger="officeqa.generation"), pytest.raises(GenerationError) as info:
        generator.chat([{"role": "user", "content": "hi"}])
    generator.close()
    assert info.value.kind is FailureKind.UNREACHABLE
    assert [r.message.split(";")[1].strip() for r in caplog.records if "retrying" in r.message] == [
        "retrying in 0.25s", "retrying in 0.50s"]


def test_the_fake_speaks_tags_show_and_embed_to_the_real_client(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    assert [m.model for m in client.list().models] == [DEFAULT_MODEL]
    info = client.show(DEFAULT_MODEL)
    assert info.modelinfo["qwen2.context_length"] == 32768
    first = client.embed(model=DEFAULT_MODEL, input=["甲", "乙"]).embeddings
    again = client.embed(model=DEFAULT_MODEL, input="甲").embeddings
    assert len(first) == 2 and len(first[0]) == 16 and first[0] == again[0] != first[1]
    with pytest.raises(ollama.ResponseError):
        client.show("missing:latest")
    client.close()


def test_an_answer_without_markers_cites_every_material_as_unreferenced(
    tmp_path: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.add_reply(Reply(pieces=["华东区第一季度销售额为120万元。"]))
    fake_ollama.add_reply(Reply(pieces=["文档中未找到相关内容。"]))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url))
    answer = answer_pipeline.ask("第一季度华东区销售额是多少？")
    assert [(c.n, c.referenced) for c in answer.citations] == [(1, False), (2, False)]
    assert answer.citations[0].quote == "第一季度华东区销售额为120万元。"
    not_found = answer_pipeline.ask("公司的注册资本是多少？")
    generator.close()
    assert not_found.mode == "model" and not_found.citations == []


def test_an_english_question_gets_the_english_template(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_reply(Reply(pieces=["East region sales were 1.2 million in Q1 [1]."]))
    answer_pipeline, generator = pipeline(make_settings(tmp_path, fake_ollama.url))
    answer = answer_pipeline.ask("What were the East region sales in the first quarter?")
    generator.close()
    system, user = fake_ollama.chat_requests()[0]["messages"]
    assert system["content"].startswith("You are an assistant")
    assert "Question: What were the East region sales" in user["content"]
    assert 'reply exactly "Not found in the documents."' in user["content"]
    assert answer.language == "en" and [c.n for c in answer.citations] == [1]


def test_summaries_replace_chunks_that_do_not_fit(tmp_path: Path, fake_ollama: FakeOllama) -> None:
    long_hits = [SearchHit(f"d2:{i}", "d2", 1.0 - i / 10, f"第{i}节的详细内容。" * 120,
                           {"doc_id": "d2", "path": "/docs/年报.pdf", "page": i + 1}) for i in range(4)]
    settings = make_settings(tmp_path, fake_ollama.url, num_ctx=2048, answer_reserve_tokens=256)
    generator = OllamaGenerator(settings.ollama)
    answer_pipeline = AnswerPipeline(settings, lambda q, k: long_hits, generator,
                                     summary_of=lambda hit: f"{hit.chunk_id} 的摘要。")
    answer = answer_pipeline.ask("年报第3节讲了什么？")
    generator.close()
    assembly = answer.metadata["assembly"]
    assert assembly["steps"][0] == "summaries"
    assert "summary" in [item["form"] for item in assembly["included"]]
    assert "d2:3 的摘要。" in fake_ollama.chat_requests()[0]["messages"][1]["content"]
    assert assembly["tokens"]["total"] <= 2048 - 256
