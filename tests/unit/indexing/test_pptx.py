"""PowerPoint parsing: decks built here with python-pptx, plus the pptx corpus."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

from indexing.parsing.pptx import parse_pptx
from officeqa.domain import Block, BlockRole, BlockType
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

SETTINGS = ParsingSettings()


def _of(blocks: list[Block], kind: BlockType, slide: int | None = None) -> list[Block]:
    return [b for b in blocks if b.type is kind and (slide is None or b.slide == slide)]


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    prs = Presentation()
    title_slide = prs.slides.add_slide(prs.slide_layouts[0])
    title_slide.shapes.title.text = "Quarterly Review"
    title_slide.placeholders[1].text = "Finance team"

    bullets = prs.slides.add_slide(prs.slide_layouts[1])
    bullets.shapes.title.text = "Agenda"
    frame = bullets.placeholders[1].text_frame
    frame.text = "Results"
    sub = frame.add_paragraph()
    sub.text = "Revenue up"
    sub.level = 1
    frame.add_paragraph().text = "Outlook"
    bullets.notes_slide.notes_text_frame.text = "Mention the new office."

    table_slide = prs.slides.add_slide(prs.slide_layouts[5])
    table_slide.shapes.title.text = "Numbers"
    table = table_slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate([["Region", "2023", "2024"], ["North", "10", "12"], ["South", "7", "9"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    table.cell(1, 0).merge(table.cell(2, 0))
    table.cell(1, 0).text = "All"
    group = table_slide.shapes.add_group_shape()
    box = group.shapes.add_textbox(Inches(1), Inches(5), Inches(3), Inches(1))
    box.text_frame.text = "Source: internal ledger"

    chart_slide = prs.slides.add_slide(prs.slide_layouts[5])
    chart_slide.shapes.title.text = "Trend"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2"]
    data.add_series("Sales", (1.5, 2.0))
    data.add_series("Cost", (1.0, 1.25))
    chart_slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data)
    prs.core_properties.title = ""
    path = tmp_path / "deck.pptx"
    prs.save(path)
    return path


def test_titles_are_headings_per_slide(deck: Path) -> None:
    doc = parse_pptx(deck, None, SETTINGS)
    headings = [(b.slide, b.text, b.level) for b in _of(doc.blocks, BlockType.HEADING)]
    assert headings == [(1, "Quarterly Review", 1), (2, "Agenda", 1), (3, "Numbers", 1), (4, "Trend", 1)]
    assert doc.title == "Quarterly Review"
    assert doc.page_count == 4
    assert all(b.slide is not None for b in doc.blocks)


def test_body_placeholder_paragraphs_are_a_list_with_levels(deck: Path) -> None:
    (items,) = _of(parse_pptx(deck, None, SETTINGS).blocks, BlockType.LIST, slide=2)
    assert items.items == ["Results", "Revenue up", "Outlook"]
    assert items.meta["levels"] == [0, 1, 0]


def test_notes_are_kept_and_marked(deck: Path) -> None:
    blocks = parse_pptx(deck, None, SETTINGS).blocks
    (notes,) = [b for b in blocks if b.role is BlockRole.NOTES]
    assert notes.text == "Mention the new office." and notes.slide == 2


def test_table_with_merged_cells_and_grouped_text(deck: Path) -> None:
    blocks = parse_pptx(deck, None, SETTINGS).blocks
    (table,) = [b for b in _of(blocks, BlockType.TABLE, slide=3) if not b.meta.get("chart")]
    assert table.header_rows == [["Region", "2023", "2024"]]
    assert table.rows == [["All", "10", "12"], ["All", "7", "9"]]
    assert any(b.text == "Source: internal ledger" for b in _of(blocks, BlockType.PARAGRAPH, slide=3))


def test_chart_data_becomes_a_table(deck: Path) -> None:
    (chart,) = _of(parse_pptx(deck, None, SETTINGS).blocks, BlockType.TABLE, slide=4)
    assert chart.meta["chart"] is True
    assert chart.header_rows == [["Category", "Sales", "Cost"]]
    assert chart.rows == [["Q1", "1.5", "1"], ["Q2", "2", "1.25"]]


def test_encrypted_pptx(tmp_path: Path, deck: Path) -> None:
    from msoffcrypto.format.ooxml import OOXMLFile

    locked = io.BytesIO()
    with deck.open("rb") as fh:
        OOXMLFile(fh).encrypt("tika", locked)
    path = tmp_path / "locked.pptx"
    path.write_bytes(locked.getvalue())
    with pytest.raises(UnreadableDocument) as err:
        parse_pptx(path, None, SETTINGS)
    assert err.value.kind is RefusalKind.ENCRYPTED
    assert parse_pptx(path, "tika", SETTINGS).title == "Quarterly Review"


def test_not_a_presentation_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "fake.pptx"
    path.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(UnreadableDocument) as err:
        parse_pptx(path, None, SETTINGS)
    assert err.value.kind is RefusalKind.CORRUPT


def test_corpus_chart_deck_with_3d_chart(corpus_dir: Path) -> None:
    doc = parse_pptx(corpus_dir / "pptx" / "en_pptx_chart.pptx", None, SETTINGS)
    assert [b.text for b in _of(doc.blocks, BlockType.HEADING)] == ["Quarterly Duck Survey", "Quarterly revenue"]
    first = _of(doc.blocks, BlockType.TABLE, slide=1)[0]
    assert first.header_rows == [["Category", "Freshwater Ducks", "Saltwater Ducks"]]
    assert first.rows[0] == ["2019", "120", "80"]
    assert first.caption == "Wild Duck Observations by Year"


def test_corpus_mineru_deck(corpus_dir: Path) -> None:
    blocks = parse_pptx(corpus_dir / "pptx" / "en_mineru_pptx_01.pptx", None, SETTINGS).blocks
    assert _of(blocks, BlockType.HEADING, slide=2)[0].text == "Second slide title"
    notes = [b for b in blocks if b.role is BlockRole.NOTES]
    assert [(b.slide, b.text) for b in notes] == [
        (2, "Some notes on the second slide."),
        (3, "Final notes on the third slide.\nSecond line of notes."),
    ]
    merged = _of(blocks, BlockType.TABLE, slide=1)[0]
    assert len(merged.header_rows) == 2
    assert merged.header_rows[0][1:4] == ["Class1", "Class1", "Class1"]
    chart = _of(blocks, BlockType.TABLE, slide=5)[0]
    assert chart.header_rows == [["Category", "系列 1", "系列 2", "系列 3"]]


def test_corpus_malformed_deck_is_still_read(corpus_dir: Path) -> None:
    blocks = parse_pptx(corpus_dir / "pptx" / "EDGE_malformed_fake-power-point-malformed.pptx", None, SETTINGS).blocks
    assert _of(blocks, BlockType.HEADING)[0].text == "Test Slide"


def test_corpus_chinese_text_and_table(corpus_dir: Path) -> None:
    blocks = parse_pptx(corpus_dir / "pptx" / "zh_ocr_test.pptx", None, SETTINGS).blocks
    assert any(b.text == "我是文字" for b in blocks)
    assert _of(blocks, BlockType.TABLE)[0].header_rows[0][0] == "我是表格1"
