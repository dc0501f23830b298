"""Scoring of real-report tasks: gold page cited, per-kind outcomes, "no figure", key points, the frozen split."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from eval.annual.build_tasks import figures, half
from eval.answer_metrics import check_expectation, states_figure
from eval.kinds import outcome_of, page_cited
from eval.tasks import load_tasks

ANNUAL = Path(__file__).resolve().parents[3] / "eval" / "annual"


def test_a_citation_covers_the_gold_page_of_the_gold_document_only() -> None:
    pages = {"hangtian_2019.pdf": [6]}
    assert page_cited([{"document": "hangtian_2019.pdf", "page": 6}], pages)
    assert page_cited([{"document": "hangtian_2019.pdf", "page": 5, "page_end": 7}], pages)
    assert not page_cited([{"document": "changchai_2019.pdf", "page": 6}], pages)
    assert not page_cited([{"document": "hangtian_2019.pdf", "page": 6, "referenced": False}], pages)
    assert not page_cited([{"document": "hangtian_2019.pdf"}], pages)


def test_not_in_report_must_say_so_and_state_no_figure() -> None:
    expect = {"not_found": True, "no_figure": True}
    assert check_expectation(expect, "未找到：本报告没有提供 2021 年的营业收入，只给出 2017–2019 年。").correct
    assert not check_expectation(expect, "未找到 2021 年数据；2019 年营业收入为 3,533,710,584.98 元。").correct
    assert states_figure("1,681.4") and states_figure("0.94") and not states_figure("2017–2019 年，第 6 页")


def test_summaries_need_most_key_points() -> None:
    expect = {"points": ["市场风险", "产业风险", "政策风险", "人才风险", "新能源汽车"]}
    assert check_expectation(expect, "市场风险、产业风险、政策风险").correct
    assert not check_expectation(expect, "市场风险、产业风险").correct


def test_outcomes_are_exact_refused_or_wrong() -> None:
    assert outcome_of(True, "3,533,710,584.98 元") == "exact"
    assert outcome_of(False, "未找到相关内容") == "refused"
    assert outcome_of(False, "营业收入为 1 元") == "wrong"


def test_gold_figures_are_scaled_by_their_unit_and_remarks_are_dropped() -> None:
    assert figures("C$1,681.4 million (up 14.8% from C$1,465.2 million in Fiscal 2021)") == [Decimal("1681400000")]
    assert figures("377,982,655.34元，占营业收入10.70%") == [Decimal("377982655.34"), Decimal("10.70")]


def test_the_committed_split_is_the_hash_split_and_loads() -> None:
    for name in ("tuning", "heldout"):
        tasks = load_tasks(ANNUAL / f"{name}.jsonl")
        assert tasks and all(t.kind in {"figure", "named_fact", "computed", "not_in_report", "summary"} for t in tasks)
        for line in (ANNUAL / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            raw = json.loads(line)
            document = raw["evidence"][0]["document"] if raw["evidence"] else next(iter(raw["pages"] or {}), None)
            if document:
                assert half({"file": document, "question": raw["question"]}) == name


def test_the_markdown_report_has_the_per_kind_table_only_for_real_report_sets() -> None:
    from eval.harness import EvalReport, TaskResult, summarize
    from eval.report_md import markdown

    real = TaskResult("a", "figure", "q", ["retrieve_qa"], answer="3 元", answer_correct=True, page_cited=True)
    text = markdown(EvalReport("extractive", "x", {}, {}, [real], summarize([real])))
    assert "| figure | 1 | 1 | 0 | 0 | 1/1 |" in text
    generated = TaskResult("b", "fact", "q", ["retrieve_qa"], answer="3 元", answer_correct=True)
    assert "gold page cited" not in markdown(EvalReport("extractive", "x", {}, {}, [generated], summarize([generated])))
