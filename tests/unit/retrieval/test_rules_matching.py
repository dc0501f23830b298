"""Normalisation, keyword matching, preconditions, arbitration, explain, input cap and time budget."""

from __future__ import annotations

from officeqa.settings import RulesSettings
from retrieval.l0 import L0Router, route
from retrieval.rules.arbitration import arbitrate
from retrieval.rules.loader import parse_rules_text
from retrieval.rules.matcher import KeywordScanner, MatchContext, RuleEvaluation, RuleMatcher
from retrieval.rules.normalize import normalize


def test_normalize_width_case_space_traditional() -> None:
    assert normalize("請提取ＥＭＡＩＬ　和   電話號碼（全部）￥１００") == "请提取email 和 电话号码(全部)¥100"


def test_scanner_finds_overlapping_keywords_and_respects_english_word_boundaries() -> None:
    scanner = KeywordScanner({"电话", "电话会议", "sum", "phone number"})
    assert scanner.scan("电话会议纪要") == {"电话", "电话会议"}
    assert scanner.scan("give me a summary") == set()
    assert scanner.scan("sum it, phone number") == {"sum", "phone number"}


def test_negative_keywords_stop_phone_extraction() -> None:
    assert route("电话会议纪要总结一下").route == "summary_tree"
    assert route("提取电话会议纪要里所有的电话号码").route != "extract_phone"
    assert route("提取所有电话号码").route == "extract_phone"
    assert route("這個合同的金額條款是什麼意思").route == "retrieve_qa"


def _rules(extra: str = "") -> RuleMatcher:
    return RuleMatcher(parse_rules_text(f"""
rules:
  - id: first
    route: extract_amount
    priority: 50
    confidence: 0.9
    triggers: [{{any: [金额]}}]
  - id: second
    route: extract_date
    priority: 50
    confidence: 0.9
    triggers: [{{any: [金额]}}]
  - id: tables_only
    route: table_aggregate
    priority: 60
    confidence: 0.5
    triggers: [{{all: [汇总]}}]
    preconditions: {{file_types: [xlsx, csv], table_columns_like: [地区]}}
{extra}"""))


def test_arbitration_priority_then_file_order_then_threshold() -> None:
    matcher = _rules()
    evaluations, _ = matcher.evaluate(normalize("金额"), MatchContext())
    assert arbitrate(evaluations, 0.8).rule_id == "first"  # tie on priority: earlier in the file wins
    evaluations, _ = matcher.evaluate(normalize("汇总金额"), MatchContext())
    won = arbitrate(evaluations, 0.8)
    assert won.rule_id == "tables_only" and won.mode == "handler_then_model"  # confidence 0.5 < 0.8
    nothing = arbitrate(matcher.evaluate("你好", MatchContext())[0], 0.8)
    assert (nothing.rule_id, nothing.route, nothing.mode) == (None, "retrieve_qa", "retrieve")


def test_preconditions_file_type_and_table_shape_with_explanations() -> None:
    matcher = _rules()
    evals, _ = matcher.evaluate("汇总金额", MatchContext(file_type="docx"))
    why = next(e for e in evals if e.rule_id == "tables_only")
    assert not why.matched and "file type 'docx'" in why.reason
    evals, _ = matcher.evaluate("汇总金额", MatchContext(file_type="xlsx", columns=["姓名", "金额"]))
    why = next(e for e in evals if e.rule_id == "tables_only")
    assert not why.matched and "no column named like" in why.reason
    evals, _ = matcher.evaluate("汇总金额", MatchContext(file_type="xlsx", columns=["所属地区", "金额"]))
    assert next(e for e in evals if e.rule_id == "tables_only").matched


def test_explain_says_for_every_rule_why() -> None:
    decision = route("按地区汇总销售额", file_type="xlsx", explain=True)
    assert decision.rule_id == "table_aggregate" and decision.mode == "answer"
    assert decision.params["group_by"] == "地区" and decision.params["value"] == "销售额"
    text = decision.explain_text()
    assert len(decision.evaluations) == len(text.splitlines())
    assert "=> table_aggregate" in text and "@group_marker=按" in text
    phone = next(e for e in decision.evaluations if e.rule_id == "extract_phone")
    assert not phone.matched and "missing" in phone.reason
    excluded = next(e for e in route("电话会议纪要", explain=True).evaluations if e.rule_id == "extract_phone")
    assert len(route("电话会议纪要").evaluations) < len(decision.evaluations)  # the fast path skips hopeless rules
    assert excluded.reason == "excluded by @phone_not=电话会议"


def test_adversarial_one_megabyte_instruction_is_capped_and_decided() -> None:
    settings = RulesSettings(max_input_chars=2_000, match_budget_ms=50.0)
    router = L0Router(settings)
    attack = "a" * 500_000 + "提取所有电话" + "(" * 300_000 + "电话会议" * 50_000
    assert len(attack) >= 1_000_000
    decision = router.route(attack)
    assert decision.input_capped is True
    assert len(decision.instruction) <= 2_000
    assert decision.route == "retrieve_qa"  # the request beyond the cap is not seen at all
    # the rules stage (the second stage loads its model on first use; its cost is measured in bench/bench_l0.py)
    assert decision.rules_ms < 1_000  # generous: the budget is 50 ms, a backtracking regex would take minutes
    dense = "提取电话号码(aaaa" * 100_000  # keyword hits everywhere inside the cap
    decision = router.route(dense)
    assert decision.input_capped and decision.route == "extract_phone"
    assert decision.rules_ms < 1_000


def test_adversarial_instructions_for_every_parameter_parser_stay_fast() -> None:
    router = L0Router(RulesSettings(max_input_chars=2_000))
    cores = ("按" * 1_990 + "汇总销售额", "销售额大于" * 399 + "有几条", "是" * 1_990 + "有多少条",
             "列出所有客户" * 333, "sum sales by " * 150, "count rows where is is " * 85)
    for core in cores:
        decision = router.route(core[:2_000] + "x" * 1_000_000)  # the worst case sits inside the cap
        assert decision.input_capped and decision.mode != "retrieve", core[:12]
        assert decision.params, core[:12]
        assert decision.elapsed_ms < 1_000, (core[:12], decision.elapsed_ms)  # generous; the budget is 50 ms


def test_time_budget_stops_evaluating_and_says_so() -> None:
    router = L0Router(RulesSettings(match_budget_ms=0.0))
    decision = router.route("提取所有电话号码", explain=True)
    assert decision.budget_exceeded is True
    assert any(e.reason == "not evaluated: time budget exceeded" for e in decision.evaluations)
    assert decision.route == "retrieve_qa"


def test_two_hundred_synthetic_rules_compile_once_and_route() -> None:
    extra = "\n".join(
        f"  - id: syn{i}\n    route: retrieve_qa\n    priority: 1\n    triggers: [{{any: [关键词{i}, kw{i}x]}}]"
        for i in range(200)
    )
    matcher = _rules(extra)
    assert len(matcher.rules) == 203
    evals, _ = matcher.evaluate(normalize("请看 关键词137"), MatchContext())
    assert [e.rule_id for e in evals if e.matched] == ["syn137"]


def test_rule_evaluation_json_shape() -> None:
    e = RuleEvaluation("r", "count", 5, 0.9, 0, True, "trigger 0: matched x", trigger=0, terms=["x"])
    assert e.to_json() == {"rule_id": "r", "route": "count", "matched": True, "reason": "trigger 0: matched x",
                           "priority": 5, "confidence": 0.9, "trigger": 0, "terms": ["x"]}
