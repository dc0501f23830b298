"""Unsafe regexes are refused at load, naming the rule; bounded ones are accepted."""

from __future__ import annotations

import pytest

from officeqa.errors import ConfigurationError
from retrieval.rules.loader import parse_rules_text
from retrieval.rules.matcher import MatchContext, RuleMatcher
from retrieval.rules.safety import RegexTimeout, RuleRegex, UnsafeRegex, check_regex


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


@pytest.mark.parametrize(
    "pattern",
    [
        "a{0,2000}a{0,2000}a{0,2000}b",  # the probe: minutes of `officeqa route`
        "a{0,50}a{0,50}$",
        "(a{0,50})(a{0,50})",  # groups do not hide the chain
        ".{0,40}\\d{0,40}",  # . overlaps \d
        ".{0,20}.{0,20}.{0,20}",
        ".{0,60}x.{0,60}",  # the first repeat can also eat the x between them
    ],
)
def test_stacked_repeats_over_overlapping_characters_are_refused(pattern: str) -> None:
    with pytest.raises(UnsafeRegex, match="stacked repeats"):
        check_regex(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        ".{0,30}x.{0,30}",  # 961 splits: under the limit
        "\\d{0,40}[a-z]{0,40}",  # disjoint characters cannot trade
        "[a-z]{0,40}-[a-z]{0,40}",  # a separator neither side can eat
        "\\d{1,4}[年/-]\\d{1,2}[月/-]\\d{1,2}",
        "(提取|列出).{0,20}(电话|手机).{0,20}",
    ],
)
def test_chains_that_cannot_explode_are_accepted(pattern: str) -> None:
    check_regex(pattern)


def test_a_running_search_is_stopped_by_the_timeout() -> None:
    """`re` cannot be interrupted; the rule regex runs with the regex module's timeout instead."""
    slow = RuleRegex("a{0,30}a{0,30}$", timeout_s=1e-5)  # accepted by the check, ~2M steps on this text
    with pytest.raises(RegexTimeout, match="ran longer than"):
        slow.search("a" * 2000 + "b")
    assert RuleRegex("a{1,30}b$").search("xaaab").group(0) == "aaab"
    assert RuleRegex("1[3-9]\\d{9}").search("电话13812345678").group(0) == "13812345678"


def test_a_timed_out_regex_counts_as_no_match_with_the_reason() -> None:
    text = """
rules:
  - id: slow_rule
    route: extract_email
    triggers: [{regex: ["a{0,30}a{0,30}$"]}]
"""
    matcher = RuleMatcher(parse_rules_text(text, source="user.yaml"))
    for trigger in matcher.rules[0].triggers:
        trigger.regex = [RuleRegex(r.pattern, timeout_s=1e-5) for r in trigger.regex]
    [evaluation], _ = matcher.evaluate("a" * 2000 + "b", MatchContext())
    assert not evaluation.matched and "regex timed out" in evaluation.reason
