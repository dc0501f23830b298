"""parse_pdf end to end on small PDFs the tests write themselves, plus the corpus edge cases.

The PDFs are written by a ~60-line writer below: Helvetica for ASCII and the standard
Adobe-GB1 CID font STSong-Light (not embedded, UniGB-UCS2-H encoding) for Chinese, which
pdfium and pdfminer both map back to Unicode without a font file, and stroked rectangles
for ruled tables. No PDF-writing package is needed.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from indexing.parsing.pdf import parse_pdf
from officeqa.domain import BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

PAGE_W, PAGE_H = 595, 842


@dataclass(frozen=True)
class Text:
    """Text whose top-left corner is ``top`` points below the top edge of the page."""

    x: float
    top: float
    text: str
    size: float = 11


@dataclass(frozen=True)
class Grid:
    """A ruled table: every cell stroked as a rectangle, text at the cell's left."""

    x: float
    top: float
    widths: tuple[float, ...]
    rows: tuple[tuple[str, ...], ...]
    row_height: float = 20


def _text_op(item: Text) -> bytes:
    baseline = PAGE_H - item.top - item.size * 0.85
    if item.text.isascii():
        escaped = item.text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        shown = b"(" + escaped.encode("latin-1") + b") Tj"
        font = b"/F1"
    else:
        shown = b"<" + item.text.encode("utf-16-be").hex().upper().encode() + b"> Tj"
        font = b"/F2"
    return b"BT %s %.1f Tf %.1f %.1f Td %s ET\n" % (font, item.size, item.x, baseline, shown)


def _grid_ops(grid: Grid) -> bytes:
    out = b"0.5 w\n"
    for r, row in enumerate(grid.rows):
        top = grid.top + r * grid.row_height
        x = grid.x
        for width, cell in zip(grid.widths, row, strict=True):
            out += b"%.1f %.1f %.1f %.1f re S\n" % (x, PAGE_H - top - grid.row_height, width, grid.row_height)
            out += _text_op(Text(x + 4, top + 5, cell, size=9))
            x += width
    return out


def write_pdf(path: Path, pages: list[list[Text | Grid]], crop: tuple[int, int, int, int] | None = None) -> Path:
    """Write a PDF with one content stream per page (objects: catalog, pages, fonts, then pages).

    ``crop`` adds a CropBox (left, bottom, right, top) smaller than the MediaBox.
    """
    crop_entry = b" /CropBox [%d %d %d %d]" % crop if crop else b""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [5 0 R] >>",
        b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light"
        b" /CIDSystemInfo << /Registry (Adobe) /Ordering (GB1) /Supplement 4 >> /FontDescriptor 6 0 R >>",
        b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900]"
        b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>",
    ]
    kids = []
    for items in pages:
        content = b"".join(_text_op(i) if isinstance(i, Text) else _grid_ops(i) for i in items)
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d]%s /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >>"
            b" /Contents %d 0 R >>" % (PAGE_W, PAGE_H, crop_entry, len(objects))
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % len(kids)
    data = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    data += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    data += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(data))
    return path


def _parse(path: Path, password: str | None = None, **settings: object) -> ParsedDocument:
    return parse_pdf(path, password, ParsingSettings(**settings))


def _texts(doc: ParsedDocument) -> list[str]:
    return [b.text for b in doc.blocks]


PARTIES = ["甲方", "乙方", "丙方", "丁方"]


def _body_zh(n: int) -> tuple[str, str]:
    """Two lines of one Chinese sentence, different on every page (a body line, not a running one)."""
    return f"本办法适用于{PARTIES[n - 1]}在日常经营活动中发生的各类采购事项，", "包括货物、工程和服务的采购。"


def _report_page(n: int, total: int, footer: str) -> list[Text | Grid]:
    first, second = _body_zh(n)
    return [
        Text(72, 40, "ACME 2023 年度报告", size=9),
        Text(72, 100, f"第{'一二三四'[n - 1]}章 第{n}部分", size=16),
        Text(72, 140, first),
        Text(72, 155, second),
        Text(72, 185, f"Section {n} explains the procedure for the infor-"),
        Text(72, 200, "mation systems used on this page."),
        Text(280, 800, footer.format(n=n, total=total), size=9),
    ]


@pytest.mark.parametrize("footer", ["第 {n} 页 共 {total} 页", "Page {n} of {total}", "- {n} -"])
def test_running_header_and_page_numbers_removed_across_pages(tmp_path: Path, footer: str) -> None:
    path = write_pdf(tmp_path / "report.pdf", [_report_page(n, 4, footer) for n in range(1, 5)])
    doc = _parse(path)
    texts = _texts(doc)
    assert doc.page_count == 4
    assert not any("年度报告" in t for t in texts), texts
    assert not any(footer.format(n=n, total=4) in t for n in range(1, 5) for t in texts), texts
    headings = [b for b in doc.blocks if b.type is BlockType.HEADING]
    assert [h.text for h in headings] == ["第一章 第1部分", "第二章 第2部分", "第三章 第3部分", "第四章 第4部分"]
    assert [h.page for h in headings] == [1, 2, 3, 4]
    assert headings[0].level == 1
    # Chinese soft line break joined without a space; English hyphenated break re-joined.
    assert "".join(_body_zh(3)) in texts
    assert "Section 2 explains the procedure for the information systems used on this page." in texts


def test_header_below_the_page_minimum_is_kept(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "short.pdf", [_report_page(n, 2, "- {n} -") for n in range(1, 3)])
    texts = _texts(_parse(path))
    assert texts.count("ACME 2023 年度报告") == 2
    assert "- 1 -" not in texts and "- 2 -" not in texts


