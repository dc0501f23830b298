"""Figure, computed and not-in-report answers from report facts, on literal reports (no model)."""

from __future__ import annotations

import pytest
from report_blocks import heading, para, report_of

from eval.answer_metrics import numbers_in, says_not_found, states_figure
from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.reports.answer import answer_from_facts
from retrieval.reports.facts import Report


def _report(name: str, full_name: str, short: str, revenue: tuple[str, str, str], text: str = "") -> Report:
    blocks = [
        Block(BlockType.HEADING, text=full_name, level=1, page=1),
        Block(BlockType.HEADING, text="2019 年年度报告", level=1, page=1),
        Block.table([["股票简称", short]], [], page=4),
        heading("六、主要会计数据和财务指标", 6),
        Block.table(
            [["", "2019年", "2018年", "本年比上年增减", "2017年"]],
            [
                ["营业收入（元）", revenue[0], revenue[1], "24.69%", revenue[2]],
                ["归属于上市公司股东的净利润（元）", "402,233,891.06", "358,950,104.80", "12.06%", "311,392,158.87"],
                ["", "2019年末", "2018年末", "本年末比上年末增减", "2017年末"],
                ["总资产（元）", "5,593,990,470.97", "4,721,708,076.86", "18.47%", "4,392,021,465.69"],
                ["负债合计（元）", "2,000,000,000.00", "1,800,000,000.00", "11.11%", "1,700,000,000.00"],
            ],
            page=6,
        ),
        heading("八、分季度主要财务指标", 6),
        para("单位：元", 6),
        Block.table(
            [["", "第一季度", "第二季度", "第三季度", "第四季度"]],
            [["营业收入", "671,627,813.92", "947,833,500.94", "892,688,825.56", "1,021,560,444.56"]],
            page=6,
        ),
        heading("(1)营业收入构成", 11),
        para("单位：元", 11),
        Block.table(
            [["", "2019年", "", "2018年", "", ""]],
            [
                ["", "金额", "占营业收入比重", "金额", "占营业收入比重", "同比增减"],
                ["分产品", "", "", "", "", ""],
                ["连接器", "2,215,236,553.17", "62.69%", "1,649,799,581.85", "58.21%", "34.27%"],
            ],
            page=11,
        ),
        heading("二、财务报表", 67),
        para("3、合并利润表", 67),
        para("单位：元", 67),
        Block.table(
            [["项目", "2019年度", "2018年度"]],
            [
                ["一、营业总收入", revenue[0], revenue[1]],
                ["其中：营业收入", revenue[0], revenue[1]],
                ["二、营业总成本", "3,051,538,489.52", "2,422,584,942.65"],
                ["其中：营业成本", "2,300,397,633.62", "1,791,474,627.82"],
            ],
            page=67,
        ),
        para("4、母公司利润表", 69),
        para("单位：元", 69),
        Block.table(
            [["项目", "2019年度", "2018年度"]], [["一、营业收入", "1,722,665,075.03", "1,500,000,000.00"]], page=69
        ),
        para(text or "公司专注于连接器与继电器的研制。", 70),
    ]
    return report_of(ParsedDocument(path=f"/kb/{name}", file_type="pdf", blocks=blocks), name)


@pytest.fixture(scope="module")
def hangtian() -> Report:
    return _report(
        "hangtian.pdf",
        "贵州航天电器股份有限公司",
        "航天电器",
        ("3,533,710,584.98", "2,834,084,194.08", "2,612,127,319.84"),
    )


@pytest.fixture(scope="module")
def changchai() -> Report:
    return _report(
        "changchai.pdf", "常柴股份有限公司", "苏常柴Ａ", ("2,040,133,717.30", "2,132,902,718.60", "2,423,058,958.29")
    )


def test_a_figure_is_the_printed_value_with_its_unit_page_and_row(hangtian: Report) -> None:
    answer = answer_from_facts("航天电器2019年的营业收入是多少？", [hangtian], "zh")
    assert answer is not None and answer.kind == "figure"
    assert "3,533,710,584.98 元" in answer.text
    assert answer.citations[0].page == 6 and "营业收入（元） | 3,533,710,584.98" in answer.citations[0].quote
    # the parent company's own income statement prints another revenue: named, not hidden
    assert "母公司" in answer.text and "1,722,665,075.03" in answer.text


def test_synonyms_year_end_prior_year_and_unit_conversion(hangtian: Report) -> None:
    answer = answer_from_facts("航天电器2019年的归母净利润是多少？", [hangtian], "zh")
    assert answer is not None and "402,233,891.06" in answer.text
    answer = answer_from_facts("航天电器上年末的总资产是多少？", [hangtian], "zh")
    assert answer is not None and "4,721,708,076.86" in answer.text
    answer = answer_from_facts("航天电器2019年营业收入是多少万元？", [hangtian], "zh")
    assert answer is not None and "353,371.06 万元" in answer.text


