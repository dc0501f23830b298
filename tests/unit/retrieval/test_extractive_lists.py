"""Issue 23's extractive answers: a list question quotes every item of the list found, each quote once, and a
greeting gets a short reply instead of quotes (the service path is checked on a real knowledge base)."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from officeqa.text_tokens import tokenize_for_bm25
from prompts.assembler import Material
from retrieval.extractive import asks_for_list, extractive_answer
from retrieval.service import QuestionService
from retrieval.small_talk import is_small_talk

ACTIONS = [("完成新版官网上线", "陈晓"), ("整理客户回访名单并逐一回访", "刘婷"), ("提交第三季度采购预算", "王强"),
           ("组织新员工安全培训", "赵丽"), ("评估仓储系统供应商报价", "孙浩")]


def _mat(i: int, text: str, kind: str = "paragraph") -> Material:
    return Material(text=text, source=f"s{i}", score=1.0, chunk_id=f"c{i}", document="纪要.docx",
                    meta={"doc_id": "d", "path": "/kb/纪要.docx", "heading_path": "会议纪要 > 行动项", "kind": kind})


def _minutes() -> list[Material]:
    rows = "\n".join(f"序号: {n}, 行动项: {item}, 负责人: {owner}" for n, (item, owner) in enumerate(ACTIONS, 1))
    return [_mat(0, "会议确定了以下行动项："), _mat(1, "序号 | 行动项 | 负责人\n" + rows, kind="table"),
            _mat(2, "下次会议由周明负责通知。")]


def test_a_list_question_quotes_every_row_of_the_table_it_found() -> None:
    answer = extractive_answer("这次会议确定了哪些行动项？分别由谁负责？", _minutes(), tokenize=tokenize_for_bm25)
    for item, owner in ACTIONS:
        assert item in answer.text and owner in answer.text
    rows = [line for line in answer.text.splitlines() if "行动项:" in line]
    assert len(rows) == len(ACTIONS) and len(set(rows)) == len(rows)  # all five, each once, in table order
    assert rows[0].find("完成新版官网上线") >= 0 and "孙浩" in rows[-1]


def test_a_plain_question_still_quotes_only_the_best_sentences() -> None:
    answer = extractive_answer("评估仓储系统供应商报价由谁负责？", _minutes(), tokenize=tokenize_for_bm25)
    assert "孙浩" in answer.text and "陈晓" not in answer.text


def test_each_quote_once() -> None:
    text = "第二季度的行动计划如下：\n上线会员积分商城\n在华南区开设两家体验店\n完成618大促活动方案"
    answer = extractive_answer("第二季度的行动计划有哪些？", [_mat(0, text), _mat(1, text)], tokenize=tokenize_for_bm25)
    lines = answer.text.splitlines()[1:]
    assert all(("上线会员积分商城" in line) for line in lines[:1])
    assert sum(line.count("在华南区开设两家体验店") for line in lines) == 1


@pytest.mark.parametrize("message", ["hi", "Hello!", "你好", "您好！", "谢谢", "谢谢！", "thanks", "Thank you.",
                                     "你好啊",
                                     "好的，谢谢", "bye"])
def test_small_talk(message: str) -> None:
    assert is_small_talk(message)


@pytest.mark.parametrize("message", ["你好，年假有几天？", "hi, what is the leave policy", "谢谢你们的合同在哪", "订单",
                                     "好的合同模板有哪些", ""])
def test_not_small_talk(message: str) -> None:
    assert not is_small_talk(message)


def test_list_questions() -> None:
    assert asks_for_list("这次会议确定了哪些行动项？") and asks_for_list("list the expense categories")
    assert not asks_for_list("年假有几天？")


@pytest.mark.slow
def test_a_greeting_gets_what_the_assistant_can_do_not_quotes(tmp_path: Path) -> None:
    files = tmp_path / "kb"
    files.mkdir()
    (files / "football.md").write_text("# 比赛\n\nHi-Tech 队以 3:1 战胜对手，hi 球迷们欢呼。\n", encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with open_knowledge_base(settings) as kb:
        kb.index_paths([files])
    with QuestionService.open(settings, generator=None) as service:
        for greeting, word in (("hi", "Hello"), ("你好", "你好"), ("谢谢！", "你好")):
            answer = service.ask(greeting)
            assert answer.citations == [] and "球迷" not in answer.text and "3:1" not in answer.text
            assert answer.text.startswith(word) and answer.metadata["small_talk"] is True
        assert "3:1" in service.ask("Hi-Tech 队的比分是多少？").text  # a question with content is still answered
