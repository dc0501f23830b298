"""Headline figures and the revenue-composition rows of a literal report (parsed blocks, real fact extraction)."""

from __future__ import annotations

import pytest
from report_blocks import heading, report_of

from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.reports.facts import Report
from retrieval.reports.headline import headline_figures
from retrieval.reports.segments import asks_segments, segment_rows


@pytest.fixture(scope="module")
def report() -> Report:
    blocks = [
        Block(BlockType.HEADING, text="浙江海翔药业股份有限公司", level=1, page=1),
        Block(BlockType.HEADING, text="2019 年年度报告", level=1, page=1),
        heading("六、主要会计数据和财务指标", 7),
        Block.table(
            [["", "2019年", "2018年", "本年比上年增减", "2017年"]],
            [
                ["营业收入（元）", "2,941,412,770.30", "2,718,608,796.51", "8.20%", "2,308,922,170.29"],
                ["归属于上市公司股东的净利润（元）", "770,782,185.09", "605,003,820.78", "27.40%", "342,217,155.60"],
                ["", "2019年末", "2018年末", "本年末比上年末增减", "2017年末"],
                ["总资产（元）", "6,747,198,664.47", "7,035,373,344.57", "-4.10%", "7,466,927,438.54"],
            ],
            page=7,
        ),
        heading("(1)营业收入构成", 15),
        Block(BlockType.PARAGRAPH, text="单位：元", page=15),
        Block.table(
            [["", "2019年", "", "2018年", "", ""]],
            [
                ["", "金额", "占营业收入比重", "金额", "占营业收入比重", "同比增减"],
                ["分行业", "", "", "", "", ""],
                ["医药", "1,608,858,743.47", "54.70%", "1,441,591,423.51", "53.03%", "11.60%"],
                ["染料", "1,316,830,162.67", "44.77%", "1,249,940,574.56", "45.98%", "5.35%"],
                ["分地区", "", "", "", "", ""],
                ["国外", "1,428,552,746.12", "48.57%", "1,327,641,577.44", "48.84%", "7.60%"],
            ],
            page=15,
        ),
    ]
    return report_of(ParsedDocument(path="/kb/haixiang.pdf", file_type="pdf", blocks=blocks), "haixiang.pdf")


def test_headline_figures_are_printed_with_unit_change_and_page(report: Report) -> None:
    lines = {h.line.split("（")[0]: h for h in headline_figures(report, english=False)}
    revenue = lines["营业收入"]
    assert "2,941,412,770.30 元" in revenue.line and "8.20%" in revenue.line and revenue.cited.page == 7
    assert "770,782,185.09 元" in lines["归属于上市公司股东的净利润"].line
    assert "-4.10%" in lines["总资产"].line  # a point-in-time row keeps its printed change too


def test_revenue_rows_of_the_groups_asked_with_share_and_change(report: Report) -> None:
    rows = segment_rows(report, "海翔药业2019年营业收入按行业是如何构成的？")
    shown = [row.line(english=False) for row in rows]
    assert shown == ["分行业 · 医药：1,608,858,743.47 元（占营业收入 54.70%；同比增减 11.60%）",
                     "分行业 · 染料：1,316,830,162.67 元（占营业收入 44.77%；同比增减 5.35%）"]
    assert {row.amount.page for row in rows} == {15}
    everything = segment_rows(report, "海翔药业2019年营业收入是如何构成的？")
    assert [row.amount.label for row in everything] == ["医药", "染料", "国外"]


@pytest.mark.parametrize(("question", "expected"), [
    ("常柴股份2019年营业收入按产品和地区是如何构成的？", True),
    ("海翔药业医药和染料两个板块2019年的收入情况如何？", True),
    ("Summarize net sales by segment.", True),
    ("连接器产品的营业收入是多少？", False),  # one amount: the figure answerer's
    ("海翔药业的主要业务板块及行业地位是什么？", False),  # no revenue asked: the summary tree's
])
def test_which_questions_ask_for_revenue_by_segment(question: str, expected: bool) -> None:
    assert asks_segments(question) is expected
