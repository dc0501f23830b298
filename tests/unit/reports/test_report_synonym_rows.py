"""A company-level figure asked by one word and found only under a synonym outside the statements ("revenue"
asked, a related-party note's "Sales" row found) is not the answer: the report-facts answer marks it unsure, so
the answerer hands it over (DESIGN.md, "Precision first"). A synonym in the income statement ("Net sales"), or the
word as printed, is still the answer."""

from __future__ import annotations

from report_blocks import heading, para, report_of

from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.reports.answer import answer_from_facts
from retrieval.reports.facts import Report

_QUESTION = "What {metric} did Alpine Water Coffee report for the year ended December 31, 2022?"


def _report(statement_label: str | None) -> Report:
    blocks = [
        Block(BlockType.HEADING, text="ALPINE WATER COFFEE INC. 2022 ANNUAL REPORT", level=1, page=1),
        para("Annual report of Alpine Water Coffee Inc. for the year ended December 31, 2022. " * 4, 1),
    ]
    if statement_label is not None:
        blocks += [
            heading("Consolidated Statements of Income", 44),
            para("(in thousands of Canadian dollars) 2022 2021", 44),
            para(f"{statement_label} $ 176,935 $ 125,076 Cost of goods sold (150,847) (107,465)", 44),
        ]
    blocks += [
        heading("20. RELATED PARTY TRANSACTIONS", 86),
        heading("20.2 Trading transactions", 86),
        para("December 31, 2022 December 31, 2021", 86),
        para("Sales $ 1,728 $ 648 Purchases of raw materials $ 9,007 $ 5,344", 86),
    ]
    return report_of(ParsedDocument(path="/kb/alpine.pdf", file_type="pdf", blocks=blocks), "alpine.pdf")


def test_a_synonym_row_in_a_note_is_unsure() -> None:
    answer = answer_from_facts(_QUESTION.format(metric="revenue"), [_report(None)], "en")
    assert answer is not None and "1,728" in answer.text
    assert answer.unsure == ["statement"]


def test_the_row_as_printed_or_a_statements_synonym_is_sure() -> None:
    printed = answer_from_facts(_QUESTION.format(metric="sales"), [_report(None)], "en")
    assert printed is not None and printed.unsure == []  # the question names the row as printed
    statement = answer_from_facts(_QUESTION.format(metric="revenue"), [_report("Net sales")], "en")
    assert statement is not None and "176,935" in statement.text and statement.unsure == []
