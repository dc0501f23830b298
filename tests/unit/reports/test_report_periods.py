"""Periods read from column headers (never from positions), primary statements before notes, units stated once in
a caption, metric names across scripts and word orders, and per-share figures that say their period: literal
tables in both scripts, no model, no fetched files."""

from __future__ import annotations

from decimal import Decimal

from report_blocks import heading, para, report_of

from indexing.reports.extract import extract_report
from indexing.reports.labels import label_key, to_simplified
from indexing.reports.periods import parse_period
from indexing.reports.statements import NOTE, STATEMENT, table_role
from indexing.reports.tables import table_facts
from indexing.reports.text_tables import fit_columns, header_periods
from indexing.reports.units import table_unit
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.words import phrase_table
from retrieval.reports.answer import answer_from_facts
from retrieval.reports.lookup import best_matches
from retrieval.reports.metrics import METRICS, canonical_of


def _zh_report(name: str, blocks: list[Block], year: str = "2025") -> ParsedDocument:
    head = [
        Block(BlockType.HEADING, text="星河电子股份有限公司", level=1, page=1),
        Block(BlockType.HEADING, text=f"{year} 年年度报告", level=1, page=1),
        Block.table([["股票简称", "星河电子"]], [], page=2),
    ]
    return ParsedDocument(path=f"/kb/{name}.pdf", file_type="pdf", blocks=[*head, *blocks])


def _en_report(blocks: list[Block]) -> ParsedDocument:
    head = [
        Block(BlockType.HEADING, text="ACME WIDGETS, INC. 2024 ANNUAL REPORT", level=1, page=1),
        para("Annual report on Form 10-K for the fiscal year ended December 31, 2024", 1),
    ]
    return ParsedDocument(path="/kb/acme.pdf", file_type="pdf", blocks=[*head, *blocks])


# ------------------------------------------------------------------------------------------------ periods


def test_headers_name_their_period_in_both_scripts() -> None:
    assert parse_period("FY13").year == 2013 and parse_period("FY 2013").year == 2013
    restated = parse_period("2023 (restated)")
    assert restated.year == 2023 and restated.restated == "after"
    assert parse_period("2023年 调整前").restated == "before"
    flow = parse_period("Year ended December 31, 2024")  # the date ends a flow: not a year-end balance
    assert flow.year == 2024 and flow.point is None
    assert parse_period("截至2024年12月31日止年度").point is None
    assert parse_period("As at December 31, 2024").point == "end" and parse_period("于2024年12月31日").point == "end"
    assert parse_period("Three months ended December 31, 2024").partial
    assert parse_period("Second Quarter").quarter == 2 and parse_period("上半年").partial
    assert parse_period("本期发生额").relative == 0 and parse_period("上期发生额").relative == -1
    assert parse_period("期末余额").point == "end" and parse_period("期初余额").relative == -1
    assert parse_period("上年同期").relative == -1
    assert not parse_period("2025年").partial


def test_a_change_column_between_years_does_not_shift_the_prior_year() -> None:
    blocks = [
        heading("六、主要会计数据和财务指标", 6),
        para("单位：元", 6),
        Block.table(
            [["", "2025年末", "2024年末", "增减", "2023年末"]],
            [["总资产（元）", "9,000.00", "8,000.00", "12.50%", "7,000.00"]],
            page=6,
        ),
    ]
    report = report_of(_zh_report("xinghe", blocks), "xinghe.pdf")
    for question, value in (
        ("星河电子2024年末总资产是多少？", "8000.00"),
        ("星河电子上年末总资产是多少？", "8000.00"),
        ("星河电子2023年末总资产是多少？", "7000.00"),
        ("星河电子2025年末总资产是多少？", "9000.00"),
    ):
        answer = answer_from_facts(question, [report], "zh")
        assert answer is not None and answer.value == value, question


def test_bare_year_headers_and_a_year_cell_spanning_two_columns_are_periods() -> None:
    facts = table_facts([], [["", "2024", "2023"], ["Total assets", "100", "90"]])
    assert [(f.period.year, f.value) for f in facts if f.period] == [(2024, "100"), (2023, "90")]
    spanned = table_facts([["", "2024 2023", ""]], [["Total assets", "100", "90"]])
    assert [(f.period.year, f.value) for f in spanned if f.period] == [(2024, "100"), (2023, "90")]
    split = table_facts([["", "Year ended December 31,", ""], ["", "2024", "2023"]], [["Revenue", "5", "4"]])
    assert [f.column for f in split] == ["Year ended December 31, 2024", "Year ended December 31, 2023"]


