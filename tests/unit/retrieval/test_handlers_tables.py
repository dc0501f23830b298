"""Table handlers: a 10k-row sales workbook checked against sqlite GROUP BY, count, list, fuzzy columns, numbers."""

from __future__ import annotations

import json
import random
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from indexing.parsing import parse_file
from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.handlers.columns import best_column
from retrieval.handlers.numbers import parse_number
from retrieval.l0 import route, run_handler

REGIONS = ["华东", "华北", "华南", "西南", "东北"]


def sales_rows(n: int, seed: int = 7) -> list[tuple[str, str, object]]:
    """(order id, region, amount cell): numbers, formatted strings and a few non-numeric cells."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        cents = rng.randint(1, 5_000_000)
        amount = Decimal(cents) / 100
        kind = rng.random()
        if kind < 0.02:
            cell: object = "暂无"
        elif kind < 0.15:
            cell = f"￥{amount:,.2f}"
        else:
            cell = float(amount)
        rows.append((f"SO{i:05d}", rng.choice(REGIONS), cell))
    return rows


def expected_by_sqlite(rows: list[tuple[str, str, object]]) -> tuple[dict[str, Decimal], int]:
    """An independent computation: integer cents summed by sqlite3 GROUP BY."""
    db = sqlite3.connect(":memory:")
    db.execute("create table s (region text, cents integer)")
    skipped = 0
    for _, region, cell in rows:
        if cell == "暂无":
            skipped += 1
            continue
        text = str(cell).replace("￥", "").replace(",", "")
        whole, _, frac = text.partition(".")
        db.execute("insert into s values (?, ?)", (region, int(whole) * 100 + int((frac + "00")[:2])))
    sums = {r: Decimal(c) / 100 for r, c in db.execute("select region, sum(cents) from s group by region")}
    db.close()
    return sums, skipped


@pytest.mark.slow
def test_10k_row_xlsx_sum_by_region_matches_sqlite(tmp_path: Path) -> None:
    import openpyxl
    rows = sales_rows(10_000)
    workbook = openpyxl.Workbook()
    first = workbook.active
    first.title = "一季度"
    first.append(["订单号", "所属地区", "销售金额(元)"])
    for row in rows[:7_000]:
        first.append(list(row))
    second = workbook.create_sheet("二季度")
    second.append(["订单编号", "地区", "销售额"])  # other wording: still merged by fuzzy column matching
    for row in rows[7_000:]:
        second.append(list(row))
    path = tmp_path / "sales.xlsx"
    workbook.save(path)

    doc = parse_file(path)
    decision = route("按地区汇总销售额", file_type="xlsx")
    assert decision.route == "table_aggregate" and decision.mode == "answer"
    result = run_handler(decision, [doc])

    expected, skipped = expected_by_sqlite(rows)
    assert result.data["tables"] == 2
    assert {k: Decimal(v) for k, v in result.data["groups"].items()} == expected
    assert Decimal(result.data["total"]) == sum(expected.values())
    assert result.skipped == skipped > 0
    sheets = {c.sheet for item in result.items for c in item.citations}
    assert sheets == {"一季度", "二季度"}
    assert sum(c.rows for item in result.items for c in item.citations) == 10_000
    example = result.data["skipped_examples"][0]
    assert example["value"] == "暂无" and example["citation"]["sheet_row"] >= 2

    json.dumps(result.to_json(), ensure_ascii=False)  # the CLI/HTTP shape is plain JSON (no Decimal)
    count = run_handler(route("华东地区有多少条订单"), [doc])
    assert count.data["count"] == sum(1 for _, region, _ in rows if region == "华东")


def _table(header: list[str], rows: list[list[str]], sheet: str = "Sheet1") -> Block:
    return Block(type=BlockType.TABLE, header_rows=[header], rows=rows, sheet=sheet)


def test_aggregate_on_blocks_built_directly() -> None:
    rows = sales_rows(2_000, seed=3)
    cells = [[o, r, c if isinstance(c, str) else repr(c)] for o, r, c in rows]
    table = _table(["订单号", "所属地区", "销售金额(元)"], cells)
    doc = ParsedDocument(path="direct.xlsx", file_type="xlsx", blocks=[table])
    expected, skipped = expected_by_sqlite(rows)
    result = run_handler(route("sum sales by region"), [doc])
    assert {k: Decimal(v) for k, v in result.data["groups"].items()} == expected
    assert result.skipped == skipped

    averages = run_handler(route("每个地区的平均销售额"), [doc]).data["groups"]
    counts = {r: sum(1 for _, g, c in rows if g == r and c != "暂无") for r in REGIONS}
    for region in REGIONS:
        assert abs(Decimal(averages[region]) - expected[region] / counts[region]) < Decimal("0.0001")

    maxima = run_handler(route("各地区最高销售额"), [doc]).data["groups"]
    for region in REGIONS:
        best = max(parse_number(c) for _, g, c in rows if g == region and c != "暂无")
        assert Decimal(maxima[region]) == best

    per_region_rows = run_handler(route("各地区分别有多少条记录"), [doc]).data
    assert per_region_rows["op"] == "count"
    assert {k: int(v) for k, v in per_region_rows["groups"].items()} == {
        r: sum(1 for _, g, _ in rows if g == r) for r in REGIONS}


SMALL = ParsedDocument(path="orders.xlsx", file_type="xlsx", blocks=[
    Block(type=BlockType.HEADING, text="订单", level=1, sheet="订单"),
    _table(["客户名称", "地区", "金额", "状态"], [
        ["甲公司", "华东", "1,200", "已完成"],
        ["乙公司", "华北", "800", "进行中"],
        ["甲公司", "华东", "2,500.50", "已完成"],
        ["丙公司", "华南", "N/A", "已完成"],
    ], sheet="订单"),
])


@pytest.mark.parametrize(("instruction", "count"), [
    ("表里一共有多少条记录", 4),
    ("金额大于1000的有几条", 2),
    ("1000元以上的订单有几条", 2),
    ("状态为已完成的订单有多少笔", 3),
    ("华东地区有多少条订单", 2),
    ("count the records where 地区 is 华北", 1),
])
def test_count_with_conditions(instruction: str, count: int) -> None:
    decision = route(instruction, file_type="xlsx")
    assert decision.route == "count"
    result = run_handler(decision, [SMALL])
    assert result.data["count"] == count
    assert all(item.citations[0].row is not None for item in result.items)


def test_list_values_distinct_with_citations() -> None:
    result = run_handler(route("列出所有客户名称"), [SMALL])
    assert [i.value for i in result.items] == ["甲公司", "乙公司", "丙公司"]
    assert [i.extra["count"] for i in result.items] == [2, 1, 1]
    assert result.items[1].citations[0].row == 2
    assert [i.value for i in run_handler(route("list all regions"), [SMALL]).items] == ["华东", "华北", "华南"]


def test_unresolvable_columns_are_reported_not_guessed() -> None:
    result = run_handler(route("按部门汇总工资"), [SMALL])
    assert result.items == [] and result.warnings and "部门" in result.warnings[0]


@pytest.mark.parametrize(("phrase", "headers", "expected"), [
    ("地区", ["订单号", "所属地区", "销售金额(元)"], 1),
    ("销售额", ["订单号", "所属地区", "销售金额(元)"], 2),
    ("sales", ["Order", "Region", "Sales Amount"], 2),
    ("region", ["订单号", "所属地区", "销售金额(元)"], 1),
    ("工资", ["姓名", "部门", "月薪资(元)"], 2),
    ("部门", ["姓名", "地区"], None),
])
def test_fuzzy_columns(phrase: str, headers: list[str], expected: int | None) -> None:
    assert best_column(phrase, headers) == expected


@pytest.mark.parametrize(("cell", "value"), [
    ("1,234.50", Decimal("1234.50")), ("￥1,200", Decimal("1200")), ("12%", Decimal("0.12")),
    ("(1,234)", Decimal("-1234")), ("1.2万", Decimal("12000")), ("3000元", Decimal("3000")), ("-3", Decimal("-3")),
    ("１２３", Decimal("123")), ("暂无", None), ("", None), ("N/A", None), ("12a", None),
])
def test_parse_number(cell: str, value: Decimal | None) -> None:
    assert parse_number(cell) == value
