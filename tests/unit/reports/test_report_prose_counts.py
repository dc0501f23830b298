"""Counts and dividends per share printed only in an annual report's sentences ("we owned over 1,300
patents", "nearly 294,000 colleagues", "a quarterly cash dividend of $0.27 per common share"): read when
asked, refused when the sentence counts another kind of the thing, when the question restricts the count with
words the page never prints, or when two values are printed equally often."""

from __future__ import annotations

import pytest
from report_blocks import LEADER, heading, para, report_of

from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from retrieval.reports.answer import answer_from_facts
from retrieval.reports.facts import Report
from retrieval.reports.prose import asked_count, prose_count, prose_dividend


def _document() -> ParsedDocument:
    blocks = [
        Block(BlockType.HEADING, text="NORTHWIND ROBOTICS, INC. 2022 ANNUAL REPORT", level=1, page=1),
        para("Annual report on Form 10-K filed with the Securities and Exchange Commission " * 5, 1),
        para("for the fiscal year ended December 31, 2022", 1),
        # a shareholder letter whose lines are separate blocks, as PDF parsers give them
        heading("2022 was another strong year for Northwind. We employ nearly 4,100", 3, level=3),
        heading("colleagues and 300 contractors, delivered our mission.", 3, level=3),
        para("We hired approximately 900 colleagues this year.", 3),
        Block(BlockType.PARAGRAPH, text="Table of Contents 12", page=9, role=BlockRole.HEADER),
        para(
            "Intellectual Property. We own a portfolio of patents and trademarks. As of December 31, 2022, we owned "
            "over 1,300 patents and pending applications, including U.S. and foreign. Our active portfolio of "
            "aerospace technology contains 1,300 patents, and approximately 160 new patents are granted each year.",
            9,
        ),
        para("Our workforce is comprised of approximately 4,100 employees (as of December 31, 2022).", 10),
        para("Robots in service: we shipped 2,000 units, and we operate 40 robots in our own plants.", 11),
        para("At year end we had 40 robots.", 12),
        para("We hold 109 patents granted in other jurisdictions.", 13),
        para("We serve 500 customers worldwide. We had 60 customers in Ohio.", 14),
        para("Dividend Policy. We currently pay a regular quarterly cash dividend of $0.27 per common share.", 20),
        para(
            "We declared a dividend of $0.27 per common share for the quarter ended December 31, 2022. We paid a "
            "dividend of $0.25 per common share for the quarter ended March 31, 2022. In 2021 we paid dividends of "
            "$0.88 per share and dividends of $0.88 per share in 2020.",
            21,
        ),
        para(
            "The Board expects a one-time special dividend of $1.08 per share. The Board declared a dividend of "
            "$1.08 per share on the Series A Preferred Stock. A dividend of $1.08 per share was declared on the "
            "Series B Preferred Stock.",
            22,
        ),
        para(
            "We have already finalised most of the planned gross reduction of 1,000 full-time positions. The "
            "reduction of almost 800 positions was contracted by the end of 2022, the majority of them in Ohio.",
            30,
        ),
        Block(BlockType.HEADING, text="CONSOLIDATED STATEMENTS OF CASH FLOWS", level=2, page=71),
        para("December 31, (in thousands) 2022 2021 Cash flows from operating activities:", 71),
        para(f"Net income{LEADER}$ 20,445 $ 21,371", 71),
        para(f"Net cash provided by operating activities{LEADER}19,970 24,158", 71),
    ]
    return ParsedDocument(path="/kb/northwind.pdf", file_type="pdf", blocks=blocks)


@pytest.fixture(scope="module")
def northwind() -> Report:
    return report_of(_document(), "northwind.pdf", prose=True)


def _ask(question: str, report: Report) -> tuple[str | None, list[int | None]]:
    answer = answer_from_facts(question, [report], "en", scoped=True)
    if answer is None or answer.kind != "figure":
        return None, []
    return answer.value, [c.page for c in answer.citations]


def test_a_count_printed_only_in_a_sentence_is_read_with_its_page(northwind: Report) -> None:
    question = "For Northwind Robotics, Inc., what was the value of Number of patents at year-end?"
    assert _ask(question, northwind) == ("1300", [9])


def test_a_collection_counts_its_members_in_the_sentence_that_names_it(northwind: Report) -> None:
    # "160 new patents" is a kind of patent the question does not ask for
    question = "What was the value of Year-end patent portfolio (aerospace tech) of Northwind Robotics, Inc.?"
    assert _ask(question, northwind) == ("1300", [9])