def test_a_header_split_over_three_rows_with_restated_sub_columns() -> None:
    # as a real 主要会计数据 table prints it: the years, 调整前/调整后 and the change column on different rows
    header = [["", "", "", "", "本年比上年", "", ""]]
    rows = [
        ["", "", "2018年", "", "", "2017年", ""],
        ["", "2019年", "", "", "增减", "", ""],
        ["", "", "调整前", "调整后", "调整后", "调整前", "调整后"],
        ["营业收入（元）", "39,608.04", "36,683.29", "37,036.10", "6.94%", "33,713.65", "33,713.65"],
        ["归属于上市公司股东的扣", "", "", "", "", "", ""],
        ["除非经常性损益的净利润", "886.84", "1,013.49", "1,019.65", "-13.05%", "1,870.73", "1,870.73"],
        ["（元）", "", "", "", "", "", ""],
        ["经营活动产生的现金流量", "", "", "", "", "", ""],
        ["", "2,723.01", "2,373.58", "2,521.31", "8.01%", "2,965.10", "2,965.10"],
        ["净额（元）", "", "", "", "", "", ""],
    ]
    facts = table_facts(header, rows)
    revenue = {f.column: f.period for f in facts if f.label == "营业收入"}
    assert revenue["2018年 调整后"].year == 2018 and revenue["2018年 调整后"].restated == "after"
    assert revenue["本年比上年 增减 调整后"].change  # not a 2018 column: the change column between the years
    assert revenue["2019年"].year == 2019 and revenue["2017年 调整前"].restated == "before"
    labels = {f.label for f in facts}
    assert labels == {"营业收入", "归属于上市公司股东的扣除非经常性损益的净利润", "经营活动产生的现金流量净额"}
    # a statement's unit and years printed in its first row, and a row whose values the PDF shifted under one span
    shifted = table_facts(
        [["December31,", "", "", "", "", ""]],
        [
            ["(Dollarsinthousands,exceptpersharedata)", "", "2022", "", "2021", ""],
            ["Totalassets", "$", "2,259,879", "$", "1,873,057", ""],
            ["Federalfundssold", "", "72,426", "60,002", "", ""],
            ["Basicnetincome(loss)pershare", "$", "1.86", "$", "2.20", ""],
        ],
    )
    years = {(f.label, f.value): f.period.year if f.period else None for f in shifted}
    assert years[("Totalassets", "1873057")] == 2021 and years[("Totalassets", "2259879")] == 2022
    assert years[("Federalfundssold", "72426")] is None and years[("Federalfundssold", "60002")] is None
    assert table_unit(["(Dollarsinthousands,exceptpersharedata)"])[0] == "thousands"
    # a short label-only row is a group header, not the first line of the row below
    grouped = table_facts([["", "2019年"]], [["分行业", ""], ["医药", "1,608.47"]])
    assert [(f.label, f.parent) for f in grouped] == [("医药", "分行业")]


def test_a_column_whose_period_cannot_be_read_is_not_used() -> None:
    blocks = [
        heading("六、主要会计数据和财务指标", 6),
        para("单位：元", 6),
        # "备考金额" names no period; beside a 2024 column its period would be a guess from its position
        Block.table([["", "备考金额", "2024年"]], [["营业收入（元）", "5,000.00", "4,000.00"]], page=6),
        heading("主要子公司情况", 30),
        para("单位：元", 30),
        Block.table([["公司名称", "注册资本"]], [["星河精密", "1,000,000.00"]], page=30),
    ]
    report = report_of(_zh_report("xinghe", blocks), "xinghe.pdf")
    answer = answer_from_facts("星河电子2025年营业收入是多少？", [report], "zh")
    assert answer is None or answer.value is None
    prior = answer_from_facts("星河电子2024年营业收入是多少？", [report], "zh")
    assert prior is not None and prior.value == "4000.00"
    # a table none of whose columns names a period is the report's own year
    single = answer_from_facts("星河精密的注册资本是多少？", [report], "zh", scoped=True)
    assert single is not None and single.value == "1000000.00"


