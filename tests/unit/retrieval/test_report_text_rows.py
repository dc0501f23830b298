"""A statement printed as lines of text still gives the model its rows: the line with the figure and the metric's
words, its page and the statement title of that page, before a sentence quoting a rounded figure."""

from __future__ import annotations

from officeqa.domain import Block, BlockType
from retrieval.reports.candidates import question_terms
from retrieval.reports.text_rows import text_rows


def _blocks() -> list[Block]:
    para = BlockType.PARAGRAPH
    return [
        Block(para, "Statement of financial position 14", page=2),  # a contents line: no title
        Block(para, "Total assets rose to $7.7 million over the year, the directors said.", page=3),
        Block(para, "Statement of financial position As at 30 June 2022", page=16),
        Block(para, "Cash and cash equivalents 1,335,387 2,011,225", page=16),
        Block(para, "Total assets 7,710,615 8,818,186", page=16),
    ]


def test_the_statement_line_comes_first_with_its_title_and_page() -> None:
    words, grams = question_terms(
        "What were Benjamin Hornigold's total assets at 30 June 2022?", ["Benjamin Hornigold Ltd", "Benjamin Hornigold"]
    )
    assert "benjamin" not in words and "asset" in words
    rows = text_rows(_blocks(), words, grams, 3)
    assert rows[0].text == "Total assets 7,710,615 8,818,186" and rows[0].page == 16
    assert rows[0].title == "Statement of financial position As at 30 June 2022"
    assert [r.page for r in rows] == [16, 3]  # the sentence after the row; no line of the contents page


def test_a_chinese_question_finds_its_row_by_character_runs() -> None:
    blocks = [
        Block(BlockType.PARAGRAPH, "合并资产负债表", page=80),
        Block(BlockType.PARAGRAPH, "资产总计 29,359,202,252.30 28,001,000.00", page=80),
    ]
    words, grams = question_terms("北方华锦化学2019年末资产总计是多少？", ["北方华锦化学"])
    rows = text_rows(blocks, words, grams, 2)
    assert rows and rows[0].text.startswith("资产总计 29,359,202,252.30") and rows[0].title == "合并资产负债表"
