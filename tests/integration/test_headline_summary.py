"""Business-overview and financial-performance summaries through the question service with no model, over the eval's
generated 年度报告 really indexed (facts on, extractive summary tree built): the report's headline figures first, as
printed, each cited with its page, then the operations section's own sentences with no table rows.
"""

from __future__ import annotations

import re

import pytest
from report_kb import ANNUAL_NAME as NAME
from report_kb import ask_with_model, fake_ollama_settings, index_folder, record_prompts

from eval.kb.pdf_docs import ANNUAL, annual_report
from retrieval.answerers.headline_summary import asks_overview
from retrieval.section_prose import is_prose
from retrieval.service import QuestionService


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    settings, _ = index_folder(tmp_path_factory.mktemp("headline"), {NAME: annual_report()}, summaries=True)
    with QuestionService.open(settings) as opened:
        yield opened


@pytest.mark.parametrize("question", ["概括星河智能2023年的经营情况。", "总结星河智能2023年的财务表现。"])
def test_headline_figures_lead_then_the_sections_prose(service, question: str) -> None:
    answer = service.ask(question)
    assert answer.mode == "extractive" and "headline_summary" in answer.metadata, answer.text
    head, _, prose = answer.text.partition("报告对经营情况的说明：")
    for figure in (ANNUAL.revenue, ANNUAL.net_profit, ANNUAL.cash_flow, ANNUAL.assets):
        assert f"{figure:,.2f}" in head, head
    growth = (ANNUAL.revenue / ANNUAL.revenue_prev - 1) * 100
    assert f"{growth:.2f}%" in head  # the change the key-data row prints beside the figure
    revenue = next(c for c in answer.citations if f"{ANNUAL.revenue:,.2f}" in c.quote)
    assert revenue.page is not None and revenue.document == NAME
    lines = [line for line in prose.splitlines() if line.startswith("- ")]
    assert lines, answer.text
    assert not any("|" in line or re.search(r"列\d", line) for line in lines)  # sentences, not table rows
    cited = {c.n for c in answer.citations}
    assert all(int(re.search(r"\[(\d+)\]$", line).group(1)) in cited for line in lines)  # each sentence is cited


def test_one_amount_is_not_a_summary(service) -> None:
    answer = service.ask("星河智能2023年的营业收入是多少？")
    assert "headline_summary" not in answer.metadata
    assert f"{ANNUAL.revenue:,.2f}" in answer.text


@pytest.mark.parametrize(("question", "expected"), [
    ("概括航天电器2019年的经营情况。", True),
    ("经营情况讨论与分析讲了什么？", True),
    ("Summarize Kruger Products' financial performance in Fiscal 2022.", True),
    ("How did the company perform in 2022?", True),
    ("航天电器2019年营业收入是多少？", False),
    ("年报中提示了哪些主要风险？", False),
    ("What was the revenue growth rate in 2022?", False),
])
def test_which_questions_ask_for_an_overview(question: str, expected: bool) -> None:
    assert asks_overview(question) is expected


@pytest.mark.parametrize(("sentence", "expected"), [
    ("2019年公司全面落实“领域营销”市场策略，新产品、新市场和新领域取得突破性进展。", True),
    ("列2: 原材料, 2019年: 1,132,025,675.50, 列4: 49.38%, 2018年: 863,903,457.82", False),
    ("营业收入 | 3,533,710,584.98 | 2,834,084,194.08 | 24.69%", False),
    ("□ 适用 √ 不适用", False),
    ("The increase in revenue was due to selling price increases in all segments and regions.", True),
    ("Revenue 1,681.4 1,465.2 1,516.0 216.2 (50.8)", False),
])
def test_prose_is_told_from_table_text(sentence: str, expected: bool) -> None:
    assert is_prose(sentence) is expected


def test_with_a_model_the_headline_figures_are_among_its_materials(tmp_path, fake_ollama) -> None:
    prompts = record_prompts(fake_ollama, "营业收入增长较快[1]。")
    settings, _ = index_folder(tmp_path, {NAME: annual_report()}, summaries=True,
                               ollama=fake_ollama_settings(fake_ollama.url))
    answer = ask_with_model(settings, "概括星河智能2023年的经营情况。")
    assert answer.mode == "model", answer.metadata
    assert prompts and f"{ANNUAL.revenue:,.2f}" in prompts[-1] and f"{ANNUAL.cash_flow:,.2f}" in prompts[-1]
