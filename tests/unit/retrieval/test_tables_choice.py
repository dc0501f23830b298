"""Issue 23 on a folder of ten office files (eval/table_heldout/orders_kb.py): the right table among many, row counts,
complete lists, qualifiers the question defines, and refusals that name files, not server paths.

Real files (openpyxl, python-docx, csv) parsed by the product and stored in a real DuckDB table store;
expectations computed from the generated rows.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from eval.table_heldout.orders_kb import ACTIONS, World, write_kb
from indexing.parsing import parse_file
from indexing.table_store import TableStore
from retrieval.tables import answer_table_question
from retrieval.tables.qualifiers import defined_qualifiers

pytestmark = pytest.mark.slow  # writes and parses ten files, one with 1,986 rows


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("kb")
    world = write_kb(root)
    store = TableStore(tmp_path_factory.mktemp("store") / "tables.duckdb")
    for n, name in enumerate(world.files):
        store.put(f"doc{n}", str(root / name), parse_file(root / name))
    yield store, world, root
    store.close()


def _ask(kb: Any, question: str) -> Any:
    return answer_table_question(question, kb[0], None)


def test_a_count_of_the_whole_sheet_counts_its_rows(kb: Any) -> None:
    world: World = kb[1]
    result = _ask(kb, "订单明细一共有多少条记录")
    assert result.outcome == "exact" and result.data["value"] == str(len(world.orders))


def test_the_order_table_is_chosen_over_other_dated_tables(kb: Any) -> None:
    world: World = kb[1]
    nov = sum(1 for o in world.orders if o.day.month == 11)
    result = _ask(kb, "2023年11月一共下了多少单")
    assert result.outcome == "exact" and result.data["value"] == str(nov)
    assert result.data["table"]["sheet"] == "订单明细"


def test_a_count_of_people_picks_the_table_with_people(kb: Any) -> None:
    world: World = kb[1]
    result = _ask(kb, "市场部有多少人")
    assert result.outcome == "exact"
    assert result.data["value"] == str(sum(1 for s in world.staff if s[2] == "市场部"))
    assert result.data["table"]["sheet"] == "在职员工"  # not the budget sheet, whose rows are quarters


def test_a_qualifier_the_question_defines_becomes_the_filter(kb: Any) -> None:
    world: World = kb[1]
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for o in world.orders:
        if o.status != "已取消":
            totals[o.product] += o.amount
    result = _ask(kb, "有效销售额（不含已取消订单）最高的产品是哪个")
    assert result.outcome == "exact", result.answer_text
    assert result.items[0].value == max(totals, key=totals.__getitem__)
    assert "订单状态 ≠ 已取消" in result.query


def test_an_undefined_adjective_is_still_refused(kb: Any) -> None:
    assert _ask(kb, "有效订单的金额合计").outcome == "refused"
    assert defined_qualifiers("有效订单的金额") == "有效订单的金额"
    assert defined_qualifiers("valid orders (excluding cancelled) total").startswith("orders excluding cancelled")


def test_a_tie_is_refused_naming_files_not_server_paths(kb: Any) -> None:
    root: Path = kb[2]
    result = _ask(kb, "华中区的订单有多少笔")
    assert result.outcome == "refused"
    assert str(root) not in result.answer_text and str(root) not in str(result.data)
    labels = result.data["candidates"]["tables"]  # the order workbook's sheets all read 订单; 华中 is in none
    assert len(labels) > 1 and all(label.startswith("2023年订单台账.xlsx · ") for label in labels)


def test_a_question_about_text_is_no_link(kb: Any) -> None:
    result = _ask(kb, "国庆节放假从哪天到哪天")
    assert result.outcome == "refused" and result.data["kind"] == "no_link"


def test_every_row_is_listed_with_the_named_columns(kb: Any) -> None:
    result = _ask(kb, "每个行动项的截止日期是什么时候")
    assert result.outcome == "exact"
    for item, _, due in ACTIONS:
        assert item in result.answer_text and due.isoformat() in result.answer_text
    assert len(result.items) == len(ACTIONS)


def test_a_date_cell_is_read_for_a_when_question(kb: Any) -> None:
    world: World = kb[1]
    person = world.staff[3]
    result = _ask(kb, f"{person[1]}什么时候入职的")
    assert result.outcome == "exact" and person[4].isoformat() in result.answer_text


def test_units_sold_sum_the_quantity_column(kb: Any) -> None:
    world: World = kb[1]
    result = _ask(kb, "摄像头卖出了多少台")
    assert result.outcome == "exact"
    assert result.data["value"] == str(sum(o.qty for o in world.orders if o.product == "摄像头"))


def test_a_list_names_every_matching_value_with_the_count(kb: Any) -> None:
    world: World = kb[1]
    staff = sorted(s[1] for s in world.staff if s[2] == "销售部")
    result = _ask(kb, "销售部都有哪些员工")
    assert result.outcome == "exact" and sorted(result.data["values"]) == staff
    assert f"共 {len(staff)} 个" in result.answer_text


def test_an_english_question_names_the_table_by_its_file(kb: Any) -> None:
    world: World = kb[1]
    result = _ask(kb, "how many expense claims are pending")
    assert result.outcome == "exact"
    assert result.data["value"] == str(sum(1 for e in world.expenses if e[6] == "Pending"))


def test_largest_single_row_or_largest_total_is_asked_back(kb: Any) -> None:
    result = _ask(kb, "合同金额最大的是哪家单位")
    assert result.outcome == "refused"  # the biggest contract, or the party with the biggest total?


def test_dates_of_the_minutes_are_not_confused_with_orders(kb: Any) -> None:
    world: World = kb[1]
    dec = sum(1 for o in world.orders if o.day >= dt.date(2023, 12, 1))
    assert _ask(kb, "12月份有多少笔订单").data["value"] == str(dec)
