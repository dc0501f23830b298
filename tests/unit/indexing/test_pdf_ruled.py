"""Ruled tables read from pdfium's objects (pdf_ruled) against pdfplumber's own reading of the same pages.

The PDFs are written here (``test_pdf_parse.write_pdf``): stroked cell rectangles, a grid drawn
as separate line segments, one path holding the whole grid, a grid inside a form XObject, and a
crop box, so each way of drawing a ruling goes through the pdfminer-style classification.
"""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
import pytest

from indexing.parsing.pdf import parse_pdf
from indexing.parsing.pdf_ruled import page_tables, ruled_tables
from indexing.parsing.pdf_tables import TableRegion, find_table_regions
from officeqa.domain import BlockType
from officeqa.settings import ParsingSettings
from tests.unit.indexing.test_pdf_parse import PAGE_H, Grid, Text, _grid_ops, _text_op, write_pdf

ROWS = (("Item", "2022", "2021"), ("Revenue", "1,250", "1,100"), ("Loss before taxation", "(35)", "12"))
WIDTHS = (180.0, 80.0, 80.0)


def _lines_grid(x: float, top: float, rows: tuple[tuple[str, ...], ...], one_path: bool) -> bytes:
    """The grid as stroked line segments: one path per segment, or every segment in one path."""
    height = 20 * len(rows)
    xs = [x, *(x + sum(WIDTHS[: i + 1]) for i in range(len(WIDTHS)))]
    ys = [PAGE_H - top - 20 * r for r in range(len(rows) + 1)]
    segments = [(xv, ys[0], xv, ys[0] - height) for xv in xs] + [(xs[0], yv, xs[-1], yv) for yv in ys]
    moves = [b"%.1f %.1f m %.1f %.1f l" % s for s in segments]
    out = b"0.5 w\n" + (b" ".join(moves) + b" S\n" if one_path else b"".join(m + b" S\n" for m in moves))
    for r, row in enumerate(rows):
        cell_x = x
        for width, cell in zip(WIDTHS, row, strict=True):
            out += _text_op(Text(cell_x + 4, top + 20 * r + 5, cell, size=9))
            cell_x += width
    return out


def _write(path: Path, content: bytes, crop: str = "", form: bool = False, rotate: int = 0) -> Path:
    """A one-page PDF around ``content``; ``form`` draws it through a form XObject with a shifting matrix."""
    write_pdf(path, [[Text(72, 60, "Statement of profit or loss")]])
    data = path.read_bytes()
    resources = b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >>"
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [8 0 R] /Count 1 >>"]
    objects += [data.split(b"%d 0 obj\n" % n)[1].split(b"\nendobj")[0] for n in (3, 4, 5, 6)]
    page_content = b"q 1 0 0 1 10 -15 cm /X1 Do Q\n" if form else content
    objects.append(b"<< /Length %d >>\nstream\n" % len(page_content) + page_content + b"\nendstream")
    extra = b" /Rotate %d" % rotate if rotate else b""
    xobject = b" /XObject << /X1 9 0 R >>" if form else b""
    objects.append(
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]%s%s /Resources << /Font << /F1 3 0 R /F2 4 0 R >>%s >>"
        b" /Contents 7 0 R >>" % (crop.encode(), extra, xobject)
    )
    objects.append(
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 595 842] %s /Length %d >>\nstream\n" % (resources, len(content))
        + content
        + b"\nendstream"
    )
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def _both(path: Path) -> tuple[list[TableRegion], list[TableRegion]]:
    """(pdfium-read regions, pdfplumber's regions moved to the same crop-box coordinates) of page 1."""
    doc = pdfium.PdfDocument(path)
    page = doc[0]
    textpage = page.get_textpage()
    left, _, _, top = page.get_cropbox()
    media_top = page.get_mediabox()[3]
    ours = ruled_tables(page, textpage)
    textpage.close()
    page.close()
    doc.close()
    with pdfplumber.open(path) as plumber:
        theirs = [r.shifted(-left, -(media_top - top)) for r in find_table_regions(plumber.pages[0])]
    return ours, theirs


def _same(ours: list[TableRegion], theirs: list[TableRegion]) -> None:
    assert [r.rows for r in ours] == [r.rows for r in theirs]
    for a, b in zip(ours, theirs, strict=True):
        assert (a.x0, a.top, a.x1, a.bottom) == pytest.approx((b.x0, b.top, b.x1, b.bottom), abs=0.01)


@pytest.mark.parametrize("crop", ["", " /CropBox [30 20 560 800]"], ids=["mediabox", "cropbox"])
@pytest.mark.parametrize("form", [False, True], ids=["page", "form"])
def test_cell_rectangles_give_pdfplumbers_table(tmp_path: Path, crop: str, form: bool) -> None:
    content = _grid_ops(Grid(72, 300, WIDTHS, ROWS))
    ours, theirs = _both(_write(tmp_path / "rects.pdf", content, crop=crop, form=form))
    assert [r.rows for r in ours] == [[list(row) for row in ROWS]]
    _same(ours, theirs)


@pytest.mark.parametrize("one_path", [False, True], ids=["segment-paths", "one-path"])
def test_line_segment_grids_give_pdfplumbers_table(tmp_path: Path, one_path: bool) -> None:
    content = _lines_grid(72, 300, ROWS, one_path)
    ours, theirs = _both(_write(tmp_path / "lines.pdf", content))
    assert [r.rows for r in ours] == [[list(row) for row in ROWS]]
    _same(ours, theirs)


def test_strokes_that_make_no_grid_give_no_table(tmp_path: Path) -> None:
    content = b"0.5 w 72 500 m 400 500 l S 72 480 m 400 480 l S 72 700 m 72 760 l S 300 100 m 300 160 l S\n"
    ours, theirs = _both(_write(tmp_path / "rules.pdf", content + _text_op(Text(72, 300, "Directors' report"))))
    assert ours == theirs == []


def test_rotated_page_is_left_to_pdfplumber_and_still_parsed(tmp_path: Path) -> None:
    path = _write(tmp_path / "rotated.pdf", _grid_ops(Grid(72, 300, WIDTHS, ROWS)), rotate=90)
    doc = pdfium.PdfDocument(path)
    page = doc[0]
    textpage = page.get_textpage()
    assert page_tables(page, textpage, 0, []) is None
    textpage.close()
    page.close()
    doc.close()
    parsed = parse_pdf(path, None, ParsingSettings())
    assert any(b.type is BlockType.TABLE for b in parsed.blocks)


def test_parse_pdf_reads_ruled_tables_without_opening_pdfplumber(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pdfplumber.open would make pdfminer re-read the page (the cost pdf_ruled removes).
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pdfplumber.open called for an unrotated page")

    monkeypatch.setattr(pdfplumber, "open", refuse)
    path = _write(tmp_path / "table.pdf", _grid_ops(Grid(72, 300, WIDTHS, ROWS)))
    parsed = parse_pdf(path, None, ParsingSettings())
    tables = [b for b in parsed.blocks if b.type is BlockType.TABLE]
    assert [t.header_rows for t in tables] == [[list(ROWS[0])]]
    assert tables[0].rows == [list(row) for row in ROWS[1:]]
    assert not any("Revenue" in b.text for b in parsed.blocks if b.type is not BlockType.TABLE)
