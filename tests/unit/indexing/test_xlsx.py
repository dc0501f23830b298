"""Excel parsing: workbooks built here with openpyxl (some with patched sheet XML), plus the xlsx corpus."""

from __future__ import annotations

import datetime as dt
import io
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest

from indexing.parsing import xlsx
from indexing.parsing.xlsx import cell_text, parse_xlsx
from officeqa.domain import Block, BlockType
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

SETTINGS = ParsingSettings()


def _tables(blocks: list[Block]) -> list[Block]:
    return [b for b in blocks if b.type is BlockType.TABLE]


def _patch_sheet(path: Path, transform, part: str = "xl/worksheets/sheet1.xml") -> None:
    with zipfile.ZipFile(path) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in members:
            archive.writestr(info, transform(data) if info.filename == part else data)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (1.0, "1"),
        (0.1 + 0.2, "0.3"),
        (-3, "-3"),
        (1234567.25, "1234567.25"),
        (True, "TRUE"),
        (dt.datetime(2024, 1, 5), "2024-01-05"),
        (dt.datetime(2024, 1, 5, 13, 45), "2024-01-05T13:45:00"),
        (dt.date(2024, 1, 5), "2024-01-05"),
        (dt.time(9, 30), "09:30:00"),
        (dt.timedelta(hours=30, minutes=5), "30:05:00"),
        ("  two\nlines ", "two lines"),
    ],
)
def test_cell_text(value: object, text: str) -> None:
    assert cell_text(value) == text


