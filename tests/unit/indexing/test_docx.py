"""Word parsing: documents built here with python-docx (and patched XML), plus the docx corpus."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.section import WD_SECTION
from docx.enum.text import WD_BREAK
from lxml import etree

from indexing.parsing.docx import parse_docx
from officeqa.domain import Block, BlockRole, BlockType
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

SETTINGS = ParsingSettings()
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _parse(path: Path, password: str | None = None) -> list[Block]:
    return parse_docx(path, password, SETTINGS).blocks


def _by_type(blocks: list[Block], kind: BlockType) -> list[Block]:
    return [b for b in blocks if b.type is kind and b.role is BlockRole.BODY]


def _rewrite_part(path: Path, part: str, transform) -> None:
    """Rewrite one part of a package in place (``transform(bytes) -> bytes | None``; None drops the part)."""
    members: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename == part:
                data = transform(data)
                if data is None:
                    continue
            members.append((info, data))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in members:
            archive.writestr(info, data)


@pytest.fixture
def structured_docx(tmp_path: Path) -> Path:
    d = docx.Document()
    d.add_heading("Annual Report", 0)
    d.add_heading("Introduction", 1)
    intro = d.add_paragraph("This report covers the year.")
    d.add_comment(intro.runs, text="Check the year", author="Alice")
    d.add_heading("Scope", 2)
    d.add_paragraph().add_run("Project Overview").bold = True
    d.add_paragraph("第一条 总则")
    d.add_paragraph("第二条 甲方应当在收到发票后三日内付款。")
    d.add_paragraph("A plain sentence that is body text.")
    d.add_paragraph("first bullet", style="List Bullet")
    d.add_paragraph("second bullet", style="List Bullet")
    d.add_paragraph("step one", style="List Number")
    d.add_paragraph("step two", style="List Number")
    d.add_paragraph("Before break")
    d.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    d.add_paragraph("After break")
    d.sections[0].header.paragraphs[0].text = "ACME Confidential"
    d.sections[0].footer.paragraphs[0].text = "Footer line"
    d.add_section(WD_SECTION.NEW_PAGE)
    d.sections[1].header.is_linked_to_previous = False
    d.sections[1].header.paragraphs[0].text = "ACME Confidential"  # same text in a second header part
    d.add_paragraph("Second section text")
    d.core_properties.title = "Core Title"
    path = tmp_path / "structured.docx"
    d.save(path)
    return path


def test_heading_styles_and_title(structured_docx: Path) -> None:
    doc = parse_docx(structured_docx, None, SETTINGS)
    headings = {b.text: b.level for b in _by_type(doc.blocks, BlockType.HEADING)}
    assert headings["Annual Report"] == 1  # Title style
    assert headings["Introduction"] == 1
    assert headings["Scope"] == 2
    assert doc.title == "Core Title"


def test_bold_line_and_clause_wording_are_promoted(structured_docx: Path) -> None:
    blocks = _parse(structured_docx)
    by_text = {b.text: b for b in blocks}
    bold = by_text["Project Overview"]
    assert bold.type is BlockType.HEADING and bold.level == 3  # one below the deepest styled heading (Scope, 2)
    assert by_text["第一条 总则"].type is BlockType.HEADING and by_text["第一条 总则"].level == 3
    # a clause number running into its sentence: heading "第二条" followed by the whole paragraph
    index = next(i for i, b in enumerate(blocks) if b.text == "第二条")
    assert blocks[index].type is BlockType.HEADING
    assert blocks[index + 1].type is BlockType.PARAGRAPH and blocks[index + 1].text.startswith("第二条 甲方")
    assert by_text["A plain sentence that is body text."].type is BlockType.PARAGRAPH


def test_lists_are_grouped_and_numbered(structured_docx: Path) -> None:
    lists = _by_type(_parse(structured_docx), BlockType.LIST)
    assert [b.items for b in lists] == [["first bullet", "second bullet"], ["1. step one", "2. step two"]]
    assert lists[1].text == "1. step one\n2. step two"


def test_header_footer_and_comment_are_kept_and_marked(structured_docx: Path) -> None:
    blocks = _parse(structured_docx)
    headers = [b for b in blocks if b.role is BlockRole.HEADER]
    footers = [b for b in blocks if b.role is BlockRole.FOOTER]
    assert [b.text for b in headers] == ["ACME Confidential"]  # de-duplicated across the two sections
    assert [b.text for b in footers] == ["Footer line"]
    comment = next(b for b in blocks if b.role is BlockRole.COMMENT)
    assert comment.text == "Check the year"
    assert comment.meta["author"] == "Alice"
    assert comment.meta["commented_text"] == "This report covers the year."
    # placed right after the paragraph it comments on
    assert blocks[blocks.index(comment) - 1].text == "This report covers the year."


def test_pages_follow_explicit_breaks(structured_docx: Path) -> None:
    doc = parse_docx(structured_docx, None, SETTINGS)
    pages = {b.text: b.page for b in doc.blocks if b.role is BlockRole.BODY}
    assert pages["Before break"] == 1
    assert pages["After break"] == 2
    assert pages["Second section text"] == 3  # a new-page section break
    assert doc.page_count == 3


def test_merged_and_nested_tables(tmp_path: Path) -> None:
    d = docx.Document()
    table = d.add_table(rows=3, cols=3)
    for r in range(3):
        for c in range(3):
            table.cell(r, c).text = f"r{r}c{c}"
    table.cell(0, 0).merge(table.cell(0, 1)).text = "Merged head"
    table.cell(1, 2).merge(table.cell(2, 2)).text = "Tall"
    inner = table.cell(2, 0).add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "in-h1", (0, 1): "in-h2", (1, 0): "in-a", (1, 1): "in-b"}.items():
        inner.cell(r, c).text = text
    path = tmp_path / "tables.docx"
    d.save(path)
    outer, nested = _by_type(_parse(path), BlockType.TABLE)
    assert outer.header_rows == [["Merged head", "Merged head", "r0c2"]]  # gridSpan repeats the value
    assert outer.rows == [["r1c0", "r1c1", "Tall"], ["r2c0", "r2c1", "Tall"]]  # vMerge repeats downwards
    assert outer.text.splitlines()[0] == "Merged head | Merged head | r0c2"
    assert nested.meta["nested"] is True
    assert nested.header_rows == [["in-h1", "in-h2"]] and nested.rows == [["in-a", "in-b"]]


def test_header_rows_marked_in_the_table_and_ragged_rows_padded(tmp_path: Path) -> None:
    d = docx.Document()
    table = d.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate([("Group", "Group"), ("Name", "Value"), ("alpha", "1")]):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b
    for row in table.rows[:2]:
        tr_pr = row._tr.get_or_add_trPr()
        etree.SubElement(tr_pr, f"{W}tblHeader")
    table.rows[2]._tr.remove(table.rows[2]._tr.tc_lst[-1])  # a row missing its last cell
    path = tmp_path / "header_rows.docx"
    d.save(path)
    (block,) = _by_type(_parse(path), BlockType.TABLE)
    assert block.header_rows == [["Group", "Group"], ["Name", "Value"]]
    assert block.rows == [["alpha", ""]]


def test_tables_inside_content_controls_are_found(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("Intro")
    table = d.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "Key", (0, 1): "Value", (1, 0): "k1", (1, 1): "v1"}.items():
        table.cell(r, c).text = text
    tbl = table._tbl
    sdt = etree.Element(f"{W}sdt")
    content = etree.SubElement(sdt, f"{W}sdtContent")
    tbl.addprevious(sdt)
    content.append(tbl)  # moves the table into the content control
    path = tmp_path / "sdt.docx"
    d.save(path)
    assert len(docx.Document(str(path)).tables) == 0  # python-docx does not see it
    (block,) = _by_type(_parse(path), BlockType.TABLE)
    assert block.header_rows == [["Key", "Value"]]


def test_missing_styles_part_does_not_crash(tmp_path: Path) -> None:
    """WPS-style files may lack styles.xml entries; heading style ids still read as headings."""
    d = docx.Document()
    d.add_heading("Chapter title", 1)
    d.add_paragraph("Body text here.")
    path = tmp_path / "nostyles.docx"
    d.save(path)
    _rewrite_part(path, "word/styles.xml", lambda data: None)
    blocks = _parse(path)
    assert blocks[0].type is BlockType.HEADING and blocks[0].level == 1
    assert blocks[1].text == "Body text here."


def test_table_of_contents_lines_are_not_headings(tmp_path: Path) -> None:
    d = docx.Document()
    toc = d.add_paragraph("1.1 Scope\t3")
    toc.style = d.styles.add_style("TOC 2", 1)
    d.add_paragraph("1.1 Scope")
    path = tmp_path / "toc.docx"
    d.save(path)
    first, second = _parse(path)
    assert first.type is BlockType.PARAGRAPH and first.meta.get("toc") is True
    assert second.type is BlockType.HEADING and second.level == 2


def test_encrypted_docx(corpus_dir: Path) -> None:
    path = corpus_dir / "docx" / "EDGE_encrypted_pw-tika.docx"
    with pytest.raises(UnreadableDocument) as missing:
        _parse(path)
    assert missing.value.kind is RefusalKind.ENCRYPTED
    with pytest.raises(UnreadableDocument) as wrong:
        _parse(path, "not-tika")
    assert wrong.value.kind is RefusalKind.ENCRYPTED
    assert [b.text for b in _parse(path, "tika")] == ["This is an encrypted Word 2007 File."]


def test_truncated_docx_is_corrupt(corpus_dir: Path) -> None:
    with pytest.raises(UnreadableDocument) as err:
        _parse(corpus_dir / "docx" / "EDGE_truncated_testWORD_truncated.docx")
    assert err.value.kind is RefusalKind.CORRUPT


def test_corpus_rich_tables_in_content_controls(corpus_dir: Path) -> None:
    doc = parse_docx(corpus_dir / "docx" / "en_docx_rich_tables_01.docx", None, SETTINGS)
    tables = _by_type(doc.blocks, BlockType.TABLE)
    assert len(tables) == 2
    assert all(t.header_rows == [["Feature", "Action Needed", "Comment/Links"]] for t in tables)
    assert doc.title == "Changes to the DOCLANG Core Spec"


def test_corpus_docx_tables_merged_and_nested(corpus_dir: Path) -> None:
    tables = _by_type(_parse(corpus_dir / "docx" / "en_docx-tables.docx"), BlockType.TABLE)
    assert tables[0].header_rows == [["Header Col 1", "Header Col 2"]]
    merged = tables[-1]
    assert merged.header_rows == [["a", "b", "b"]]
    assert merged.rows == [["a", "c", "d"], ["e", "e", "d"]]
    assert any(t.meta.get("nested") and t.header_rows == [["e", "f"]] for t in tables)


def test_corpus_incomplete_rows_are_padded(corpus_dir: Path) -> None:
    tables = _by_type(_parse(corpus_dir / "docx" / "EDGE_tables-with-incomplete-rows.docx"), BlockType.TABLE)
    assert len(tables) == 6
    for table in tables:
        widths = {len(row) for row in [*table.header_rows, *table.rows]}
        assert len(widths) == 1


def test_corpus_chinese_notice(corpus_dir: Path) -> None:
    blocks = _parse(corpus_dir / "docx" / "zh_股东会-会议通知.docx")
    headings = [b.text for b in _by_type(blocks, BlockType.HEADING)]
    assert "一、 会议基本情况" in headings and "五、 联系人及联系方式" in headings
    (table,) = _by_type(blocks, BlockType.TABLE)
    assert table.header_rows == [["序号", "议案内容", "汇报人"]]
    assert any(b.role is BlockRole.HEADER for b in blocks)


def test_corpus_mineru_tables_headings_and_equations(corpus_dir: Path) -> None:
    doc = parse_docx(corpus_dir / "docx" / "zh_en_mineru_docx_01.docx", None, SETTINGS)
    tables = _by_type(doc.blocks, BlockType.TABLE)
    assert len(tables) >= 8
    headings = {b.text: b.level for b in _by_type(doc.blocks, BlockType.HEADING)}
    assert headings["1.2.1 Table with rich cells"] == 3
    assert headings["1 这是第一章标题"] == 1
    assert any(b.role is BlockRole.FOOTER for b in doc.blocks)
    assert any("A=πr2" in b.text for b in doc.blocks)  # OMML text kept


def test_corpus_handbook_is_large_and_paginated(corpus_dir: Path) -> None:
    doc = parse_docx(corpus_dir / "docx" / "en_handbook-872p.docx", None, SETTINGS)
    assert len(doc.blocks) > 4000
    assert doc.page_count is not None and doc.page_count > 50
    headings = [b.text for b in _by_type(doc.blocks, BlockType.HEADING)]
    assert "CHAPTER 1 - INTRODUCTION" in headings


def test_encrypted_docx_built_here(tmp_path: Path) -> None:
    from msoffcrypto.format.ooxml import OOXMLFile

    d = docx.Document()
    d.add_paragraph("Secret quarterly numbers")
    plain = io.BytesIO()
    d.save(plain)
    plain.seek(0)
    encrypted = io.BytesIO()
    OOXMLFile(plain).encrypt("s3cret", encrypted)
    path = tmp_path / "locked.docx"
    path.write_bytes(encrypted.getvalue())
    with pytest.raises(UnreadableDocument) as err:
        _parse(path)
    assert err.value.kind is RefusalKind.ENCRYPTED
    assert [b.text for b in _parse(path, "s3cret")] == ["Secret quarterly numbers"]


def test_table_of_contents_control_and_toc_links_are_not_headings(tmp_path: Path) -> None:
    d = docx.Document()
    in_control = d.add_paragraph("第一章 总则\t1")
    linked = d.add_paragraph()
    d.add_paragraph("第一章 总则")
    sdt = etree.Element(f"{W}sdt")
    gallery = etree.SubElement(
        etree.SubElement(etree.SubElement(sdt, f"{W}sdtPr"), f"{W}docPartObj"), f"{W}docPartGallery"
    )
    gallery.set(f"{W}val", "Table of Contents")
    content = etree.SubElement(sdt, f"{W}sdtContent")
    in_control._p.addprevious(sdt)
    content.append(in_control._p)
    link = etree.SubElement(linked._p, f"{W}hyperlink")
    link.set(f"{W}anchor", "_Toc123")
    etree.SubElement(etree.SubElement(link, f"{W}r"), f"{W}t").text = "第二章 附则"
    path = tmp_path / "toc_control.docx"
    d.save(path)
    blocks = _parse(path)
    assert [(b.type, b.meta.get("toc")) for b in blocks] == [
        (BlockType.PARAGRAPH, True),
        (BlockType.PARAGRAPH, True),
        (BlockType.HEADING, None),
    ]