def test_the_restated_column_is_preferred_to_the_one_first_reported() -> None:
    blocks = [
        heading("六、主要会计数据和财务指标", 6),
        para("单位：元", 6),
        Block.table(
            [["", "2025年", "2024年", "", "本年比上年增减"], ["", "", "调整前", "调整后", "调整后"]],
            [["营业收入（元）", "9,000.00", "7,900.00", "8,000.00", "12.50%"]],
            page=6,
        ),
    ]
    report = report_of(_zh_report("xinghe", blocks), "xinghe.pdf")
    answer = answer_from_facts("星河电子2024年营业收入是多少？", [report], "zh")
    assert answer is not None and answer.value == "8000.00"


# ------------------------------------------------------------------------------------- primary statements


def _acme() -> ParsedDocument:
    return _en_report(
        [
            heading("Segment information", 30),
            para("(in millions)", 30),
            Block.table(
                [["", "2024", "2023"]], [["Total assets", "300", "280"], ["Total revenue", "90", "80"]], page=30
            ),
            heading("CONSOLIDATED STATEMENTS OF OPERATIONS", 50),
            para("(in millions, except per share data)", 50),
            Block.table(
                [["", "2024", "2023"]],
                [["Total revenues", "10,000", "9,000"], ["Basic earnings per share", "2.10", "1.90"]],
                page=50,
            ),
            heading("CONSOLIDATED BALANCE SHEETS", 52),
            para("(in millions)", 52),
            Block.table(
                [["", "December 31, 2024", "December 31, 2023"]], [["Total assets", "5,000", "4,500"]], page=52
            ),
            heading("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS", 55),
            heading("3. Business combination", 60),
            para("(in millions)", 60),
            Block.table([["", "2024", "2023"]], [["Total revenue", "500", "400"]], page=60),
        ]
    )


def test_tables_know_whether_they_are_statements_or_notes() -> None:
    data = extract_report(_acme())
    assert data is not None
    roles = {t["page"]: t["role"] for t in data["tables"]}
    assert roles == {30: NOTE, 50: STATEMENT, 52: STATEMENT, 60: NOTE}
    assert table_role("合并资产负债表", "二、财务报表", False) == STATEMENT
    assert table_role("1、货币资金", "七、合并财务报表项目注释", True) == NOTE
    assert table_role("主要子公司及对公司净利润影响达10%以上的参股公司情况", "", False) == NOTE


def test_a_company_level_figure_comes_from_the_consolidated_statements_not_a_note() -> None:
    report = report_of(_acme(), "acme.pdf")
    revenue = answer_from_facts("What was Acme Widgets' total revenue in 2024?", [report], "en")
    assert revenue is not None and revenue.value == "10000" and [c.page for c in revenue.citations] == [50]
    assets = answer_from_facts("What were Acme Widgets' total assets at December 31, 2024?", [report], "en")
    assert assets is not None and assets.value == "5000" and assets.unit == "millions"
    prior = answer_from_facts("What were Acme Widgets' total assets in 2023?", [report], "en")
    assert prior is not None and prior.value == "4500"


def test_a_unit_stated_once_in_the_caption_holds_for_the_whole_table() -> None:
    assert table_unit(["合并资产负债表（除特别注明外，金额单位为人民币千元）"]) == ("千元", "人民币")
    assert table_unit(["百万港元"]) == ("百万元", "港元")
    assert table_unit(["人民币万元"]) == ("万元", "人民币")
    assert table_unit(["RMB'000"]) == ("thousands", "RMB")
    assert table_unit(["HK$ millions"]) == ("millions", "HK$")
    assert table_unit(["(in millions, except per share data)"])[0] == "millions"
    assert table_unit(["营业收入较上年增加1,234万元"]) == (None, None)  # an amount in a sentence is no unit
    blocks = [
        heading("二、财务报表", 60),
        para("合并利润表（人民币千元）", 60),
        Block.table(
            [["项目", "2025年度", "2024年度"]], [["营业收入", "1,200", "1,000"], ["净利润", "300", "250"]], page=60
        ),
    ]
    data = extract_report(_zh_report("xinghe", blocks))
    assert data is not None and {f["unit"] for f in data["facts"]} == {"千元"}


# ------------------------------------------------------------------------------------------- metric names


def test_metric_spellings_are_data_and_fold_traditional_chinese() -> None:
    assert phrase_table("report_metrics")["metric"]["revenue"] == METRICS["revenue"]
    assert all(METRICS.values())
    assert to_simplified("年內虧損") == "年内亏损" and label_key("營業額") == label_key("营业额")
    assert canonical_of("年內虧損") == canonical_of("loss for the year") == "net_income"
    assert canonical_of("營業額") == canonical_of("Turnover") == "revenue"
    assert canonical_of("本公司擁有人應佔溢利") == canonical_of("归属于上市公司股东的净利润") == "net_income_parent"
    assert canonical_of("Profit attributable to owners of the parent") == "net_income_parent"
    assert canonical_of("Net income attributable to Acme Widgets, Inc.") == "net_income_parent"
    assert canonical_of("Net income attributable to noncontrolling interests") is None


