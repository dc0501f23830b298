"""Report-topic questions through the question service with no model ("有哪些风险", "发展战略和经营计划"), over the
eval's generated 年度报告 really indexed with its extractive summary tree: answered from the tree's section on the
topic (not its root summary), then that section's own items quoted, each cited with its page.
"""

from __future__ import annotations

import pytest
from report_kb import ANNUAL_NAME as NAME
from report_kb import ask_with_model, fake_ollama_settings, index_folder, record_prompts

from eval.kb.pdf_docs import annual_report
from retrieval.service import QuestionService

RISKS = ("技术迭代风险", "市场竞争加剧风险", "客户集中度风险", "应收账款回收风险", "核心人才流失风险",
         "原材料价格波动风险")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    settings, docs = index_folder(tmp_path_factory.mktemp("topics"), {NAME: annual_report()}, summaries=True)
    with QuestionService.open(settings) as opened:
        yield opened, docs


def test_risks_come_from_the_risk_section_with_its_items_quoted(service) -> None:
    answer = service[0].ask("星河智能年报中提示了哪些主要风险？")
    summary = answer.metadata["summary"]
    assert answer.metadata["route"]["route"] == "summary_tree" and answer.mode == "extractive"
    assert any("可能面对的风险" in title for title in summary["topic_sections"]), summary
    assert "摘要：" not in answer.text  # the document's root summary is not the answer to a topic question
    named = [risk for risk in RISKS if risk in answer.text]
    assert len(named) >= 5, answer.text
    risk_pages = {c.page for c in answer.citations if any(r in c.quote for r in RISKS)}
    assert risk_pages and None not in risk_pages and str(service[1]) not in answer.text


def test_strategy_and_plan_come_from_the_outlook_section(service) -> None:
    answer = service[0].ask("星河智能的发展战略和经营计划是什么？")
    assert answer.metadata["route"]["route"] == "summary_tree", answer.text
    assert "算法驱动、软硬一体" in answer.text and "新增行业标杆客户30家以上" in answer.text


def test_an_amount_about_a_topic_is_not_a_summary(service) -> None:
    answer = service[0].ask("星河智能前五名客户销售额占比是多少？")  # names a risk's subject, asks an amount
    assert "topic_sections" not in answer.metadata.get("summary", {})


def test_with_a_model_the_topic_sections_and_their_items_are_its_materials(tmp_path, fake_ollama) -> None:
    prompts = record_prompts(fake_ollama, "主要风险包括技术迭代风险和客户集中度风险[1]。")
    settings, _ = index_folder(tmp_path, {NAME: annual_report()}, summaries=True,
                               ollama=fake_ollama_settings(fake_ollama.url))
    answer = ask_with_model(settings, "星河智能年报中提示了哪些主要风险？")
    assert answer.mode == "model" and answer.metadata["summary"]["topic_sections"], answer.metadata
    assert prompts and "可能面对的风险" in prompts[-1]
    assert sum(risk in prompts[-1] for risk in RISKS) >= 5  # the section's own items, not only its summary
