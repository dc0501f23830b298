"""Question -> structured query: time ranges, negation, ambiguity refusals, parameterised SQL, the words said."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from indexing.table_store import TableStore
from officeqa.domain import Block, ParsedDocument
from officeqa.normalize import normalize
from retrieval.tables import answer_table_question, plan_question
from retrieval.tables.timeexpr import cn_number, find_time_exprs

ROWS = [
    # 区域, 发货区域, 状态, 日期, 订单金额, 回款金额
    ["华东", "华北", "已完成", "2024-01-15", "100.10", "100.10"],
    ["华东", "华东", "已取消", "2024-02-01", "50", "0"],
    ["华北", "华东", "已完成", "2024-07-03", "30.5", "30"],
    ["华南", "华南", "待发货", "2024-08-20", "12", "0"],
    ["华东", "华南", "", "2024-09-30", "7.25", "7.25"],
]


@pytest.fixture
def store(tmp_path: Path) -> TableStore:
    doc = ParsedDocument(path="amb.xlsx", file_type="xlsx", blocks=[Block.table(
        [["区域", "发货区域", "状态", "日期", "订单金额", "回款金额"]], ROWS, sheet="订单", meta={"first_row": 1,
                                                                                    "last_row": 6})])
    s = TableStore(tmp_path / "t.duckdb")
    s.put("amb", "amb.xlsx", doc)
    yield s
    s.close()


def _sum(pred, col: int = 4) -> Decimal:
    return sum((Decimal(r[col]) for r in ROWS if pred(r)), Decimal(0))


@pytest.mark.parametrize(("text", "first", "last", "year"), [
    ("2024年第三季度", 7, 9, 2024), ("三季度", 7, 9, None), ("q2 2023", 4, 6, 2023), ("7—9月", 7, 9, None),
    ("7月到9月", 7, 9, None), ("12月份", 12, 12, None), ("上半年", 1, 6, None), ("下半年", 7, 12, None),
    ("march 2024", 3, 3, 2024), ("from july to september", 7, 9, None), ("2024-03", 3, 3, 2024),
    ("2024年", 1, 12, 2024), ("second half of 2023", 7, 12, 2023),
])
def test_time_expressions(text: str, first: int, last: int, year: int | None) -> None:
    [expr] = [e for e in find_time_exprs(normalize(text)) if not e.qualifier]
    assert (expr.first_month, expr.last_month, expr.year) == (first, last, year)


def test_time_expressions_dates_and_relative() -> None:
    [r] = find_time_exprs(normalize("2024-07-01至2024-09-30"))
    assert r.date_range() == (dt.date(2024, 7, 1), dt.date(2024, 10, 1))
    [u] = find_time_exprs(normalize("截至2024年6月30日"))
    assert u.date_range() == (None, dt.date(2024, 7, 1))
    assert all(e.relative for e in find_time_exprs(normalize("去年和上个月")))
    assert find_time_exprs(normalize("3个月内")) == []  # a duration, not a month
    assert (cn_number("一万五千"), cn_number("十二"), cn_number("两千"), cn_number("x")) == (15000, 12, 2000, None)


def test_a_value_found_in_two_columns_is_refused_unless_the_column_is_named(store: TableStore) -> None:
    refused = answer_table_question("华东的订单金额合计", store)
    assert refused.outcome == "refused" and refused.data["candidates"]["columns"] == ["区域", "发货区域"]
    named = answer_table_question("发货区域为华东的订单金额合计", store)
    assert named.outcome == "exact" and Decimal(named.data["value"]) == _sum(lambda r: r[1] == "华东")


def test_a_measure_reached_by_two_columns_is_refused(store: TableStore) -> None:
    result = answer_table_question("区域是华南的金额合计", store)
    assert result.outcome == "refused"
    assert set(result.data["candidates"]["columns"]) == {"订单金额", "回款金额"}


def test_negation_includes_blank_cells_and_covers_a_run_of_values(store: TableStore) -> None:
    result = answer_table_question("不含已取消和待发货的订单金额合计", store)
    assert result.outcome == "exact"
    assert Decimal(result.data["value"]) == _sum(lambda r: r[2] not in ("已取消", "待发货"))  # blank status counts
    assert "状态 ∉ {已取消、待发货}" in result.query
    assert answer_table_question("除华南以外区域的订单金额合计", store).data["value"] == str(
        _sum(lambda r: r[0] != "华南"))


def test_quarter_without_year_takes_the_only_year_in_the_data(store: TableStore) -> None:
    result = answer_table_question("第三季度区域为华东的回款金额合计", store)
    assert result.outcome == "exact"
    assert "日期 在 2024-07-01 ~ 2024-09-30" in result.query
    assert Decimal(result.data["value"]) == Decimal("7.25")


def test_numeric_conditions_between_and_chinese_numerals(store: TableStore) -> None:
    assert answer_table_question("订单金额大于三十的有几笔", store).data["value"] == "3"
    between = answer_table_question("订单金额在10到60之间的订单有多少笔", store)
    assert between.outcome == "exact" and between.data["value"] == "3"


def test_unknown_words_are_refused_with_the_words(store: TableStore) -> None:
    result = answer_table_question("华中区的订单金额合计", store)
    assert result.outcome == "refused" and result.data["candidates"]["not_understood"] == ["华中区的"]


def test_question_text_never_reaches_sql(store: TableStore) -> None:
    attack = "区域为华东'; DROP TABLE tq_tables; --的订单金额合计"
    result = answer_table_question(attack, store)
    assert result.outcome == "refused"
    assert store.tables(["amb"])  # the catalog is intact
    plan = plan_question("区域为华东的订单金额合计", store)
    assert plan.query is not None and plan.query.filters[0].values == ["华东"]


def test_group_by_month_and_argmax_ties(store: TableStore) -> None:
    months = answer_table_question("按月汇总订单金额", store)
    assert months.data["groups"]["2024-07"] == "30.50"
    tie = answer_table_question("哪个状态的订单最多", store)  # 已完成 has 2 rows, the others 1
    assert [i.value for i in tie.items] == ["已完成"]


def test_rows_are_cited_as_spreadsheet_rows(store: TableStore) -> None:
    result = answer_table_question("区域为华南的订单金额合计", store)
    cite = result.items[0].citations[0]
    assert cite.sheet == "订单" and cite.row_list == [5] and cite.rows == 1  # header on row 1, 华南 on row 5
    assert "rows 5" in cite.label()


def test_answer_for_route_answers_table_routes_only_when_tables_are_stored(store: TableStore) -> None:
    from retrieval.tables import answer_for_route

    result = answer_for_route("table_aggregate", "区域为华南的订单金额合计", store, ["amb"])
    assert result is not None and result.outcome == "exact" and result.route == "table_aggregate"
    assert answer_for_route("retrieve_qa", "区域为华南的订单金额合计", store, ["amb"]) is None
    assert answer_for_route("count", "有几行", store, ["other-doc"]) is None  # no stored table in scope
    assert answer_for_route("count", "有几行", None, ["amb"]) is None
    counted = answer_for_route("count", "表里有几行", store, ["amb"])
    assert counted is not None and counted.data["value"] == str(len(ROWS))


@pytest.fixture
def sales(tmp_path: Path) -> TableStore:
    rows = [["SO-1", "2024-01-06", "华东", "李娜", "A", "100"], ["SO-2", "2024-02-10", "华东", "张伟", "B", "40"],
            ["SO-3", "2024-04-01", "华北", "王芳", "A", "70"], ["SO-4", "2024-03-28", "华南", "李娜", "A", "25"]]
    doc = ParsedDocument(path="sales.xlsx", file_type="xlsx", blocks=[Block.table(
        [["订单号", "下单日期", "区域", "销售员", "评级", "金额（元）"]], rows, sheet="订单明细",
        meta={"first_row": 1, "last_row": 5})])
    s = TableStore(tmp_path / "s.duckdb")
    s.put("sales", "sales.xlsx", doc)
    yield s
    s.close()


def test_a_word_before_the_measure_modifies_it_and_names_no_column(sales: TableStore) -> None:
    # "销售金额": 销售 is a synonym of 销售员 but here it only qualifies 金额
    result = answer_table_question("2024年第一季度华东区的销售金额合计是多少元？", sales, ["sales"])
    assert result.outcome == "exact" and result.data["value"] == "140"


def test_a_second_marker_of_the_same_grouping_is_understood(sales: TableStore) -> None:
    result = answer_table_question("按区域汇总各区域的金额", sales, ["sales"])
    assert result.outcome == "exact"
    assert "华东: 140" in result.answer_text and "华北: 70" in result.answer_text


def test_a_one_letter_grade_after_wei_is_a_value(sales: TableStore) -> None:
    result = answer_table_question("评级为A的订单有几条？", sales, ["sales"], route="count")
    assert result.outcome == "exact" and result.data["value"] == "3"
    # the letter alone elsewhere in a sentence is not taken for the grade
    assert answer_table_question("a订单金额合计", sales, ["sales"]).data.get("value") != "195"


def test_a_share_question_reads_the_share_column_not_the_numerators(tmp_path: Path) -> None:
    doc = ParsedDocument(path="regions.xlsx", file_type="xlsx", blocks=[Block.table(
        [["区域", "销售额（元）", "占销售总额比例"]],
        [["华东", "500", "50%"], ["华北", "300", "30%"], ["华南", "200", "20%"]], sheet="区域",
        meta={"first_row": 1, "last_row": 4})])
    store = TableStore(tmp_path / "r.duckdb")
    store.put("regions", "regions.xlsx", doc)
    try:
        share = answer_table_question("华东和华北的销售额合计占销售总额的比例是多少？", store, ["regions"])
        assert share.outcome == "exact", share.answer_text
        assert "占销售总额比例" in share.answer_text and "800" not in share.answer_text
        assert "结果：80%（精确值 0.8）" in share.answer_text  # written as percentages, shown as percentages
        # without the share wording both measures are still ambiguous
        both = answer_table_question("销售额和占销售总额比例合计是多少？", store, ["regions"])
        assert both.outcome != "exact"
    finally:
        store.close()


def test_the_top_ranked_groups_are_totalled_when_the_question_asks_for_a_total(tmp_path: Path) -> None:
    doc = ParsedDocument(path="customers.xlsx", file_type="xlsx", blocks=[Block.table(
        [["客户", "销售额（元）", "占销售总额比例"]],
        [["甲", "500", "50%"], ["乙", "300", "30%"], ["丙", "150", "15%"], ["丁", "50", "5%"]], sheet="客户",
        meta={"first_row": 1, "last_row": 5})])
    store = TableStore(tmp_path / "c.duckdb")
    store.put("customers", "customers.xlsx", doc)
    try:
        total = answer_table_question("前两名客户合计销售额是多少？", store, ["customers"])
        assert total.outcome == "exact", total.answer_text
        assert "前 2 项合计：800" in total.answer_text and total.data["value"] == "800"
        share = answer_table_question("前三名客户合计销售额占销售总额的比例是多少？", store, ["customers"])
        assert "前 3 项合计：95%（精确值 0.95）" in share.answer_text, share.answer_text
        # no total word: the ranking alone
        ranked = answer_table_question("销售额最高的两个客户", store, ["customers"])
        assert "合计" not in ranked.answer_text and "甲" in ranked.answer_text
    finally:
        store.close()


def test_english_count_columns_are_summed_ranked_and_named_in_the_singular(shared_dir: Path, tmp_path: Path) -> None:
    from indexing.parsing import parse_file

    doc = parse_file(shared_dir / "corpus" / "csv" / "EDGE_utf16-bom_stanley-cups.csv")  # Team, Location, Cups
    store = TableStore(tmp_path / "cups.duckdb")
    store.put("cups", "stanley-cups.csv", doc)
    try:
        total = answer_table_question("How many Stanley Cups in total?", store, ["cups"])
        assert total.outcome == "exact" and total.data["value"] == "16", total.answer_text  # 1 + 2 + 13, not 3 rows
        flyers = answer_table_question("How many Stanley Cups did the Flyers win?", store, ["cups"])
        assert flyers.data.get("value") == "2", flyers.answer_text
        most = answer_table_question("Which team won the Stanley Cup the most times?", store, ["cups"])
        assert most.outcome == "exact" and "Maple Leafs: 13 (1 row)" in most.answer_text, most.answer_text
    finally:
        store.close()


def test_several_rows_of_a_price_are_listed_not_summed(tmp_path: Path) -> None:
    doc = ParsedDocument(path="prices.xlsx", file_type="xlsx", blocks=[Block.table(
        [["区域", "产品", "单价", "金额（元）"]], [["华东", "A", "10", "100"], ["华东", "B", "8", "40"]], sheet="价格",
        meta={"first_row": 1, "last_row": 3})])
    store = TableStore(tmp_path / "p.duckdb")
    store.put("prices", "prices.xlsx", doc)
    try:
        price = answer_table_question("华东的单价有多少", store, ["prices"])
        assert "18" not in price.answer_text and "单价：10" in price.answer_text and "单价：8" in price.answer_text
        amount = answer_table_question("华东区的金额是多少", store, ["prices"])
        assert amount.data.get("value") == "140"
    finally:
        store.close()