def test_a_traditional_chinese_report_answers_a_simplified_question() -> None:
    blocks = [
        Block(BlockType.HEADING, text="星河控股有限公司", level=1, page=1),
        Block(BlockType.HEADING, text="2024 年年度報告", level=1, page=1),
        heading("綜合損益表", 40),
        para("截至2024年12月31日止年度（百萬港元）", 40),
        Block.table(
            [["", "2024年", "2023年"]],
            [["營業額", "8,800", "7,700"], ["年內虧損", "(120)", "(80)"], ["本公司擁有人應佔溢利", "50", "40"]],
            page=40,
        ),
    ]
    report = report_of(ParsedDocument(path="/kb/hk.pdf", file_type="pdf", blocks=blocks), "hk.pdf")
    for question, value in (
        ("2024年营业额是多少？", "8800"),
        ("2024年年内亏损是多少？", "-120"),
        ("2024年归母净利润是多少？", "50"),
        ("2023年營業額是多少？", "7700"),
    ):
        answer = answer_from_facts(question, [report], "zh", scoped=True)
        assert answer is not None and answer.value == value, question
        assert answer.unit == "百万元"


def test_an_english_label_matches_its_words_in_another_order() -> None:
    report = report_of(_acme(), "acme.pdf")
    answer = answer_from_facts("What were the total consolidated assets of Acme Widgets in 2024?", [report], "en")
    assert answer is not None and answer.value == "5000"
    # a word the label does not explain is never dropped: no "Total assets" for a question about other assets
    other = answer_from_facts("What were the total intangible assets of Acme Widgets in 2024?", [report], "en")
    assert other is None or other.value is None


# ---------------------------------------------------------------------------------------- per-share figures


def _dividends() -> ParsedDocument:
    return _en_report(
        [
            heading("Quarterly financial data (unaudited)", 80),
            Block.table(
                [["", "First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter"]],
                [["Dividends declared per share", "0.25", "0.25", "0.27", "0.27"]],
                page=80,
            ),
            heading("Selected Financial Highlights", 3),
            Block.table([["", "2024", "2023"]], [["Dividends declared per share", "1.04", "0.96"]], page=3),
        ]
    )


def test_a_per_share_figure_says_its_period_and_the_annual_one_answers_an_annual_question() -> None:
    report = report_of(_dividends(), "acme.pdf")
    annual = answer_from_facts("What was Acme Widgets' dividend per share in 2024?", [report], "en")
    assert annual is not None and annual.value == "1.04" and "full year" in annual.text
    third = answer_from_facts("What was Acme Widgets' dividend per share in Q3 2024?", [report], "en")
    assert third is not None and third.value == "0.27"


def test_quarterly_per_share_figures_are_never_the_annual_answer() -> None:
    quarters_only = _en_report(
        [
            heading("Quarterly financial data (unaudited)", 80),
            Block.table(
                [["", "First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter"]],
                [["Dividends declared per share", "0.25", "0.25", "0.27", "0.27"]],
                page=80,
            ),
        ]
    )
    report = report_of(quarters_only, "acme.pdf")
    answer = answer_from_facts("What was Acme Widgets' dividend per share in 2024?", [report], "en")
    assert answer is None or answer.value not in {"0.25", "0.27"}
    eps = answer_from_facts("What was Acme Widgets' basic earnings per share in 2024?", [report_of(_acme(), "a")], "en")
    assert eps is not None and eps.value == "2.10" and eps.unit is None  # a per-share amount is not in millions
    assert Decimal(eps.value) == Decimal("2.10")


