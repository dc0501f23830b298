"""Unsafe regexes are refused at load, naming the rule; bounded ones are accepted."""

from __future__ import annotations

import pytest

from officeqa.errors import ConfigurationError
from retrieval.rules.loader import parse_rules_text
from retrieval.rules.safety import UnsafeRegex, check_regex


@pytest.mark.parametrize(
    "pattern",
    [
        "(a+)+$",          # nested quantifier: the classic catastrophic backtracker
        "(a|aa)*",         # ambiguous alternation inside a repeat
        "(x|)+",           # empty alternative inside a repeat
        ".*电话",           # unbounded match-anything
        "合同.+金额",
        "[\\s\\S]*",
        "\\S*@",
        "[^,]*,",
        "(\\w)\\1",        # backreference
        "(?P<x>a)(?P=x)",
        "\\d+\\d+x",       # two unbounded quantifiers: polynomial backtracking
        "(a?){1,9}b",      # variable repeat nested in a repeat, even when bounded
        "(",               # not a regex at all
    ],
)
def test_unsafe_patterns_are_refused(pattern: str) -> None:
    with pytest.raises(UnsafeRegex):
        check_regex(pattern)


@pytest.mark.parametrize(
    "pattern",
    ["1[3-9]\\d{9}", "(提取|列出).{0,20}(电话|手机)", "^.{1,16}$", "(\\d{3}-){2}\\d{4}", "(foo|bar)+", "\\d+元"],
)
def test_bounded_patterns_are_accepted(pattern: str) -> None:
    check_regex(pattern)


def test_load_refuses_catastrophic_regex_and_names_the_rule() -> None:
    text = """
rules:
  - id: harmless
    route: extract_phone
    triggers: [{any: [电话]}]
  - id: evil_rule
    route: extract_email
    triggers: [{regex: ["(a+)+$"]}]
"""
    with pytest.raises(ConfigurationError) as info:
        parse_rules_text(text, source="user.yaml")
    message = str(info.value)
    assert "evil_rule" in message and "(a+)+$" in message and "nested" in message
