"""Questions the knowledge base cannot answer, through the question service with no model, over the eval's generated
年度报告 and an English memo really indexed: a company no document holds, named by its short name or a possessive
("贵州茅台2023年…", "Procter & Gamble's …"), and a share class the report lists no code for ("H股股票代码"). Each is
said so and states no figure; the questions the report does answer are still answered.
"""

from __future__ import annotations

import pytest
from report_kb import ANNUAL_NAME as NAME
from report_kb import index_folder

from eval.answer_metrics import says_not_found, states_figure
from eval.kb.pdf_docs import ANNUAL, annual_report
from retrieval.answerers.unknown_company import leading_company
from retrieval.service import QuestionService

MEMO = """# Northwind Logistics partnership memo

Northwind Logistics will pilot the dispatch terminals in two warehouses from March. Its net sales grew in 2023.
"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    settings, _ = index_folder(tmp_path_factory.mktemp("absent"), {NAME: annual_report(), "northwind_memo.md": MEMO})
    with QuestionService.open(settings) as opened:
        yield opened


@pytest.mark.parametrize("question", ["贵州茅台2023年的营业收入是多少？",
                                      "What were Procter & Gamble's net sales in 2023?"])
def test_a_company_no_document_holds_is_said_absent(service, question: str) -> None:
    answer = service.ask(question)
    assert says_not_found(answer.text) and not states_figure(answer.text), answer.text
    assert answer.metadata.get("not_in_knowledge_base"), answer.metadata
    assert "星河智能" in answer.text or "Xinghe" in answer.text  # what the knowledge base does hold


@pytest.mark.parametrize("question", ["星河智能2023年的营业收入是多少？", "What were Northwind Logistics' net sales?"])
def test_a_name_the_documents_hold_is_not_called_absent(service, question: str) -> None:
    answer = service.ask(question)
    assert "not_in_knowledge_base" not in answer.metadata, answer.text
    if question.startswith("星河"):
        assert f"{ANNUAL.revenue:,.2f}" in answer.text


def test_an_h_share_code_of_a_report_listing_none_is_said_absent(service) -> None:
    answer = service.ask("星河智能的H股股票代码是什么？")
    assert says_not_found(answer.text) and "688999" not in answer.text, answer.text
    plain = service.ask("星河智能的股票代码是什么？")
    assert "688999" in plain.text


@pytest.mark.parametrize(("question", "name"), [
    ("贵州茅台2019年的营业收入是多少？", "贵州茅台"),
    ("请问星河智能2023年的营业收入是多少？", "星河智能"),
    ("What were Procter & Gamble's net sales in fiscal 2022?", "Procter & Gamble"),
    ("What was Kruger Products' revenue?", "Kruger Products"),
    ("公司2019年的营业收入是多少？", None),  # a generic word is no company
    ("年报中提示了哪些主要风险？", None),
    ("What was the CEO's salary?", None),
])
def test_the_leading_company_of_a_question(question: str, name: str | None) -> None:
    assert leading_company(question) == name
