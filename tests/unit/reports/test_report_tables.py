"""Report tables as facts: values, periods, units, wrapped labels, in-table header rows, text tables, cover profile."""

from __future__ import annotations

from decimal import Decimal

from indexing.reports.extract import extract_report
from indexing.reports.periods import parse_period
from indexing.reports.profile import report_profile
from indexing.reports.tables import table_facts
from indexing.reports.text_tables import header_periods, split_rows
from indexing.reports.units import table_unit
from indexing.reports.values import parse_value
from indexing.subjects import extract_subject
from officeqa.domain import Block, BlockType, ParsedDocument


def test_cells_parse_to_exact_decimals_with_accounting_negatives_and_percentages() -> None:
    assert parse_value("3,533,710,584.98").value == Decimal("3533710584.98")
    assert parse_value("-275,531,110.00").value == Decimal("-275531110.00")
    assert parse_value("(56.9)").value == Decimal("-56.9")
    cell = parse_value("24.69%")
    assert cell.value == Decimal("24.69") and cell.percent
    assert parse_value("--") is None and parse_value("详见附注") is None and parse_value("") is None


def test_column_headers_become_periods() -> None:
    assert parse_period("2019年").year == 2019
    end = parse_period("2018年末")
    assert end.year == 2018 and end.point == "end"
    assert parse_period("本年比上年增减").change
    opening = parse_period("期初余额")  # the opening balance is the prior period's closing one
    assert opening.relative == -1 and opening.point == "end"
    assert parse_period("上期发生额").relative == -1 and parse_period("本期发生额").relative == 0
    assert parse_period("2019年1月1日").year == 2018
    assert parse_period("Fiscal 2022").year == 2022
    assert parse_period("第三季度").quarter == 3
    assert parse_period("项目") is None
    assert parse_period("占营业收入比重").share  # a share column with no year of its own


def test_units_come_from_the_line_above_or_the_caption() -> None:
    assert table_unit(["七、合并财务报表", "单位：万元 币种：人民币"]) == ("万元", "人民币")
    assert table_unit(["(in millions of Canadian dollars)"])[0] == "millions"
    assert table_unit(["(C$ millions, unless otherwise noted) Fiscal 2022"]) == ("millions", "C$")
    assert table_unit(["公司简介"]) == (None, None)


def test_wrapped_labels_are_joined_and_in_table_headers_switch_periods() -> None:
    header = [["", "2019年", "2018年", "本年比上年增减", "2017年"]]
    rows = [
        ["营业收入（元）", "3,533,710,584.98", "2,834,084,194.08", "24.69%", "2,612,127,319.84"],
        ["归属于上市公司股东的扣除非经", "", "", "", ""],
        ["", "370,143,518.21", "326,313,802.92", "13.43%", "293,127,544.85"],
        ["常性损益的净利润（元）", "", "", "", ""],
        ["", "2019年末", "2018年末", "本年末比上年末增减", "2017年末"],
        ["总资产（元）", "5,593,990,470.97", "4,721,708,076.86", "18.47%", "4,392,021,465.69"],
    ]
    facts = table_facts(header, rows)
    labels = {f.label for f in facts}
    assert labels == {"营业收入", "归属于上市公司股东的扣除非经常性损益的净利润", "总资产"}
    revenue_2019 = next(f for f in facts if f.label == "营业收入" and f.period and f.period.year == 2019)
    assert revenue_2019.value == "3533710584.98" and revenue_2019.unit == "元"
    assets_2018 = next(f for f in facts if f.label == "总资产" and f.period and f.period.year == 2018)
    assert assets_2018.period.point == "end" and assets_2018.value == "4721708076.86"
    assert all(f.period.change for f in facts if f.text.endswith("%"))


def test_parts_keep_their_parent_and_sub_columns_name_the_metric() -> None:
    facts = table_facts(
        [["项目", "2019年度", "2018年度"]],
        [["一、营业总收入", "100.00", "90.00"], ["其中：营业收入", "100.00", "90.00"]],
    )
    part = next(f for f in facts if f.label == "营业收入")
    assert part.parent == "营业总收入"
    segment = table_facts(
        [["", "", "", "", "营业收入比上年"]],
        [
            ["", "营业收入", "营业成本", "毛利率", ""],
            ["", "", "", "", "同期增减"],
            ["染料", "1,316.00", "465.00", "64.63%", "5.40%"],
        ],
    )
    margin = next(f for f in segment if f.label == "染料" and "毛利率" in f.column)
    assert margin.value == "64.63" and not margin.period
    assert any(f.period is not None and f.period.change for f in segment if f.text == "5.40%")