def test_a_segment_row_gives_its_amount_and_the_share_beside_it(hangtian: Report) -> None:
    answer = answer_from_facts("航天电器2019年连接器产品的营业收入是多少？占营业收入比重多少？", [hangtian], "zh")
    assert answer is not None
    assert "2,215,236,553.17" in answer.text and "62.69%" in answer.text
    assert answer.citations[0].page == 11


def test_a_year_the_report_does_not_cover_is_not_in_the_report_and_states_no_figure(hangtian: Report) -> None:
    answer = answer_from_facts("航天电器2021年的营业收入是多少？", [hangtian], "zh")
    assert answer is not None and answer.kind == "not_in_report"
    assert says_not_found(answer.text) and not states_figure(answer.text)
    assert "2017–2019" in answer.text


def test_a_metric_the_report_never_mentions_is_not_in_the_report(hangtian: Report) -> None:
    answer = answer_from_facts("航天电器2019年的碳排放总量是多少吨？", [hangtian], "zh")
    assert answer is not None and answer.kind == "not_in_report" and says_not_found(answer.text)
    assert not states_figure(answer.text)


def test_a_qualitative_question_is_never_not_in_the_report(hangtian: Report) -> None:
    assert answer_from_facts("航天电器的主要业务板块及行业地位是什么？", [hangtian], "zh") is None
    assert answer_from_facts("航天电器的主营业务和主导产品是什么，主要面向哪些领域？", [hangtian], "zh") is None
    assert answer_from_facts("航天电器的发展战略和2021年经营计划是什么？", [hangtian], "zh") is None


def test_a_qualifier_the_tables_do_not_break_out_is_left_to_retrieval(hangtian: Report) -> None:
    assert answer_from_facts("航天电器2019年军品业务单独实现的营业收入是多少？", [hangtian], "zh") is None


def test_gross_margin_is_computed_from_the_income_statement_with_its_inputs(hangtian: Report) -> None:
    answer = answer_from_facts("根据合并利润表，航天电器2019年的毛利率是多少？", [hangtian], "zh")
    assert answer is not None and answer.kind == "computed"
    assert "34.90%" in answer.text
    assert "3,533,710,584.98" in answer.text and "2,300,397,633.62" in answer.text
    assert {c.page for c in answer.citations} == {67}


def test_growth_between_two_named_years_and_debt_ratio(hangtian: Report) -> None:
    answer = answer_from_facts("与2017年相比，航天电器2019年营业收入增长了多少（百分比）？", [hangtian], "zh")
    assert answer is not None and "35.28%" in answer.text and "2,612,127,319.84" in answer.text
    answer = answer_from_facts("航天电器2019年末的资产负债率是多少？", [hangtian], "zh")
    assert answer is not None and "35.75%" in answer.text  # 2,000,000,000.00 / 5,593,990,470.97


def test_which_year_was_highest_and_the_sum_of_the_four_quarters(hangtian: Report) -> None:
    answer = answer_from_facts("航天电器营业收入哪一年最高？", [hangtian], "zh")
    assert answer is not None and "2019 年最高" in answer.text
    answer = answer_from_facts("航天电器2019年四个季度营业收入合计是多少？", [hangtian], "zh")
    assert answer is not None and answer.kind == "computed" and "四个季度合计" in answer.text
    assert "671,627,813.92 + 947,833,500.94" in answer.text
    assert any(abs(v - 3533710584.98) < 0.01 for v in map(float, numbers_in(answer.text)))


def test_the_named_company_is_answered_and_an_unnamed_one_among_several_is_declined(
    hangtian: Report, changchai: Report
) -> None:
    answer = answer_from_facts("常柴2019年的营业收入是多少？", [hangtian, changchai], "zh")
    assert answer is not None and "2,040,133,717.30" in answer.text and "3,533,710,584.98" not in answer.text
    assert answer.citations[0].path == "/kb/changchai.pdf"
    assert answer_from_facts("2019年的营业收入是多少？", [hangtian, changchai], "zh") is None
    # one report indexed among other files: a question that names no company is not about it ...
    assert answer_from_facts("部门经理去成都出差住宿费每晚最多能报多少？", [hangtian], "zh") is None
    # ... unless the caller scoped the question to it
    scoped = answer_from_facts("2019年的营业收入是多少？", [hangtian], "zh", scoped=True)
    assert scoped is not None and "3,533,710,584.98" in scoped.text
    # "年报中…" names the report, not a metric: what the text does name goes on to retrieval, not "not found"
    assert answer_from_facts("年报中连接器与继电器的研制情况如何？", [hangtian], "zh", scoped=True) is None


def test_questions_that_are_not_about_figures_are_declined(hangtian: Report) -> None:
    assert answer_from_facts("航天电器的法定代表人是谁？", [hangtian], "zh") is None
    # a second part the facts cannot answer sends the whole question on (no half answer)
    assert answer_from_facts("航天电器2019年的营业收入是多少？主要客户是谁？", [hangtian], "zh") is None


def test_english_absence_is_not_judged_on_a_chinese_report(hangtian: Report) -> None:
    assert answer_from_facts("What was 航天电器's operating revenue per employee in 2019?", [hangtian], "en") is None