def test_a_group_the_question_names_beats_a_primary_statement_of_another_entity() -> None:
    # KP Tissue's MD&A prints its partnership's figures under a "KPLP Financial Information" group; KP Tissue's own
    # statement of financial position (an equity investment) is a primary statement, but not the one asked
    cover = [
        Block(BlockType.HEADING, text="KRUGER PRODUCTS L.P. 2024 ANNUAL REPORT", level=1, page=1),
        para("Kruger Products L.P. (KPLP) is held in part by KP Tissue Inc.", 1),
    ]
    document = ParsedDocument(
        path="/kb/kpt.pdf",
        file_type="pdf",
        blocks=[
            *cover,
            heading("SELECTED FINANCIAL INFORMATION", 43),
            para("(in millions)", 43),
            Block.table(
                [["", "December 31, 2024", "December 31, 2023"]],
                [["KPLP Financial Information", "", ""], ["Total assets", "2,256.8", "2,122.3"]],
                page=43,
            ),
            heading("Statements of Financial Position", 54),
            para("(in thousands)", 54),
            Block.table(
                [["", "December 31, 2024", "December 31, 2023"]],
                [["Non-current assets", "", ""], ["Total assets", "81,708", "80,716"]],
                page=54,
            ),
        ],
    )
    report = report_of(document, "kplp.pdf")
    question = label_key("What were KPLP's total assets at December 31, 2024?")
    top = best_matches(question, report.facts, question)[0]
    assert {f.value for f in top.facts} == {Decimal("2256.8"), Decimal("2122.3")}


def test_a_text_statement_whose_header_prints_its_years_twice() -> None:
    # a 10-K's unruled statement: the dates in a sentence and the bare years again, three values a row
    header = (
        "(amounts in thousands, except shares and per share amounts) For the Fiscal Years Ended December 31, 2022, "
        "2022 2021 2020 December 25, 2021 and December 26, 2020"
    )
    columns = header_periods(header)
    assert columns is not None and len(columns) == 6
    fitted = fit_columns(columns, 3)
    assert fitted is not None and [p.year for _, p in fitted] == [2022, 2021, 2020]
    assert not any(p.change for _, p in fitted)
    document = _en_report(
        [
            heading("PART II", 20),
            para("CONSOLIDATED STATEMENTS OF INCOME", 25),
            para(header, 25),
            para("Net sales $ 4,695,943 $ 4,224,417 $ 4,112,601 Cash dividends per share $ 1.30 $ 1.25 $ 1.24", 25),
            para("CONSOLIDATED STATEMENTS OF CASH FLOWS", 28),
            para("(amounts in thousands) December 31, 2022 December 25, 2021 December 26, 2020", 28),
            para("Net cash provided by operating activities 218,024 227,709 277,990", 28),
        ]
    )
    report = report_of(document, "weis.pdf")
    assert {t.role for t in report.facts} == {STATEMENT}
    sales = answer_from_facts("What were Acme Widgets' net sales for fiscal 2021?", [report], "en")
    assert sales is not None and sales.value == "4224417" and sales.unit == "thousands"
    question = "How much net cash did Acme Widgets' operating activities provide in 2022?"
    cash = answer_from_facts(question, [report], "en")
    assert cash is not None and cash.value == "218024"  # the label's words, inflected otherwise in the question
    dividends = answer_from_facts("What cash dividends per share did Acme Widgets pay in 2022?", [report], "en")
    assert dividends is not None and dividends.value == "1.30" and dividends.unit is None


def test_a_note_column_beside_the_years_is_a_header_not_data() -> None:
    # a UK statement: "Note | 2022 | 2021" over "£'000 | £'000"; the note number "9" is never the figure
    blocks = [
        heading("Consolidated Statement of Comprehensive Income", 22),
        Block.table(
            [["", "Note", "2022", "2021"]],
            [
                ["", "", "£’000", "£’000"],
                ["Loss after taxation", "", "(206)", "(333)"],
                ["Basic and diluted loss per share", "9", "(0.04)", "(0.07)"],
            ],
            page=22,
        ),
    ]
    report = report_of(_en_report(blocks), "armadale.pdf")
    loss = answer_from_facts("What was Acme Widgets' loss after taxation for 2021?", [report], "en")
    assert loss is not None and loss.value == "-333" and loss.unit == "thousands"
    eps = answer_from_facts("What was Acme Widgets' basic and diluted loss per share in 2022?", [report], "en")
    assert eps is not None and eps.value == "-0.04" and eps.unit is None


def test_several_values_of_a_row_under_no_period_are_not_answered() -> None:
    blocks = [
        heading("Summary", 22),
        Block.table([["", "", "", ""]], [["Basic loss per share", "9", "(0.04)", "(0.07)"]], page=22),
    ]
    report = report_of(_en_report(blocks), "x.pdf")
    answer = answer_from_facts("What was Acme Widgets' basic loss per share in 2024?", [report], "en")
    assert answer is None or answer.value is None


