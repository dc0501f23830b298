"""One location model: chunk citations, handler and table citations, prompt labels and summary nodes name a
place the same way, and each output has one formatter (text: ``label``/``where``; JSON: ``to_json``)."""

from __future__ import annotations

from officeqa.locations import Location, format_location
from prompts.assembler import source_label
from retrieval.citations import Citation, citation_from_metadata
from retrieval.handlers import Citation as HandlerCitation


def test_every_kind_of_citation_is_a_location_with_one_label_format() -> None:
    chunk = citation_from_metadata(2, "c1", "d1", {"path": "/kb/财务/年报.pdf", "page": 3, "page_end": 4,
                                                   "heading_path": "第一章 > 第三条"}, "营业收入12亿元。")
    handler = HandlerCitation(file="财务/年报.pdf", page=3, page_end=4, heading_path=["第一章", "第三条"])
    assert isinstance(chunk, Location) and HandlerCitation is Location
    assert chunk.label() == "[2] 年报.pdf · p. 3-4 · 第一章 > 第三条"
    assert handler.label() == "财务/年报.pdf · p. 3-4 · 第一章 > 第三条"
    assert source_label("年报.pdf", page=3, page_end=4, heading_path=["第一章", "第三条"]) == \
        chunk.label().removeprefix("[2] ")  # the prompt's material label
    assert handler.where() == format_location(page=3, page_end=4) == "p. 3-4"


def test_table_places_name_sheet_rows_or_table_rows() -> None:
    assert Location("a.xlsx", sheet="订单", table=1, row=3, sheet_row=5).label() == "a.xlsx · sheet 订单, row 5"
    assert Location("a.docx", page=2, table=2, row=3).where() == "p. 2, table 2 row 3"
    many = Location("a.csv", table=1, rows=12, row_list=list(range(2, 14)))
    assert many.where() == "rows 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 …, 12 rows"
    assert Location("a.xlsx", sheet="S", row=7).where() == "sheet S, row 7"  # a quote's spreadsheet row


def test_json_keeps_each_outputs_field_names() -> None:
    handler = HandlerCitation(file="/kb/a.xlsx", sheet="S", table=1, row=3, block=4)
    assert handler.to_json() == {"file": "/kb/a.xlsx", "sheet": "S", "table": 1, "row": 3, "block": 4}
    chunk = Citation(n=1, chunk_id="c", doc_id="d", file="/kb/a.xlsx", document="a.xlsx", sheet="S", row=3,
                     quote="q", label_note="批注（张三）")
    assert chunk.path == "/kb/a.xlsx"
    assert chunk.to_json() == {"n": 1, "chunk_id": "c", "doc_id": "d", "path": "/kb/a.xlsx", "document": "a.xlsx",
                               "heading_path": [], "quote": "q", "referenced": True, "sheet": "S", "row": 3,
                               "label": "批注（张三）"}
