"""English 10-K statements printed as text (dot leaders, spaced parentheses, a dated header), the ERC's
phrasing of "the latest figure", metric synonyms, and the currency a question asks for (no model)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from report_blocks import LEADER, para, report_of

from indexing.reports.currency import iso_currency, report_currency
from indexing.reports.extract import extract_report
from indexing.reports.text_tables import data_rows, split_rows
from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.reports.answer import answer_from_facts
from retrieval.reports.facts import Report, load_report
from retrieval.reports.lookup import column_term


def _bank(extra: str = "") -> ParsedDocument:
    blocks = [
        Block(BlockType.HEADING, text="FNCB BANCORP, INC. 2022 ANNUAL REPORT", level=1, page=1),
        para("Annual report on Form 10-K filed with the Securities and Exchange Commission " * 5 + extra, 1),
        para("for the fiscal year ended December 31, 2022", 1),
        Block(BlockType.HEADING, text="Selected Financial Highlights", level=2, page=2),
        para("Asset Quality Data: 2022 2021 2020", 2),
        para("Non-performing loans/total loans 0.25% 0.39% 0.62% Net charge offs/loans 0.02% (0.03%) (0.12%)", 2),
        Block(BlockType.HEADING, text="CONSOLIDATED STATEMENTS OF CASH FLOWS", level=2, page=71),
        para("December 31, (in thousands) 2022 2021 Cash flows from operating activities:", 71),
        para(f"Net income{LEADER}$ 20,445 $ 21,371", 71),
        para(f"Equity in trust{LEADER}(11 ) (6 ) Depreciation{LEADER}1,565 1,567", 71),
        para(f"Net cash provided by operating activities{LEADER}19,970 24,158", 71),
    ]
    return ParsedDocument(path="/kb/fncb.pdf", file_type="pdf", blocks=blocks)


@pytest.fixture(scope="module")
def fncb() -> Report:
    return report_of(_bank(), "fncb.pdf")


def test_dot_leaders_spaced_parentheses_and_four_digit_figures_are_read() -> None:
    assert split_rows(f"Equity in trust{LEADER}(11 ) (6 ) Depreciation{LEADER}1,565 1565") == [
        ("Equity in trust", ["(11)", "(6)"]),
        ("Depreciation", ["1,565", "1565"]),
    ]
    assert data_rows("December 31, (in thousands) 2022 2021 Cash flows from operating activities:") == []


def test_a_dated_column_is_a_period_not_a_metric_column() -> None:
    assert column_term("December 31,   2022") == column_term("Year ended 30 June 2022") == ""
    assert column_term("毛利率") == "毛利率"


def test_cash_flow_from_operations_is_the_latest_year_in_thousands(fncb: Report) -> None:
    question = (
        "According to the annual report, what is the Cash flow from operations (in USD) for FNCB Bancorp, Inc. "
        "(within the last period or at the end of the last period)?"
    )
    answer = answer_from_facts(question, [fncb], "en")
    assert answer is not None and answer.kind == "figure"
    assert (answer.value, answer.unit) == ("19970", "thousands")
    assert [c.page for c in answer.citations] == [71]


def test_the_npl_ratio_is_the_printed_percentage(fncb: Report) -> None:
    question = "For FNCB Bancorp, Inc., what was the value of Non-performing loan ratio (NPL) at year-end?"
    answer = answer_from_facts(question, [fncb], "en")
    assert answer is not None and answer.kind == "figure" and Decimal(answer.value or "0") == Decimal("0.25")


def test_an_amount_asked_in_another_currency_states_no_figure_as_that_currency(fncb: Report) -> None:
    question = "What was the Cash flow from operations (in EUR) for FNCB Bancorp, Inc. according to the annual report?"
    answer = answer_from_facts(question, [fncb], "en")
    assert answer is not None and answer.kind == "not_in_report" and answer.value is None
    assert "USD" in answer.text and "EUR" in answer.text


def test_a_report_that_does_not_tell_its_currency_gives_no_figure_in_one() -> None:
    document = _bank()
    document.blocks[1] = para("Annual report", 1)  # no SEC filing, no currency named
    data = extract_report(document)
    assert data is not None and "currency" not in data
    report = load_report(document.path, "fncb.pdf", data)
    answer = answer_from_facts("What is the Cash flow from operations (in USD) for FNCB Bancorp, Inc.?", [report], "en")
    assert answer is not None and answer.kind == "currency_unknown" and answer.value is None


def test_the_report_currency_from_filings_listings_and_names() -> None:
    assert report_currency("Form 10-K " * 5 + "$ 1,000 " * 20) == "USD"
    assert report_currency("listed on the ASX. " * 4 + "$ 1,000 " * 20 + " US$ 5") == "AUD"
    assert report_currency("£1.2m " * 10 + "US$ 3") == "GBP"
    assert report_currency("$ 1,000 " * 20) is None  # which dollar is not said
    assert iso_currency("thousands of U.S. dollars") == "USD" and iso_currency("$") is None


def test_an_amount_without_a_printed_unit_is_not_given_in_a_currency() -> None:
    document = _bank()
    document.blocks[7] = para("December 31, 2022 2021 Cash flows from operating activities:", 71)  # no unit
    data = extract_report(document)
    assert data is not None
    report = load_report(document.path, "fncb.pdf", data)
    answer = answer_from_facts("What is the Cash flow from operations (in USD) for FNCB Bancorp, Inc.?", [report], "en")
    assert answer is not None and answer.kind == "unit_unknown" and answer.value is None


def test_the_unit_line_above_a_text_table_is_its_unit() -> None:
    document = _bank()
    document.blocks[7:8] = [
        para("(Expressed in thousands of United States dollars)", 71),
        para("Year ended December 31, 2022 2021", 71),
    ]
    data = extract_report(document)
    assert data is not None
    cash = [f for f in data["facts"] if f["label"] == "Net cash provided by operating activities"]
    assert cash and {f["unit"] for f in cash} == {"thousands"}
    assert data["tables"][cash[0]["t"]]["currency"] == "United States dollars"


def test_a_per_share_row_of_a_table_in_thousands_is_in_currency_units() -> None:
    document = _bank()
    document.blocks.append(para("Basic earnings (loss) per share (dollars) (1.03) 0.13", 71))
    data = extract_report(document)
    assert data is not None
    eps = [f for f in data["facts"] if f["label"].startswith("Basic earnings")]
    assert eps and {f["unit"] for f in eps} == {None}
    assert {f["label"] for f in eps} == {"Basic earnings (loss) per share"}  # as a ruled table's label is cleaned
    net = [f for f in data["facts"] if f["label"] == "Net income"]
    assert {f["unit"] for f in net} == {"thousands"}


@pytest.mark.parametrize(
    ("label", "question"),
    [
        ("Turnover", "What was the revenue of FNCB Bancorp, Inc. in 2022?"),
        ("Profit for the year", "What was the net income of FNCB Bancorp, Inc. in 2022?"),
        ("Cash and cash equivalents", "What was the cash and equivalents of FNCB Bancorp, Inc. at year-end 2022?"),
        ("Total stockholders' equity", "What was the total equity of FNCB Bancorp, Inc. at the end of 2022?"),
    ],
)
def test_english_statement_captions_have_their_synonyms(label: str, question: str) -> None:
    document = _bank()
    document.blocks[8:11] = [para(f"{label}{LEADER}1,234 1,111", 71)]  # the statement's only row
    data = extract_report(document)
    assert data is not None
    report = load_report(document.path, "fncb.pdf", data)
    answer = answer_from_facts(question, [report], "en")
    assert answer is not None and answer.kind == "figure" and (answer.value, answer.unit) == ("1234", "thousands")
