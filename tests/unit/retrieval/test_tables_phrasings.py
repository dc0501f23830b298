"""More phrasings users type (issue 23), on the second generated folder (eval/table_heldout/inventory_attendance_kb.py):
a verb that names a counted column ("迟到了多少次"), a month word next to a column called 月份, "为0", "还在",
"负责的", units sold.

Real files parsed by the product into a real DuckDB store; expectations from the generated rows.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from table_helpers import exact_result, store_folder

from eval.table_heldout.inventory_attendance_kb import PROJECTS, World2, write_kb2

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("kb2")
    world = write_kb2(root)
    store = store_folder(root, tmp_path_factory.mktemp("store") / "tables.duckdb")
    yield store, world
    store.close()


def _value(kb: Any, question: str) -> Any:
    return exact_result(kb[0], question)


def test_a_verb_names_the_column_that_counts_it(kb: Any) -> None:
    w: World2 = kb[1]
    result = _value(kb, "丁磊一共迟到了多少次")
    assert Decimal(result.data["value"]) == sum(x[3] for x in w.attendance if x[0] == "丁磊")


def test_a_month_next_to_a_month_column_is_a_time(kb: Any) -> None:
    w: World2 = kb[1]
    result = _value(kb, "5月份请假天数合计")
    assert Decimal(result.data["value"]) == sum((x[4] for x in w.attendance if x[2] == "2024-05"), Decimal(0))


def test_equals_zero_and_still_running(kb: Any) -> None:
    w: World2 = kb[1]
    assert int(_value(kb, "请假天数为0的记录有几条").data["value"]) == sum(1 for x in w.attendance if x[4] == 0)
    assert set(_value(kb, "还在进行中的项目有哪些").data["values"]) == {p[0] for p in PROJECTS if p[4] == "进行中"}


def test_whose_project_and_when_it_started(kb: Any) -> None:
    assert Decimal(_value(kb, "吴迪负责的项目预算合计").data["value"]) == sum(p[3] for p in PROJECTS if p[1] == "吴迪")
    assert "2024-01-08" in _value(kb, "ERP升级项目是哪天开始的").answer_text


def test_units_sold_in_english(kb: Any) -> None:
    w: World2 = kb[1]
    result = _value(kb, "how many Widget units were sold in May?")
    assert Decimal(result.data["value"]) == sum(x[5] for x in w.orders if x[4] == "Widget" and x[1].month == 5)
