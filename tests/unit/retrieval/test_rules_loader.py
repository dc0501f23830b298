"""Rule files: shipped rules load, user overrides merge by id, bad rules are refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from officeqa.errors import ConfigurationError
from officeqa.settings import RulesSettings
from retrieval.l0 import L0Router
from retrieval.rules.loader import HANDLER_ROUTES, load_rules, parse_rules_text


def test_shipped_rules_load_and_cover_every_route() -> None:
    rule_file = load_rules()
    routes = {r.route for r in rule_file.rules}
    assert routes >= HANDLER_ROUTES
    assert {"summary_tree", "compare", "chitchat"} <= routes
    assert len({r.id for r in rule_file.rules}) == len(rule_file.rules)
    assert all(r.description for r in rule_file.rules), "every shipped rule explains itself"


def test_user_file_replaces_adds_and_disables(tmp_path: Path) -> None:
    user = tmp_path / "my_rules.yaml"
    user.write_text(
        """
vocab:
  greeting: [早安]
rules:
  - id: compare
    enabled: false
  - id: extract_phone
    priority: 99
    confidence: 0.5
  - id: weekly_report
    name: 周报
    route: summary_tree
    priority: 90
    triggers: [{any: [周报]}]
""",
        encoding="utf-8",
    )
    rule_file = load_rules(user)
    by_id = {r.id: r for r in rule_file.rules}
    assert by_id["compare"].enabled is False
    assert by_id["extract_phone"].priority == 99 and by_id["extract_phone"].route == "extract_phone"
    assert rule_file.rules[-1].id == "weekly_report"
    # rules alone: the second stage would still find "你好" among the labelled greetings
    router = L0Router(RulesSettings(user_rules_file=str(user), second_stage="off"))
    assert router.route("对比两个版本").route != "compare"
    assert router.route("这周的周报").rule_id == "weekly_report"
    low = router.route("提取所有手机号")
    assert low.route == "extract_phone" and low.mode == "handler_then_model"
    assert router.route("早安").route == "chitchat"
    assert router.route("你好").route != "chitchat"  # the user's vocab replaced the shipped greeting set


def test_invalid_route_names_the_rule() -> None:
    with pytest.raises(ConfigurationError, match="bad_one"):
        parse_rules_text("rules:\n  - id: bad_one\n    route: extract_everything\n    triggers: [{any: [x]}]\n")


def test_misspelt_field_and_unknown_vocab_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="typo"):
        parse_rules_text("rules:\n  - id: typo\n    route: count\n    prority: 3\n    triggers: [{any: [x]}]\n")
    with pytest.raises(ConfigurationError, match="@nowhere"):
        parse_rules_text("rules:\n  - id: r\n    route: count\n    triggers: [{all: ['@nowhere']}]\n")


def test_missing_user_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot be read"):
        load_rules(tmp_path / "absent.yaml")


def test_public_names_are_pinned() -> None:
    import retrieval.handlers
    import retrieval.l0
    import retrieval.rules

    assert set(retrieval.l0.__all__) == {"L0Router", "RouteDecision", "get_router", "route", "run_handler"}
    assert set(retrieval.handlers.__all__) == {"Citation", "HandlerItem", "HandlerResult", "run_route"}
    assert {"load_rules", "RuleMatcher", "arbitrate", "check_regex", "normalize"} <= set(retrieval.rules.__all__)
    for module in (retrieval.l0, retrieval.handlers, retrieval.rules):
        assert all(hasattr(module, name) for name in module.__all__)
