"""The retrieval query of a scoped question drops the words that chose the scope (pure function, literals)."""

from __future__ import annotations

from retrieval.answer_texts import COMPARE_WORDS
from retrieval.search import without_naming_words


def test_a_comparison_keeps_only_what_it_asks_about():
    naming = ["信息安全管理制度", *COMPARE_WORDS, "杭州星河智能科技股份有限公司信息安全管理制度"]
    got = without_naming_words("对比新旧两版信息安全管理制度，密码要求有哪些变化？", naming)
    assert "密码要求" in got
    assert "信息安全管理制度" not in got and "对比" not in got and "两版" not in got


def test_longer_names_go_first():
    assert without_naming_words("星河公司年报的营业收入", ["星河", "星河公司年报"]) == "的营业收入"


def test_a_query_that_only_names_documents_stays_as_it_is():
    assert without_naming_words("信息安全管理制度", ["信息安全管理制度"]) == "信息安全管理制度"
    assert without_naming_words("总结一下会议纪要", ["会议纪要", "总结一下"]) == "总结一下会议纪要"


def test_nothing_to_drop_leaves_the_query_unchanged():
    assert without_naming_words("密码长度要求？", []) == "密码长度要求？"
    assert without_naming_words("密码长度要求？", ["x"]) == "密码长度要求？"  # one-character words are kept
