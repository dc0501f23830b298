"""Headings by wording: which short lines open sections, and at which level."""

from __future__ import annotations

import pytest

from indexing.parsing.headings import clause_prefix, heading_level, is_heading_candidate


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("第一编 总则", 1),
        ("第一章 总则", 1),
        ("第二节 合同的订立", 2),
        ("第三条 违约责任", 3),
        ("第十一条", 3),
        ("一、项目概况", 2),
        ("（二）付款方式", 3),
        ("(三) 验收", 3),
        ("1.1 范围", 2),
        ("2.3.1 Chart with caption", 3),
        ("Chapter 3 Methods", 1),
        ("Section 2.1 Scope", 2),
    ],
)
def test_heading_wording(text: str, level: int) -> None:
    assert heading_level(text) == level


@pytest.mark.parametrize(
    "text",
    [
        "第十一条 甲方应当在三日内付款。",  # a clause sentence, not a heading
        "一、项目概况：",  # ends like a lead-in
        "本合同一式两份",  # plain text
        "1.5",  # a number
        "第一章 " + "很长的标题" * 10,  # too long
        "第一章 总则\n第一条",  # more than one line
        "",
    ],
)
def test_not_headings(text: str) -> None:
    assert heading_level(text) is None


def test_heading_candidate_shape() -> None:
    assert is_heading_candidate("Project Overview")
    assert is_heading_candidate("项目概况")
    assert not is_heading_candidate("Note: see below.")
    assert not is_heading_candidate("注：")
    assert not is_heading_candidate("12,345")
    assert not is_heading_candidate("x" * 41)


def test_clause_prefix() -> None:
    assert clause_prefix("第十一条 甲方应当在三日内付款。") == "第十一条"
    assert clause_prefix("第三章总则") == "第三章"
    assert clause_prefix("本条款第三条") is None
