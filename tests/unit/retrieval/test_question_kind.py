"""Yes/no questions and questions about a document's structure, told from questions that only share words."""

from __future__ import annotations

import pytest

from retrieval.question_kind import asks_for_outline, asks_for_rule, is_yes_no


@pytest.mark.parametrize(
    "question",
    [
        "Did ACRES Commercial Realty Corp. outline any new ESG initiatives in the annual report?",
        "Did Liberty Broadband Corporation announce a share buyback plan in the annual report? If there is no mention, "
        "return False.",
        "Does the handbook allow remote work?",
        "Is there a penalty clause in the contract?",
        "年报中是否提到了股份回购计划？",
        "合同里有没有违约金条款？",
        "这份通知提到国庆节调休了吗？",
    ],
)
def test_yes_no_questions(question: str) -> None:
    assert is_yes_no(question)
    assert not asks_for_rule(question, "outline") and not asks_for_rule(question, "extract_phone")


@pytest.mark.parametrize(
    "question",
    [
        "What was the total revenue of Medallion Financial Corp.?",
        "How many employees did Odyssey Gold have?",
        "Did the CFO sign which report?",  # a wh-word: not a plain yes/no
        "是否可以告诉我年假有几天？",
        "合同总金额是多少？",
        "Which leadership positions changed at Westwater Resources, Inc.?",
    ],
)
def test_other_questions_are_not_yes_no(question: str) -> None:
    assert not is_yes_no(question)


@pytest.mark.parametrize(
    "question",
    [
        "这本手册的目录是什么",
        "这份文件包括哪些章节",
        "列出所有章节",
        "列出各级标题",
        "Show me the outline of the handbook.",
        "what are the chapters of this handbook",
        "show the table of contents",
        "outline of this document",
    ],
)
def test_structure_questions_ask_for_the_outline(question: str) -> None:
    assert asks_for_outline(question) and asks_for_rule(question, "outline")


@pytest.mark.parametrize(
    "question",
    [
        "Did ACRES outline new ESG initiatives?",
        "What strategy did the board outline for 2023?",
        "Which risks are outlined in the annual report?",
    ],
)
def test_outline_as_a_verb_is_no_outline_question(question: str) -> None:
    assert not asks_for_outline(question)
