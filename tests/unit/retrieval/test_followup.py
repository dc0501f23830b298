"""Follow-up questions become standalone questions (rule-based fallback)."""

from __future__ import annotations

import pytest

from retrieval.followup import Turn, fragment_of, looks_like_followup, rewrite_followup, rule_rewrite


@pytest.mark.parametrize(
    ("question", "previous", "expected"),
    [
        ("那第二季度呢？", "第一季度华东区销售额是多少", "第二季度华东区销售额是多少"),
        ("那华南区呢？", "第一季度华东区销售额是多少", "第一季度华南区销售额是多少"),
        ("2023年呢", "2022年的营收是多少？", "2023年的营收是多少？"),
        ("第五条呢？", "第三条规定了什么？", "第五条规定了什么？"),
        ("what about Q2?", "What were East region sales in Q1?", "What were East region sales in Q2?"),
        ("那净利润呢", "第一季度华东区销售额是多少", "第一季度华东区销售额是多少（净利润）"),
    ],
)
def test_rule_rewrite_carries_the_subject_over(question: str, previous: str, expected: str) -> None:
    assert rule_rewrite(question, previous) == expected


def test_followup_detection_and_fragment() -> None:
    assert fragment_of("那第二季度呢？") == "第二季度"
    assert looks_like_followup("那第二季度呢？")
    assert looks_like_followup("它的生效日期是哪天？")
    assert not looks_like_followup("公司差旅报销标准中高铁座位等级是如何规定的？")


def test_rewrite_without_history_or_model() -> None:
    assert rewrite_followup("那第二季度呢？", []).method == "none"
    rewrite = rewrite_followup("那第二季度呢？", [Turn("第一季度华东区销售额是多少", "120万元")])
    assert (rewrite.standalone, rewrite.method) == ("第二季度华东区销售额是多少", "rule")


def test_a_long_self_contained_question_is_left_alone() -> None:
    question = "公司其他福利有哪些具体的申请流程和审批要求？"
    assert rule_rewrite(question, "第一季度华东区销售额是多少") == question
    assert rule_rewrite("它的生效日期是哪天？", "差旅报销制度") == "差旅报销制度（它的生效日期是哪天）"


def test_a_long_follow_up_led_by_na_keeps_the_subject_of_the_previous_question() -> None:
    from retrieval.followup import rule_rewrite

    rewritten = rule_rewrite("那第二期款什么时候付？付多少？", "星河智能和蓝海物流签的技术服务合同，总金额是多少？")
    assert rewritten.startswith("星河智能和蓝海物流签的技术服务合同，第二期款什么时候付")