def test_staff_is_counted_under_any_word_for_people_and_the_most_printed_value_wins(northwind: Report) -> None:
    # 4,100 colleagues (letter, split over two lines) and 4,100 employees (10-K) against 900 hired
    assert _ask("How many employees did Northwind Robotics have?", northwind) == ("4100", [3])
    question = "For Northwind Robotics, Inc., what was the value of Number of professionals on staff?"
    assert _ask(question, northwind)[0] == "4100"


def test_people_counted_are_the_companys_own_for_the_reports_year() -> None:
    pages = (
        (1, "A disease is rare if it affects fewer than 200,000 people in the United States."),
        (2, "Our research and development team consists of 73 employees."),
        (3, "We classified any customer that employs more than 500 people as large."),
        (4, "We hired approximately 900 colleagues and recognised 10 employees with awards."),
        (5, "We had 246 full-time equivalent employees at December 31, 2022, and 220 employees at December 31, 2021."),
    )
    others = Report("/kb/o.pdf", "o.pdf", 2022, "annual", {}, (), pages=pages)
    assert prose_count("how many employees did the company have", others, True) is None


def test_a_restricted_count_whose_words_the_page_never_prints_is_not_answered(northwind: Report) -> None:
    # 109 patents "granted in other jurisdictions" are not the "active pharmaceutical patents" asked for
    question = "What was the value of Number of active pharmaceutical patents of Northwind Robotics, Inc.?"
    assert _ask(question, northwind) == (None, [])


def test_employees_let_go_are_a_reduction_made_not_one_planned(northwind: Report) -> None:
    # "the planned gross reduction of 1,000 full-time positions" is a plan; 800 were contracted
    assert _ask("What is the total number of employees let go by Northwind Robotics?", northwind) == ("800", [30])
    planned = Report("/kb/p.pdf", "p.pdf", 2022, "annual", {}, (), pages=((1, "We plan to cut 500 jobs in 2023."),))
    assert prose_count("how many employees were laid off", planned, True) is None
    made = Report("/kb/m.pdf", "m.pdf", 2022, "annual", {}, (), pages=((1, "In 2022 we cut 500 jobs in Ohio."),))
    answer = prose_count("how many employees were laid off", made, True)
    assert answer is not None and answer.value == "500"


def test_two_values_printed_equally_often_are_not_answered(northwind: Report) -> None:
    # 500 customers served and 60 in Ohio: which one is "the number of customers" cannot be told
    assert _ask("How many customers did Northwind Robotics have?", northwind) == (None, [])
    assert _ask("How many robots did Northwind Robotics operate?", northwind) == ("40", [11])
    assert asked_count("what was the value of total revenue") is None  # an amount, not a count
    assert asked_count("what was the value of loan portfolio") is None  # a count of loans is not its value


def test_the_dividend_per_share_is_the_regular_one_of_the_reports_year(northwind: Report) -> None:
    # $0.27 twice against $0.25 once, all quarterly: they answer the quarterly question, never the annual one
    # (four quarters are not one figure); the special, preferred and earlier years' dividends are not counted
    question = "What was the Dividend per share for Northwind Robotics, Inc. according to the annual report?"
    assert _ask(question, northwind) == (None, [])
    quarterly = "What was the quarterly dividend per share of Northwind Robotics, Inc.?"
    assert _ask(quarterly, northwind) == ("0.27", [20])
    answer = answer_from_facts(quarterly, [northwind], "en")
    assert answer is not None and "(quarterly)" in answer.text
    other = "What was the quarterly dividend per share (in EUR) for Northwind Robotics, Inc.?"
    assert _ask(other, northwind) == (None, [])  # the report's dollars are not euros
    later = (
        (1, "On January 25, 2023, the Board declared a dividend of $0.31 per common share."),
        (2, "The Board approved an increase in the 2022 dividend of $0.02 per share."),
        (3, "In 2022 we paid a quarterly dividend of $0.29 per share."),
        (4, "For 2022 the Board declared dividends of $1.16 per share in total."),
    )
    report = Report("/kb/d.pdf", "d.pdf", 2022, "annual", {}, (), currency="USD", pages=later)
    answer = prose_dividend("what was the dividend per share (in usd)", report, "USD", True)
    assert answer is not None and answer.value == "1.16"  # not next year's, not the increase, not a quarter's
    assert "(full year)" in answer.text
    answer = prose_dividend("what was the quarterly dividend per share", report, None, True)
    assert answer is not None and answer.value == "0.29"


def test_a_statement_row_still_answers_before_the_prose(northwind: Report) -> None:
    question = "What is the Cash flow from operations (in USD) for Northwind Robotics, Inc.?"
    answer = answer_from_facts(question, [northwind], "en")
    assert answer is not None and (answer.value, answer.unit) == ("19970", "thousands")