def test_an_unruled_statement_goes_on_across_its_sub_headings() -> None:
    # a 10-K printed as text: the years in a heading, the unit on the next line, ASSETS / LIABILITIES as headings
    leader = " " + "." * 40 + " "
    blocks = [
        heading("BALANCE SHEETS", 52),
        para("As of December 31, 2022 2021 (in thousands, except share and per share amounts)", 52),
        heading("ASSETS", 52),
        para(f"Cash and cash equivalents{leader}$ 42,445 $ 53,359 Total assets{leader}$ 43,085 $ 54,924", 52),
        heading("LIABILITIES AND STOCKHOLDERS' EQUITY", 52),
        para(f"Total liabilities{leader}1,412 3,881", 52),
        heading("STATEMENTS OF OPERATIONS", 53),
        heading("Years Ended December 31, 2022 2021", 53),
        para("(in thousands, except share and per share amounts)", 53),
        para(f"Other loss{leader}(5) — Net loss{leader}$ (9,926) $ (19,322)", 53),
    ]
    report = report_of(_en_report(blocks), "arca.pdf")
    liabilities = answer_from_facts("What were Acme Widgets' total liabilities at December 31, 2021?", [report], "en")
    assert liabilities is not None and liabilities.value == "3881" and liabilities.unit == "thousands"
    loss = answer_from_facts("What was Acme Widgets' net loss in 2022?", [report], "en")
    assert loss is not None and loss.value == "-9926" and loss.unit == "thousands"


def test_a_text_header_printed_over_two_lines_and_a_per_share_ask() -> None:
    blocks = [
        heading("CONSOLIDATED BALANCE SHEETS (In thousands, except share and per share amounts)", 4),
        heading("December 31, 2022", 4),
        para("December 31, 2021 ASSETS CURRENT ASSETS", 4),
        para("Cash and cash equivalents $ 52,153 $ 74,810 TOTAL ASSETS $ 81,795 $ 99,945", 4),
        para("CONSOLIDATED STATEMENTS OF OPERATIONS FOR THE YEARS ENDED DECEMBER 31, 2022 AND 2021 (In thousands)", 5),
        para("2022 2021", 5),
        para("NET LOSS $ (27,299) $ (30,340)", 5),
    ]
    report = report_of(_en_report(blocks), "inmune.pdf")
    assets = answer_from_facts("What were Acme Widgets' total assets at December 31, 2021?", [report], "en")
    assert assets is not None and assets.value == "99945" and assets.unit == "thousands"
    # a per-share question never takes the row of the amount ("Net loss" for "net loss per share")
    question = "What was Acme Widgets' basic and diluted net loss per share in 2022?"
    per_share = answer_from_facts(question, [report], "en")
    assert per_share is None or per_share.value is None


def test_a_fiscal_year_asked_as_fy21_is_that_year() -> None:
    blocks = [
        heading("Consolidated statement of profit or loss", 4),
        Block.table([["", "2022", "2021"]], [["Total revenue and other income", "67,435,877", "50,709,118"]], page=4),
    ]
    report = report_of(_en_report(blocks), "kpg.pdf")
    answer = answer_from_facts("What were Acme Widgets' total revenue and other income in FY21?", [report], "en")
    assert answer is not None and answer.value == "50709118"


def test_a_note_number_before_a_text_rows_figures_is_not_a_value() -> None:
    blocks = [
        heading("Consolidated statement of profit or loss and other comprehensive income", 4),
        heading("Consolidated Note 2022 2021 $ $", 4),
        heading("Revenue from continuing operations", 4),
        para("Professional services revenue 5 64,862,110 48,906,446 Other income 7 489,246 977,304", 4),
        para("Net cash from operating activities 17,581,757 14,009,112", 4),
    ]
    report = report_of(_en_report(blocks), "kpg.pdf")
    answer = answer_from_facts("What was Acme Widgets' other income in FY21?", [report], "en")
    assert answer is not None and answer.value == "977304"


def test_the_group_is_the_company_not_a_missing_word() -> None:
    blocks = [
        heading("Consolidated Statement of Cash Flows", 27),
        Block.table([["", "2022", "2021"]], [["Cash outflow from operating activities", "(307)", "(512)"]], page=27),
    ]
    report = report_of(_en_report(blocks), "armadale.pdf")
    question = "How much cash did the Acme Widgets group use in operating activities in 2022?"
    answer = answer_from_facts(question, [report], "en")
    assert answer is None or answer.kind != "not_in_report"