HEADER = ("序号", "项目名称", "金额（万元）")


@pytest.mark.parametrize("crop", [None, (30, 20, 560, 800)], ids=["mediabox", "cropbox"])
def test_ruled_table_cut_by_a_page_break_is_stitched(tmp_path: Path, crop: tuple[int, int, int, int] | None) -> None:
    first_rows = (HEADER, ("1", "办公设备", "12.50"), ("2", "服务器", "88.00"))
    second_rows = (HEADER, ("3", "软件许可", "30.00"), ("4", "培训", "5.00"))
    path = write_pdf(
        tmp_path / "table.pdf",
        [
            [Text(72, 80, "表 1：采购明细"), Grid(72, 700, (60, 200, 120), first_rows)],
            [Grid(72, 60, (60, 200, 120), second_rows), Text(72, 200, "以上为全部采购明细。")],
        ],
        crop=crop,
    )
    doc = _parse(path)
    tables = [b for b in doc.blocks if b.type is BlockType.TABLE]
    assert len(tables) == 1, doc.blocks
    table = tables[0]
    assert table.page == 1
    assert table.meta == {"page_end": 2, "page_rows": [[0, 1], [2, 2]]}
    assert table.header_rows == [list(HEADER)]
    assert table.rows == [
        ["1", "办公设备", "12.50"],
        ["2", "服务器", "88.00"],
        ["3", "软件许可", "30.00"],
        ["4", "培训", "5.00"],
    ]
    assert table.text.count("项目名称") == 1
    assert _texts(doc)[0] == "表 1：采购明细"
    assert _texts(doc)[-1] == "以上为全部采购明细。"
    assert not any("办公设备" in b.text for b in doc.blocks if b.type is not BlockType.TABLE)


def test_larger_font_line_becomes_a_heading(tmp_path: Path) -> None:
    page = [
        Text(72, 60, "Procurement Policy", size=22),
        Text(72, 100, "This policy applies to every purchase made by the company and its"),
        Text(72, 114, "subsidiaries, whatever the amount."),
        Text(72, 150, "Approval limits", size=15),
        Text(72, 180, "Purchases above the limit need the approval of the finance director."),
    ]
    doc = _parse(write_pdf(tmp_path / "policy.pdf", [page]))
    assert [(b.type, b.level, b.text) for b in doc.blocks] == [
        (BlockType.HEADING, 1, "Procurement Policy"),
        (
            BlockType.PARAGRAPH,
            None,
            "This policy applies to every purchase made by the company and its subsidiaries, whatever the amount.",
        ),
        (BlockType.HEADING, 2, "Approval limits"),
        (BlockType.PARAGRAPH, None, "Purchases above the limit need the approval of the finance director."),
    ]


def test_importing_the_pdf_parser_loads_no_ocr_engine() -> None:
    # The OCR models load on the first scanned page, never at import (CLI start-up, other formats).
    code = "import sys, indexing.parsing.pdf; print('onnxruntime' in sys.modules, 'pdfplumber' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_not_a_pdf_is_refused_as_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_bytes(b"this is not a PDF at all\n" * 20)
    with pytest.raises(UnreadableDocument) as info:
        _parse(path)
    assert info.value.kind is RefusalKind.CORRUPT


# ------------------------------------------------------------------ corpus edge cases


def test_encrypted_pdf_needs_the_right_password(corpus_dir: Path) -> None:
    path = corpus_dir / "pdf" / "EDGE_encrypted_password.pdf"
    with pytest.raises(UnreadableDocument) as missing:
        _parse(path)
    assert missing.value.kind is RefusalKind.ENCRYPTED
    assert "password is required" in missing.value.message
    with pytest.raises(UnreadableDocument) as wrong:
        _parse(path, password="not-it")
    assert wrong.value.kind is RefusalKind.ENCRYPTED
    assert "wrong" in wrong.value.message
    assert "File with password" in _texts(_parse(path, password="password"))


def test_owner_password_only_pdf_is_read(corpus_dir: Path) -> None:
    doc = _parse(corpus_dir / "pdf" / "EDGE_owner-password_copy-protected.pdf")
    assert any("LayoutParser" in t for t in _texts(doc))


def test_scanned_pdf_with_ocr_disabled_is_refused(corpus_dir: Path) -> None:
    with pytest.raises(UnreadableDocument) as info:
        _parse(corpus_dir / "pdf" / "EDGE_zh_scanned_small_ocr.pdf", ocr_enabled=False)
    assert info.value.kind is RefusalKind.NO_TEXT_LAYER
    assert "OCR is disabled" in info.value.message


def test_scanned_pdf_with_no_ocr_page_budget_is_refused(corpus_dir: Path) -> None:
    with pytest.raises(UnreadableDocument) as info:
        _parse(corpus_dir / "pdf" / "EDGE_en_scanned_testOCR.pdf", ocr_max_pages=0)
    assert info.value.kind is RefusalKind.NO_TEXT_LAYER
    assert "ocr_max_pages" in info.value.message


@pytest.mark.slow
def test_scanned_page_is_read_by_ocr(corpus_dir: Path) -> None:
    doc = _parse(corpus_dir / "pdf" / "EDGE_en_scanned_testOCR.pdf")
    assert doc.ocr_used
    assert all(b.ocr and b.page == 1 for b in doc.blocks)
    assert any("Happy New Year" in t for t in _texts(doc)), _texts(doc)