def test_dates_numbers_and_sheets(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Orders"
    ws.append(["Date", "Amount", "Paid at"])
    ws.append([dt.date(2024, 1, 5), 0.1 + 0.2, dt.datetime(2024, 1, 5, 13, 45)])
    ws.append([dt.date(2024, 2, 1), 12.0, dt.datetime(2024, 2, 1)])
    other = wb.create_sheet("客户")
    other.append(["名称", "城市"])
    other.append(["甲公司", "上海"])
    path = tmp_path / "orders.xlsx"
    wb.save(path)
    doc = parse_xlsx(path, None, SETTINGS)
    orders, clients = _tables(doc.blocks)
    assert orders.sheet == "Orders" and clients.sheet == "客户"
    assert orders.header_rows == [["Date", "Amount", "Paid at"]]
    assert orders.rows == [["2024-01-05", "0.3", "2024-01-05T13:45:00"], ["2024-02-01", "12", "2024-02-01"]]
    assert clients.rows == [["甲公司", "上海"]]
    sheet_headings = [b.text for b in doc.blocks if b.type is BlockType.HEADING and b.level == 1]
    assert sheet_headings == ["Orders", "客户"]
    assert all(b.sheet for b in doc.blocks)


def test_formula_cached_value_is_read(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["a", "b", "sum"])
    ws.append([1, 2, "=A2+B2"])
    path = tmp_path / "formula.xlsx"
    wb.save(path)
    # openpyxl writes no cached value; write the one Excel would have stored
    _patch_sheet(path, lambda data: data.replace(b"<f>A2+B2</f><v></v>", b"<f>A2+B2</f><v>3</v>"))
    (table,) = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    assert table.rows == [["1", "2", "3"]]


def _merged_header_book(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws["A1"] = "Quarterly sales"
    ws["A3"], ws["B3"], ws["D3"] = "Region", "H1 2024", "H2 2024"
    ws.merge_cells("B3:C3")
    ws.merge_cells("D3:E3")
    ws.merge_cells("A3:A4")
    for col, text in zip("BCDE", ["Q1", "Q2", "Q3", "Q4"], strict=True):
        ws[f"{col}4"] = text
    ws.append(["North", 10, 20, 30, 40])
    ws.append(["South", 1.5, 2.5, 3.5, 4.5])
    wb.save(path)


def test_merged_header_cells_fill_their_span(tmp_path: Path) -> None:
    path = tmp_path / "merged.xlsx"
    _merged_header_book(path)
    blocks = parse_xlsx(path, None, SETTINGS).blocks
    (table,) = _tables(blocks)
    assert table.header_rows == [
        ["Region", "H1 2024", "H1 2024", "H2 2024", "H2 2024"],
        ["Region", "Q1", "Q2", "Q3", "Q4"],
    ]
    assert table.header == ["Region", "H1 2024 / Q1", "H1 2024 / Q2", "H2 2024 / Q3", "H2 2024 / Q4"]
    assert table.rows == [["North", "10", "20", "30", "40"], ["South", "1.5", "2.5", "3.5", "4.5"]]
    assert table.caption == "Quarterly sales"
    assert any(b.type is BlockType.PARAGRAPH and b.text == "Quarterly sales" for b in blocks)


def test_streaming_path_reads_the_same_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Very large sheet parts go through openpyxl read-only + a <mergeCells> scan; the result must not differ."""
    path = tmp_path / "merged.xlsx"
    _merged_header_book(path)
    expected = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    monkeypatch.setattr(xlsx, "STREAM_ABOVE_BYTES", 0)
    streamed = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    assert [(t.header_rows, t.rows) for t in streamed] == [(t.header_rows, t.rows) for t in expected]


def _inflated_book(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["first", "second", "third"])
    ws.append([1, 2, 3])
    ws.append([4, 5, 6])
    wb.save(path)

    def inflate(data: bytes) -> bytes:
        data = data.replace(b'<dimension ref="A1:C3"/>', b'<dimension ref="A1:C1048576"/>')
        return data.replace(b"</sheetData>", b'<row r="1048576"><c r="A1048576" s="0"/></row></sheetData>')

    _patch_sheet(path, inflate)


@pytest.mark.parametrize("stream", [False, True])
def test_inflated_dimension_reads_only_real_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stream: bool) -> None:
    path = tmp_path / "inflated.xlsx"
    _inflated_book(path)
    assert b"A1:C1048576" in zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml")
    if stream:
        monkeypatch.setattr(xlsx, "STREAM_ABOVE_BYTES", 0)
    settings = ParsingSettings(xlsx_max_empty_run=100)
    doc = parse_xlsx(path, None, settings)
    (table,) = _tables(doc.blocks)
    assert table.rows == [["1", "2", "3"], ["4", "5", "6"]]
    if stream:  # openpyxl walks the gap row by row: it must give up after the empty run
        assert any("consecutive empty rows" in w for w in doc.warnings)


def test_row_cap_and_empty_run_stop_with_warnings(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["n", "square"])
    for n in range(1, 30):
        ws.append([n, n * n])
    ws["A200"] = "far away"
    path = tmp_path / "long.xlsx"
    wb.save(path)
    capped = parse_xlsx(path, None, ParsingSettings(xlsx_max_rows=10))
    (table,) = _tables(capped.blocks)
    assert len(table.rows) == 9  # 10 kept rows, one of them the header
    assert any("xlsx_max_rows" in w for w in capped.warnings)
    stopped = parse_xlsx(path, None, ParsingSettings(xlsx_max_empty_run=50))
    assert "far away" not in [b.text for b in stopped.blocks]
    assert any("xlsx_max_empty_run" in w for w in stopped.warnings)
    full = parse_xlsx(path, None, SETTINGS)
    assert "far away" in [b.text for b in full.blocks]


def test_leading_empty_rows_and_columns_are_trimmed(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["C5"], ws["D5"] = "k", "v"
    ws["C6"], ws["D6"] = "x", 1
    path = tmp_path / "offset.xlsx"
    wb.save(path)
    (table,) = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    assert table.header_rows == [["k", "v"]] and table.rows == [["x", "1"]]
    assert table.meta["first_row"] == 5


def test_encrypted_xlsx_built_here(tmp_path: Path) -> None:
    from msoffcrypto.format.ooxml import OOXMLFile

    wb = openpyxl.Workbook()
    wb.active.append(["secret", "value"])
    wb.active.append(["pin", 4711])
    plain = io.BytesIO()
    wb.save(plain)
    plain.seek(0)
    locked = io.BytesIO()
    OOXMLFile(plain).encrypt("1234", locked)
    path = tmp_path / "locked.xlsx"
    path.write_bytes(locked.getvalue())
    for password in (None, "wrong"):
        with pytest.raises(UnreadableDocument) as err:
            parse_xlsx(path, password, SETTINGS)
        assert err.value.kind is RefusalKind.ENCRYPTED
    (table,) = _tables(parse_xlsx(path, "1234", SETTINGS).blocks)
    assert table.rows == [["pin", "4711"]]


def test_corpus_encrypted_xlsx(corpus_dir: Path) -> None:
    path = corpus_dir / "xlsx" / "EDGE_encrypted_password_protected.xlsx"
    # none of the corpus passwords ("password", "1234", "tika") opens this file: it stays encrypted
    for password in (None, "password", "1234", "tika"):
        with pytest.raises(UnreadableDocument) as err:
            parse_xlsx(path, password, SETTINGS)
        assert err.value.kind is RefusalKind.ENCRYPTED


def test_corpus_empty_and_chartsheet(corpus_dir: Path) -> None:
    assert parse_xlsx(corpus_dir / "xlsx" / "EDGE_empty.xlsx", None, SETTINGS).blocks == []
    doc = parse_xlsx(corpus_dir / "xlsx" / "en_xlsx_03_chartsheet.xlsx", None, SETTINGS)
    assert {b.sheet for b in doc.blocks} == {"Duck Observations"}  # the chart sheet yields nothing
    (table,) = _tables(doc.blocks)
    assert table.header_rows == [["Year", "Freshwater Ducks", "Saltwater Ducks", "Ducks"]]
    assert table.rows[0] == ["2019", "120", "80", "200"]


def test_corpus_inflated_dimension(corpus_dir: Path) -> None:
    doc = parse_xlsx(corpus_dir / "xlsx" / "EDGE_huge-dimension_xlsx_04_inflated.xlsx", None, SETTINGS)
    first = next(b for b in doc.blocks if b.type is BlockType.TABLE and b.sheet == "Sheet1")
    assert first.header_rows == [["first", "second", "third"]]
    assert len(first.rows) == 6
    assert {b.sheet for b in doc.blocks} == {"Sheet1", "Sheet2", "Sheet3", "Sheet4"}


def test_corpus_financial_report(corpus_dir: Path) -> None:
    doc = parse_xlsx(corpus_dir / "xlsx" / "en_2023-half-year-analyses-by-segment.xlsx", None, SETTINGS)
    sheets = list(dict.fromkeys(b.sheet for b in doc.blocks))
    assert sheets[0] == "OS-Rev.and results 30 06 2023" and len(sheets) == 5
    first = _tables(doc.blocks)[0]
    assert len(first.header_rows) == 2  # the period row and the measure row
    assert "Sales (a)" in first.header
    assert first.rows[0][:2] == ["Zone NA", "12553"]
    assert first.rows[-1][0] == "Total"


def test_corpus_chinese_long_cells(corpus_dir: Path) -> None:
    (table,) = _tables(parse_xlsx(corpus_dir / "xlsx" / "zh_langchain-ChatGLM_closed.xlsx", None, SETTINGS).blocks)
    assert table.header_rows == [["", "title", "file", "url", "detail", "id"]]
    assert len(table.rows) == 172
    assert table.rows[0][1] == "加油~以及一些建议"


def test_numeric_header_row_separated_by_a_blank_row(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Region", 2023, 2024])
    ws.append([])
    ws.append(["North", 10, 12])
    ws.append(["South", 7, 9])
    path = tmp_path / "years.xlsx"
    wb.save(path)
    (table,) = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    assert table.header_rows == [["Region", "2023", "2024"]]
    assert table.rows == [["North", "10", "12"], ["South", "7", "9"]]


def test_without_calamine_every_sheet_is_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """python-calamine is an accelerator: with it absent, openpyxl's streaming reader gives the same tables."""
    path = tmp_path / "merged.xlsx"
    _merged_header_book(path)
    expected = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    monkeypatch.setitem(sys.modules, "python_calamine", None)  # `import python_calamine` now raises ImportError
    streamed = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    assert [(t.header_rows, t.rows, t.caption) for t in streamed] == [
        (t.header_rows, t.rows, t.caption) for t in expected
    ]


def test_side_by_side_tables_split_but_spacer_columns_do_not(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Side"
    for row in (["Name", "Score"], ["ann", 1], ["bob", 2], ["cid", 3]):
        ws.append(row)
    for r, row in enumerate((["City", "Pop"], ["X", 10], ["Y", 20]), start=2):
        ws.cell(r, 4, row[0])
        ws.cell(r, 5, row[1])
    spacer = wb.create_sheet("Spacer")
    for row in (["Item", "Q1", None, "Q2"], ["a", 1, None, 2], ["b", 3, None, 4]):
        spacer.append(row)
    path = tmp_path / "side.xlsx"
    wb.save(path)
    tables = _tables(parse_xlsx(path, None, SETTINGS).blocks)
    assert [(t.sheet, t.header_rows) for t in tables] == [
        ("Side", [["Name", "Score"]]),
        ("Side", [["City", "Pop"]]),
        ("Spacer", [["Item", "Q1", "Q2"]]),  # the empty spacer column is dropped, the table stays whole
    ]
    assert tables[1].rows == [["X", "10"], ["Y", "20"]]
    assert tables[2].rows == [["a", "1", "2"], ["b", "3", "4"]]
