"""The table store: typed columns (decimals, dates, identifiers), provenance, replace/delete, lock errors."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from indexing.parsing import parse_file
from indexing.table_columns import display_value, parse_date, type_columns
from indexing.table_store import TableStore, TableStoreError, value_core
from officeqa.domain import Block, ParsedDocument


def _doc(header: list[list[str]], rows: list[list[str]], **fields: object) -> ParsedDocument:
    return ParsedDocument(path="t.xlsx", file_type="xlsx", blocks=[Block.table(header, rows, **fields)])


def test_numbers_are_exact_decimals_and_bad_cells_are_counted() -> None:
    spec = type_columns([["金额"]], [["1,234.50"], ["￥0.1"], ["0.2"], ["暂无"], ["12%"], [""]])[0]
    assert spec.kind == "decimal" and spec.scale == 2
    assert spec.values[:3] == [Decimal("1234.50"), Decimal("0.10"), Decimal("0.20")]
    assert spec.values[3] is None and spec.bad_cells == 1 and spec.values[4] == Decimal("0.12")
    assert spec.raw is not None and spec.raw[0] == "1,234.50"  # the source text is kept where it differs


def test_xlsx_style_numbers_keep_no_raw_copy() -> None:
    spec = type_columns([["数量"]], [["3"], ["12.5"], ["100"]])[0]
    assert spec.kind == "decimal" and spec.raw is None
    assert [display_value(v) for v in spec.values] == ["3", "12.5", "100"]


@pytest.mark.parametrize(("text", "serials", "expected"), [
    ("2024-03-05", False, dt.datetime(2024, 3, 5)),
    ("2024/3/5", False, dt.datetime(2024, 3, 5)),
    ("2024.3.5", False, dt.datetime(2024, 3, 5)),
    ("2024年3月5日", False, dt.datetime(2024, 3, 5)),
    ("2024-03-05T10:30:00", False, dt.datetime(2024, 3, 5, 10, 30)),
    ("45356", True, dt.datetime(2024, 3, 5)),
    ("45356", False, None),  # a number is a date only under a date header
    ("2024-02-30", False, None),
])
def test_dates(text: str, serials: bool, expected: dt.datetime | None) -> None:
    got = parse_date(text, serials=serials)
    assert (got[0] if got else None) == expected


def test_date_columns_from_text_and_serials() -> None:
    specs = type_columns([["下单日期", "月份", "金额"]],
                         [["45356", "2024年3月", "1"], ["2024/3/6", "2024年4月", "2"]])
    assert specs[0].kind == "date" and specs[0].values == [dt.date(2024, 3, 5), dt.date(2024, 3, 6)]
    assert specs[1].kind == "date" and specs[1].granularity == "month" and specs[1].values[1] == dt.date(2024, 4, 1)


@pytest.mark.parametrize(("header", "cells", "kind"), [
    ("联系电话", ["13800138000", "13900139000"], "phone"),
    ("备注", ["13800138000", "13912345678", "010-88886666"], "phone"),
    ("身份证号", ["110101199001011234", "11010119900101123X"], "id_number"),
    ("订单编号", ["1001", "1002", "1003"], "code"),
    ("工号", ["007", "012", "013"], "code"),
    ("客户代码", ["0012", "0345", "0777"], "code"),
    ("序号", ["1", "2", "3", "4", "5", "6"], "code"),
    ("行", ["1", "2", "3", "4", "5", "6"], "sequence"),
    ("年份", ["2023", "2024", "2024"], "year"),
])
def test_identifiers_are_text_never_measures(header: str, cells: list[str], kind: str) -> None:
    spec = type_columns([[header]], [[c] for c in cells])[0]
    assert spec.identifier == kind and spec.kind == "text"


def test_measures_stay_measures() -> None:
    specs = type_columns([["数量", "金额", "工资"]], [["1", "120000", "8000"], ["2", "135000", "9000"],
                                                    ["3", "150000", "8500"], ["4", "90000", "7000"],
                                                    ["5", "80000", "6000"]])
    assert [s.identifier for s in specs] == [None, None, None]
    assert all(s.kind == "decimal" for s in specs)


def test_merged_header_gives_a_path_per_column() -> None:
    specs = type_columns([["区域", "上半年", "上半年"], ["区域", "目标", "实际"]], [["华东", "1", "2"]])
    assert [s.path for s in specs] == [["区域"], ["上半年", "目标"], ["上半年", "实际"]]
    assert specs[1].name == "上半年 / 目标"


def test_put_tables_delete_and_provenance(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "t.duckdb")
    doc = _doc([["区域", "金额"]], [["华东", "1.5"], ["华北", "2"]], sheet="S", meta={"first_row": 3, "last_row": 5})
    [info] = store.put("doc1", "a.xlsx", doc)
    assert info.name == "S" and info.row_count == 2 and info.rows_exact and info.first_sheet_row == 4
    assert [(c.name, c.kind) for c in info.columns] == [("区域", "text"), ("金额", "decimal")]
    _names, rows = store.query(f"SELECT _row, _sheet_row, c1 FROM {info.sql} ORDER BY _row")
    assert rows == [(1, 4, Decimal("1.5")), (2, 5, Decimal("2.0"))]
    assert [h.value for h in store.values_in([info.table_id], "华东区的金额")] == ["华东"]
    again = store.put("doc1", "a.xlsx", _doc([["区域", "金额"]], [["华南", "9"]], sheet="S"))
    assert [t.table_id for t in store.tables(["doc1"])] == [again[0].table_id] != [info.table_id]
    assert not again[0].rows_exact  # no first_row recorded: data rows are cited, not sheet rows
    assert store.delete("doc1") == 1 and store.tables(["doc1"]) == [] and store.tables([]) == []
    store.close()


def test_rows_are_not_claimed_exact_when_blank_rows_were_dropped(tmp_path: Path) -> None:
    doc = _doc([["区域", "金额"]], [["华东", "1"], ["华北", "2"]], sheet="S", meta={"first_row": 1, "last_row": 4})
    with TableStore(tmp_path / "t.duckdb") as store:
        [info] = store.put("d", "a.xlsx", doc)
    assert not info.rows_exact and info.first_sheet_row is None


def test_one_table_per_sheet_and_per_document_table(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    docx = pytest.importorskip("docx")
    wb = openpyxl.Workbook()
    wb.active.title = "一月"
    wb.active.append(["产品", "销量"])
    wb.active.append(["A", 3])
    other = wb.create_sheet("二月")
    other.append(["产品", "销量"])
    other.append(["B", 4])
    xlsx = tmp_path / "m.xlsx"
    wb.save(xlsx)
    document = docx.Document()
    for title in ("表一", "表二"):
        document.add_paragraph(title)
        table = document.add_table(rows=2, cols=2)
        table.rows[0].cells[0].text, table.rows[0].cells[1].text = "项目", "预算"
        table.rows[1].cells[0].text, table.rows[1].cells[1].text = "x", "1"
    path = tmp_path / "b.docx"
    document.save(path)
    with TableStore(tmp_path / "t.duckdb") as store:
        sheets = store.put("x", str(xlsx), parse_file(xlsx))
        tables = store.put("d", str(path), parse_file(path))
    assert [(t.name, t.sheet, t.rows_exact) for t in sheets] == [("一月", "一月", True), ("二月", "二月", True)]
    assert [t.table_no for t in tables] == [1, 2] and all(t.sheet is None for t in tables)


def test_value_core_drops_place_words() -> None:
    assert value_core("华东区") == "华东" and value_core("北京市") == "北京" and value_core("区") == "区"


def test_a_store_locked_by_another_process_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "t.duckdb"
    TableStore(path).close()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import duckdb, sys, time
        con = duckdb.connect({str(path)!r})
        print("locked", flush=True)
        sys.stdin.readline()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(TableStoreError, match=r"t\.duckdb: cannot be opened"):
            TableStore(path).tables()
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=60)
