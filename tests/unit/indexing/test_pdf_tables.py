"""Pure table rules of the PDF parser: cell cleaning and stitching a table cut by a page break."""

from __future__ import annotations

from indexing.parsing.pdf_tables import Rulings, clean_cell, normalise_rows, stitch_tables, table_block
from officeqa.domain import Block, BlockType, render_table_text

HEADER = ["序号", "金融机构名称", "授信总额"]


def _table(page: int, header: list[str] | None, rows: list[list[str]]) -> Block:
    header_rows = [header] if header else []
    return Block(
        type=BlockType.TABLE,
        text=render_table_text(header_rows, rows),
        header_rows=header_rows,
        rows=rows,
        page=page,
    )


def _para(page: int, text: str) -> Block:
    return Block(type=BlockType.PARAGRAPH, text=text, page=page)


def test_table_cut_by_a_page_break_with_repeated_header_is_stitched() -> None:
    blocks = [
        _para(1, "表 7-2：授信情况"),
        _table(1, HEADER, [["1", "工商银行", "330,435.30"], ["2", "徽商银行", "120.00"]]),
        _table(2, HEADER, [["3", "兴业银行", "88.00"]]),
        _para(2, "以上为全部授信。"),
    ]
    out = stitch_tables(blocks)
    assert [b.type for b in out] == [BlockType.PARAGRAPH, BlockType.TABLE, BlockType.PARAGRAPH]
    table = out[1]
    assert table.page == 1
    assert table.meta == {"page_end": 2, "page_rows": [[0, 1], [2, 2]]}  # body row 2 is printed on page 2
    assert table.header_rows == [HEADER]
    assert table.rows == [["1", "工商银行", "330,435.30"], ["2", "徽商银行", "120.00"], ["3", "兴业银行", "88.00"]]
    assert table.text == render_table_text([HEADER], table.rows)
    assert table.text.count("金融机构名称") == 1


def test_continuation_without_repeated_header_keeps_its_first_row_as_data() -> None:
    # The detector takes the first row of every table as its header; on a continuation page
    # that "header" is really the next data row.
    out = stitch_tables([_table(4, HEADER, [["1", "a", "1"]]), _table(5, ["2", "b", "2"], [["3", "c", "3"]])])
    assert len(out) == 1
    assert out[0].rows == [["1", "a", "1"], ["2", "b", "2"], ["3", "c", "3"]]
    assert out[0].meta["page_end"] == 5


def test_table_spanning_three_pages_records_the_last_page() -> None:
    out = stitch_tables(
        [
            _table(1, HEADER, [["1", "a", "1"]]),
            _table(2, HEADER, [["2", "b", "2"]]),
            _table(3, HEADER, [["3", "c", "3"]]),
        ]
    )
    assert len(out) == 1
    assert out[0].page == 1 and out[0].meta["page_end"] == 3
    assert out[0].meta["page_rows"] == [[0, 1], [1, 2], [2, 3]]
    assert [r[0] for r in out[0].rows] == ["1", "2", "3"]


def test_tables_are_not_stitched_across_other_blocks_widths_or_gaps() -> None:
    different_width = [_table(1, HEADER, [["1", "a", "1"]]), _table(2, ["x", "y"], [["1", "2"]])]
    paragraph_between = [_table(1, HEADER, [["1", "a", "1"]]), _para(2, "正文"), _table(2, HEADER, [["2", "b", "2"]])]
    same_page = [_table(1, HEADER, [["1", "a", "1"]]), _table(1, HEADER, [["2", "b", "2"]])]
    page_gap = [_table(1, HEADER, [["1", "a", "1"]]), _table(3, HEADER, [["2", "b", "2"]])]
    for blocks in (different_width, paragraph_between, same_page, page_gap):
        assert len([b for b in stitch_tables(blocks) if b.type is BlockType.TABLE]) == 2


def test_cells_are_cleaned_and_empty_rows_and_columns_dropped() -> None:
    assert clean_cell("中诚信国际信\n用评级有限责\n任公司") == "中诚信国际信用评级有限责任公司"
    assert clean_cell("Name of the\nuser profile") == "Name of the user profile"
    assert clean_cell(None) == ""
    rows = normalise_rows([["年份", None, "评级"], [None, None, None], ["2023", "", "AA+"]])
    assert rows == [["年份", "评级"], ["2023", "AA+"]]


def test_table_block_takes_first_row_as_header_and_rejects_tiny_grids() -> None:
    block = table_block([["年份", "评级"], ["2023", "AA+"]], page=3)
    assert block is not None
    assert block.header_rows == [["年份", "评级"]]
    assert block.rows == [["2023", "AA+"]]
    assert block.page == 3
    assert block.text == "年份 | 评级\n2023 | AA+"
    assert table_block([["only one row", "x"]], page=1) is None
    assert table_block([["a"], ["b"]], page=1) is None


def _rulings(shapes: list[tuple[float, float, int]]) -> Rulings:
    rulings = Rulings()
    for width, height, segments in shapes:
        rulings.add(width, height, segments)
    return rulings


def test_ruling_precheck_needs_crossing_strokes_boxes_or_a_grid() -> None:
    # A table-of-contents page: hundreds of link underlines, no table.
    assert not _rulings([(120, 0.5, 2)] * 380).may_hold_table()
    assert not _rulings([(300, 0.5, 2), (0.5, 40, 2)]).may_hold_table()  # one cross is a figure, not a grid
    assert _rulings([(300, 0.5, 2)] * 3 + [(0.5, 60, 2)] * 3).may_hold_table()
    assert _rulings([(60, 20, 5), (200, 20, 5)]).may_hold_table()  # cells stroked as rectangles
    assert _rulings([(380, 120, 40)]).may_hold_table()  # a whole grid drawn as one path
    assert not _rulings([(4, 4, 5)] * 50).may_hold_table()  # bullets and dots