def test_unruled_tables_read_from_paragraphs_only_when_the_columns_count_matches() -> None:
    columns = header_periods("(C$ millions, unless noted) Fiscal 2022 Fiscal 2021 Fiscal 2020 Fiscal 2021 Fiscal 2020")
    assert [p.year for _t, p in columns] == [2022, 2021, 2020, 2021, 2020]
    assert [p.change for _t, p in columns] == [False, False, False, True, True]
    rows = split_rows(
        "Revenue 1,681.4 1,465.2 1,516.0 216.2 (50.8) Cost of sales (1,547.3) (1,279.9) (1,264.4) (267.4) (15.5)"
    )
    assert rows == [
        ("Revenue", ["1,681.4", "1,465.2", "1,516.0", "216.2", "(50.8)"]),
        ("Cost of sales", ["(1,547.3)", "(1,279.9)", "(1,264.4)", "(267.4)", "(15.5)"]),
    ]
    assert header_periods("Revenue grew in 2022 as prices rose.") is None


def _report_document() -> ParsedDocument:
    blocks = [
        Block(BlockType.HEADING, text="星河智能科技股份有限公司", level=1, page=1),
        Block(BlockType.HEADING, text="2023 年年度报告", level=1, page=1),
        Block.table([["股票简称", "星河智能", "股票代码", "688001"]], [], page=4),
        Block(BlockType.HEADING, text="六、主要会计数据和财务指标", level=2, page=6),
        Block.table(
            [["", "2023年", "2022年", "本年比上年增减"]],
            [["营业收入（元）", "1,200,000.00", "1,000,000.00", "20.00%"]],
            page=6,
        ),
        Block(BlockType.HEADING, text="二、财务报表", level=2, page=60),
        Block(BlockType.PARAGRAPH, text="2、母公司利润表", page=60),
        Block(BlockType.PARAGRAPH, text="单位：元", page=60),
        Block.table([["项目", "2023年度", "2022年度"]], [["一、营业收入", "800,000.00", "700,000.00"]], page=60),
    ]
    return ParsedDocument(path="/kb/report.pdf", file_type="pdf", blocks=blocks)


def test_a_report_gets_its_profile_tables_and_facts() -> None:
    report = extract_report(_report_document())
    assert report is not None
    assert report["year"] == 2023 and report["kind"] == "annual"
    assert report["entity"]["full_name"] == "星河智能科技股份有限公司"
    assert report["entity"]["short_name"] == "星河智能" and report["entity"]["stock_code"] == "688001"
    captions = {t["caption"]: t for t in report["tables"]}
    assert captions["2、母公司利润表"]["parent_company"] and captions["2、母公司利润表"]["unit"] == "元"
    assert any(f["label"] == "营业收入" and f["value"] == "1200000.00" and f["page"] == 6 for f in report["facts"])


def test_a_document_that_is_not_a_report_gets_no_facts() -> None:
    blocks = [
        Block(BlockType.HEADING, text="采购合同", level=1, page=1),
        Block.table([["物品", "2023年"]], [["苹果", "100.00"]], page=1),
    ]
    assert extract_report(ParsedDocument(path="/kb/c.pdf", file_type="pdf", blocks=blocks)) is None


def test_the_cover_names_the_english_entity_and_fiscal_year() -> None:
    blocks = [
        Block(BlockType.HEADING, text="2022 ANNUAL REPORT", level=1, page=1),
        Block(
            BlockType.PARAGRAPH,
            text="On January 1, 2023, Kruger Products L.P. (KPLP) undertook a reorganization.",
            page=2,
        ),
        Block(BlockType.PARAGRAPH, text="KPT (the Corporation) holds shares; marks of Kruger Products Inc.", page=2),
    ]
    profile = report_profile(ParsedDocument(path="/kb/kp.pdf", file_type="pdf", blocks=blocks))
    assert profile["year"] == 2022
    names = str(profile["entity"]["names"]).split("|")
    assert {"KPLP", "Kruger Products L.P."} <= set(names)


def test_the_profile_and_the_subject_name_the_same_company_and_year() -> None:
    """One reader: the facts' entity is the subject scope uses (a 10-K's letter naming the prior year first
    does not make it that year's report)."""
    blocks = [
        Block(BlockType.PARAGRAPH, text="Dear Shareholders, income rose from the year ended December 31, 2021", page=1),
        Block(BlockType.HEADING, text="FNCB BANCORP, INC. 2022 ANNUAL REPORT", level=1, page=2),
        Block(BlockType.PARAGRAPH, text="for the fiscal year ended December 31, 2022", page=3),
    ]
    document = ParsedDocument(path="/kb/fncb.pdf", file_type="pdf", blocks=blocks)
    subject, profile = extract_subject(document), report_profile(document)
    assert subject.fiscal_year == profile["year"] == 2022
    assert profile["entity"]["full_name"] == subject.entity and subject.entity.lower().startswith("fncb bancorp")


def test_a_table_of_contents_gives_no_facts() -> None:
    blocks = [
        Block(BlockType.HEADING, text="2021 Annual Report", level=1, page=1),
        Block(BlockType.HEADING, text="TABLE OF CONTENTS", level=2, page=2),
        Block.table([["Item 1.", "Business", "4"]], [["Item 7.", "MD&A", "12"]], page=2),
    ]
    assert extract_report(ParsedDocument(path="/kb/r.html", file_type="html", blocks=blocks)) is None
