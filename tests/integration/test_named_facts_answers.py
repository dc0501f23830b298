"""Named facts of reports through the question service, with no model, over really indexed PDFs: the eval's
generated 年度报告 (公司简介 tables, 重要提示 sentences, a 高管 table) and a 10-K-like report generated here (cover
fields printed under their values in brackets, a trading-symbol table, an auditor's report, a signature table).

Each answer must hold the value, cite the page it is printed on, quote the row or sentence, and never take a
name from the other company's report; a question about someone else's field is left to the other answerers.
"""

from __future__ import annotations

import io

import pytest
from report_kb import ANNUAL_NAME as CHINESE
from report_kb import index_folder
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table

from eval.kb.pdf_docs import annual_report
from retrieval.answering import Answer
from retrieval.service import QuestionService

ENGLISH = "northwind_10k_2024.pdf"


def _ten_k() -> bytes:
    """A 10-K of Northwind Analytics Inc.: cover (p. 1), business (p. 2), auditor's report (p. 3), signatures (p. 4)."""
    styles = getSampleStyleSheet()
    body, title = styles["BodyText"], styles["Title"]
    flow = [
        Paragraph("UNITED STATES SECURITIES AND EXCHANGE COMMISSION", title),
        Paragraph("FORM 10-K", title),
        Paragraph("ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934", body),
        Paragraph("For the fiscal year ended December 31, 2024", body),
        Paragraph("Northwind Analytics Inc.", title),
        Paragraph("(Exact name of registrant as specified in its charter)", body),
        Paragraph("500 Harbor Street, Boston, Massachusetts 02110", body),
        Paragraph("(Address of principal executive offices) (Zip Code)", body),
        Table([["Title of each class", "Trading Symbol(s)", "Name of each exchange on which registered"],
               ["Common Stock, $0.001 par value", "NWAN", "The Nasdaq Global Select Market"]],
              style=[("GRID", (0, 0), (-1, -1), 0.5, "black")]),
        PageBreak(),
        Paragraph("Item 1. Business", styles["Heading1"]),
        Paragraph("Northwind Analytics Inc. sells forecasting software to retailers. Net sales in fiscal 2024 were "
                  "$412.5 million, up from $380.1 million in fiscal 2023.", body),
        PageBreak(),
        Paragraph("Report of Independent Registered Public Accounting Firm", styles["Heading1"]),
        Paragraph("To the Stockholders and the Board of Directors of Northwind Analytics Inc. We have audited the "
                  "accompanying consolidated balance sheets of Northwind Analytics Inc. as of December 31, 2024.",
                  body),
        Paragraph("/s/ Ernst &amp; Young LLP", body),
        Paragraph("We have served as the Company's auditor since 2015.", body),
        PageBreak(),
        Paragraph("SIGNATURES", styles["Heading1"]),
        Table([["Signature", "Title", "Date"],
               ["/s/ Maria Lopez", "Chief Executive Officer and Director (Principal Executive Officer)",
                "February 20, 2025"],
               ["/s/ David Chen", "Chief Financial Officer (Principal Financial Officer)", "February 20, 2025"]],
              style=[("GRID", (0, 0), (-1, -1), 0.5, "black")]),
    ]
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=LETTER, title="Northwind Analytics Inc. Form 10-K 2024").build(flow)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    settings, docs = index_folder(tmp_path_factory.mktemp("named"), {CHINESE: annual_report(), ENGLISH: _ten_k()})
    with QuestionService.open(settings) as opened:
        yield opened, docs


def _named(answer: Answer) -> bool:
    return "named_facts" in answer.metadata and answer.metadata["route"]["route"] == "report_facts"


def _pages(answer: Answer) -> list[int | None]:
    return [c.page for c in answer.citations]


@pytest.mark.parametrize(
    ("question", "value", "page", "quote"),
    [
        ("星河智能的法定代表人是谁？", "林国栋", 3, "法定代表人 | 林国栋"),
        ("星河智能的董事会秘书是谁？", "沈佳怡", 3, "董事会秘书 | 姓名 | 沈佳怡"),
        ("星河智能的注册地址在哪里？", "杭州市余杭区文一西路998号", 3, "注册地址 | 杭州市余杭区文一西路998号"),
        ("星河智能的股票代码和简称是什么？", "688999", 3, "股票代码 | 688999"),
        ("星河智能聘请的会计师事务所的报酬是多少？", None, None, None),  # an amount: not a named field
        ("星河智能2023年聘请的会计师事务所是哪家？", "天健会计师事务所（特殊普通合伙）", 2,
         "为本公司出具了标准无保留意见的审计报告"),
        ("星河智能2023年度的利润分配预案是什么？", "每10股派发现金红利3.50元", 2, "利润分配预案："),
        ("星河智能的财务总监是谁？", "何静", None, "何静"),
    ],
)
def test_chinese_report_fields_come_with_page_and_row(service, question: str, value: str | None, page: int | None,
                                                      quote: str | None) -> None:
    answer = service[0].ask(question)
    if value is None:
        assert not _named(answer)
        return
    assert _named(answer) and answer.mode == "rule", answer.text
    assert value in answer.text and answer.citations[0].document == CHINESE
    if page is not None:
        assert answer.citations[0].page == page
    assert quote in answer.citations[0].quote and quote in answer.text
    assert "Northwind" not in answer.text and str(service[1]) not in answer.text


def test_ten_k_cover_auditor_and_officers(service) -> None:
    ask = service[0].ask
    office = ask("Where are Northwind Analytics' principal executive offices?")
    assert _named(office) and "500 Harbor Street, Boston, Massachusetts 02110" in office.text and _pages(office) == [1]
    ticker = ask("What is the ticker symbol of Northwind Analytics?")
    assert _named(ticker) and "NWAN" in ticker.text and _pages(ticker)[0] == 1
    auditor = ask("Who audited Northwind Analytics Inc.?")
    assert _named(auditor) and "Ernst & Young LLP" in auditor.text and _pages(auditor) == [3]
    officers = ask("Who are the CEO and the CFO of Northwind Analytics?")
    assert _named(officers) and "Maria Lopez" in officers.text and "David Chen" in officers.text
    assert _pages(officers) == [4, 4] and "林国栋" not in officers.text and "何静" not in officers.text


def test_a_field_the_report_does_not_print_is_said_so_or_left_to_retrieval(service) -> None:
    ask = service[0].ask
    both = ask("Who is the CEO of Northwind Analytics and what is its registered address?")
    assert _named(both) and "Maria Lopez" in both.text and "Not found in this report: registered address" in both.text
    nothing = ask("Who is the board secretary of Northwind Analytics?")
    assert not _named(nothing)  # nothing asked is printed: retrieval answers, no name is guessed
    other = ask("星河智能控股股东的法定代表人是谁？")  # the controlling shareholder's, not the company's
    assert not _named(other) and "林国栋" not in other.text.split("\n")[0]
