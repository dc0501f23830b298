"""PDF -> blocks: pdfium for text lines, pdfplumber for ruled tables, RapidOCR for scans.

Why pypdfium2 for text: it is BSD/Apache licensed (PyMuPDF is AGPL) and fast. Measured
on en_DA-619p.pdf on a shared 2-core machine: pypdfium2 extracted the text of all 619
pages at ~430 pages/s; pdfplumber (pdfminer) managed ~4.6 pages/s, about 90x slower, so a
pdfplumber-only parser would need over two minutes for that file. pdfplumber's table finder
supplies what pdfium lacks, ruled-table cell detection, on pages whose path objects suggest a
ruled table (see pdf_tables), fed with pdfium's own paths and characters (pdf_ruled); only a
rotated page still goes through pdfplumber's pdfminer reading.

Pipeline: per page, pdfium lines (text + box + size) -> drop lines outside the page ->
running header/footer and page-number removal (pdf_layout) -> table regions cut out of
the line stream -> paragraphs and headings -> table stitching across page breaks.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from indexing.parsing.ocr import OcrFailed, ocr_page
from indexing.parsing.pdf_layout import (
    Line,
    Paragraph,
    assemble_paragraphs,
    assign_heading_levels,
    body_pitch,
    column_right_edges,
    merge_page_continuations,
    strip_page_furniture,
)
from indexing.parsing.pdf_ruled import page_tables
from indexing.parsing.pdf_tables import (
    Rulings,
    TableRegion,
    find_table_regions,
    stitch_tables,
    table_block,
)
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

MIN_PATHS_FOR_VECTOR_TEXT = 20  # a text-less page drawn with many paths may be outlined text: OCR it too


@dataclass(slots=True)
class _PageScan:
    """What one pass over a page learned: its lines and what kinds of objects it draws."""

    lines: list[Line]
    height: float = 0.0
    # pdfplumber measures x from the PDF origin and top from the MediaBox top; lines here are
    # relative to the CropBox's top-left corner. These offsets convert the former to the latter.
    dx: float = 0.0
    dy: float = 0.0
    rulings: Rulings = field(default_factory=Rulings)
    images: int = 0
    has_text: bool = False
    garbled: bool = False  # a text layer made mostly of unmapped glyphs: OCR reads the page instead
    ocr: bool = False
    tables: list[TableRegion] = field(default_factory=list)
    tables_read: bool = False  # ruled tables already read from pdfium's objects (pdf_ruled)


def open_pdf(path: Path, password: str | None) -> pdfium.PdfDocument:
    """Open with pdfium, mapping its errors to refusals (encrypted: missing vs wrong password)."""
    try:
        return pdfium.PdfDocument(path, password=password or None)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
            message = (
                "the PDF is encrypted: a password is required to open it"
                if not password
                else "the PDF is encrypted and the password given is wrong"
            )
            raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, message) from exc
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"pdfium cannot open the file: {exc}") from exc


def _survey_objects(page: pdfium.PdfPage) -> tuple[Rulings, int]:
    """(path shapes, image count) of a page's top-level objects: microseconds, no layout needed."""
    rulings = Rulings()
    images = 0
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    for index in range(pdfium_c.FPDFPage_CountObjects(page)):
        obj = pdfium_c.FPDFPage_GetObject(page, index)
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            images += 1
        elif kind == pdfium_c.FPDF_PAGEOBJ_PATH and pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            rulings.add(right.value - left.value, top.value - bottom.value, pdfium_c.FPDFPath_CountSegments(obj))
    return rulings, images


def _garbage_count(text: str) -> int:
    """Characters that are glyph ids rather than text: controls, private-use code points, U+FFFD.

    A font without a usable Unicode map (common in Chinese PDFs made by old converters)
    extracts as such characters; the page looks fine on screen but its text layer is useless.
    """
    return sum(1 for ch in text if (ch < " " and ch not in "\t\r\n") or "\ue000" <= ch <= "\uf8ff" or ch == "\ufffd")


def _is_garbage(text: str) -> bool:
    """A line made mostly of :func:`_garbage_count` characters."""
    return _garbage_count(text) * 2 > len(text)


_SOFT_HYPHEN_BREAK = "\ufffe"  # pdfium's mark for "word-" + line break + "rest", with the break removed


def _physical_lines(text: str) -> list[tuple[int, str]]:
    """(text offset, line) pairs: pdfium's lines, also split where it merged a hyphenated break.

    The hyphen is put back ("de-" / "tection") so that line joining re-joins the word while
    each piece keeps the geometry of its own printed line.
    """
    out: list[tuple[int, str]] = []
    offset = 0
    for line in text.split("\r\n"):
        pieces = line.split(_SOFT_HYPHEN_BREAK)
        position = offset
        for i, piece in enumerate(pieces):
            out.append((position, piece + "-" if i < len(pieces) - 1 and piece.strip() else piece))
            position += len(piece) + 1
        offset += len(line) + 2
    return out


def text_lines(
    textpage: pdfium.PdfTextPage,
    text: str,
    page_number: int,
    box: tuple[float, float, float, float],
    fonts: _FontProbe,
) -> list[Line]:
    """The page's text lines in pdfium's reading order, with top-down boxes.

    ``text`` is ``textpage.get_text_range()``. pdfium inserts "\\r\\n" between the lines it
    builds; one look-up per line maps the text offset back to a character index (pdfium
    drops some unmapped characters from the text, so offsets and indexes drift apart). The
    loose box height of the first character stands in for the font size, since many PDFs
    set size 1 and scale the text matrix instead.
    Lines whose centre falls outside the crop box (printer marks, bleed) are dropped.
    """
    left, bottom_edge, right, top_edge = box
    lines: list[Line] = []
    for start, raw_line in _physical_lines(text):
        content = raw_line.strip()
        if not content or _is_garbage(content):
            continue
        lead = len(raw_line) - len(raw_line.lstrip())
        first = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, start + lead)
        last = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage, start + len(raw_line.rstrip()) - 1)
        if first < 0:
            continue
        x0, b0, x1a, t0 = textpage.get_charbox(first, loose=True)
        _, b1, x1, t1 = textpage.get_charbox(last if last >= 0 else first, loose=True)
        x1 = max(x1, x1a)
        top, bottom = top_edge - max(t0, t1), top_edge - min(b0, b1)
        middle_y, middle_x = (top + bottom) / 2, (x0 + x1) / 2
        if not (0 <= middle_y <= top_edge - bottom_edge and left <= middle_x <= right):
            continue
        bold = fonts.is_bold(textpage, first) and fonts.is_bold(textpage, last if last >= 0 else first)
        lines.append(
            Line(
                text=content,
                page=page_number,
                x0=x0 - left,
                x1=x1 - left,
                top=top,
                bottom=bottom,
                size=t0 - b0,
                bold=bold,
            )
        )
    return lines


class _FontProbe:
    """Asks pdfium for a character's font name, reusing one buffer (bold = "Bold"/"Black"/... in the name)."""

    _BOLD_MARKS = ("bold", "black", "heavy", "semibold", "demi", "-bd", ",bd")

    def __init__(self) -> None:
        self._buffer = ctypes.create_string_buffer(128)
        self._flags = ctypes.c_int()
        self._cache: dict[bytes, bool] = {}

    def is_bold(self, textpage: pdfium.PdfTextPage, index: int) -> bool:
        if pdfium_c.FPDFText_GetFontInfo(textpage, index, self._buffer, 128, ctypes.byref(self._flags)) <= 0:
            return False
        name = self._buffer.value
        if name not in self._cache:
            lowered = name.decode("latin-1").lower()
            self._cache[name] = any(mark in lowered for mark in self._BOLD_MARKS)
        weight = pdfium_c.FPDFText_GetFontWeight(textpage, index)
        return self._cache[name] or weight >= 600


def _scan_page(doc: pdfium.PdfDocument, index: int, fonts: _FontProbe, warnings: list[str]) -> _PageScan:
    page = doc[index]
    try:
        rulings, images = _survey_objects(page)
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
            lines = text_lines(textpage, text, index + 1, page.get_cropbox(), fonts)
            visible = len(text) - text.count(" ") - text.count("\r") - text.count("\n")
            garbled = visible > 0 and _garbage_count(text) * 2 > visible
            candidate = bool(lines) and not garbled and rulings.may_hold_table()
            tables = page_tables(page, textpage, index, warnings) if candidate else None
        finally:
            textpage.close()
        left, bottom, _, top = page.get_cropbox()
        media_top = page.get_mediabox()[3]
    finally:
        page.close()
    return _PageScan(
        lines=lines,
        height=top - bottom,
        dx=left,
        dy=media_top - top,
        rulings=rulings,
        images=images,
        has_text=bool(lines) and not garbled,
        garbled=garbled,
        tables=tables or [],
        tables_read=tables is not None,
    )


def _needs_ocr(scan: _PageScan) -> bool:
    if scan.garbled:
        return True
    paths = scan.rulings.horizontal + scan.rulings.vertical + scan.rulings.boxes
    return not scan.has_text and (scan.images > 0 or paths >= MIN_PATHS_FOR_VECTOR_TEXT)


def _detect_tables(path: Path, password: str | None, scans: list[_PageScan], warnings: list[str]) -> None:
    """Fill ``scan.tables`` with pdfplumber for the candidate pages :func:`_ruled` left to it (rotated pages)."""
    candidates = [
        i for i, s in enumerate(scans) if s.has_text and not s.ocr and not s.tables_read and s.rulings.may_hold_table()
    ]
    if not candidates:
        return
    import pdfplumber
    from pdfminer.psparser import PSException
    from pdfplumber.utils.exceptions import PdfminerException

    # pdfplumber wraps whatever pdfminer raises in PdfminerException; the rest are pdfminer's own
    # errors and the lookups that fail on malformed objects.
    foreign_errors = (PdfminerException, PSException, ValueError, KeyError, TypeError, IndexError)
    try:
        with pdfplumber.open(path, password=password or "") as plumber:
            for index in candidates:
                page = plumber.pages[index]
                try:
                    scan = scans[index]
                    scan.tables = [r.shifted(-scan.dx, -scan.dy) for r in find_table_regions(page)]
                except foreign_errors as exc:
                    warnings.append(f"page {index + 1}: table detection failed ({exc}); text kept as paragraphs")
                finally:
                    page.close()
    except foreign_errors as exc:
        # pdfium read the text; pdfminer is stricter. Keep the text, lose only the table structure.
        warnings.append(f"table detection skipped: pdfplumber cannot read the file ({type(exc).__name__}: {exc})")


def _page_items(scan: _PageScan) -> list[list[Line] | TableRegion]:
    """The page's line stream with table lines removed and each table placed by position.

    A table goes before the first remaining line that lies below its top edge: pdfium often
    emits a table's text after the rest of the page, so its stream position says little.
    """
    if not scan.tables:
        return [scan.lines]
    body: list[Line] = []
    for line in scan.lines:
        cx, cy = (line.x0 + line.x1) / 2, (line.top + line.bottom) / 2
        if not any(table.contains(cx, cy) for table in scan.tables):
            body.append(line)
    slots: dict[int, list[TableRegion]] = {}
    for table in sorted(scan.tables, key=lambda t: (t.top, t.x0)):
        at = next((i for i, line in enumerate(body) if (line.top + line.bottom) / 2 > table.top), len(body))
        slots.setdefault(at, []).append(table)
    items: list[list[Line] | TableRegion] = []
    segment: list[Line] = []
    for i in range(len(body) + 1):
        if i in slots:
            items.append(segment)
            items.extend(slots[i])
            segment = []
        if i < len(body):
            segment.append(body[i])
    items.append(segment)
    return items


def _paragraph_block(para: Paragraph, ocr: bool) -> Block:
    if para.level is not None:
        return Block(type=BlockType.HEADING, text=para.text, level=para.level, page=para.page, ocr=ocr)
    meta = {"page_end": para.page_end} if para.page_end else {}
    return Block(type=BlockType.PARAGRAPH, text=para.text, page=para.page, ocr=ocr, meta=meta)


def build_blocks(scans: list[_PageScan]) -> list[Block]:
    """Paragraph, heading and table blocks for scanned pages, in page and reading order.

    Headings are assigned over the whole document (body size is a document property), then
    paragraphs cut by a page break are re-joined and tables cut by one are stitched.
    """
    all_lines = [line for scan in scans for line in scan.lines]
    pitch = body_pitch(all_lines)
    edges = column_right_edges(all_lines)
    pieces: list[Paragraph | TableRegion] = []
    table_pages: dict[int, int] = {}
    ocr_pages = {number for number, scan in enumerate(scans, start=1) if scan.ocr}
    for number, scan in enumerate(scans, start=1):
        for item in _page_items(scan):
            if isinstance(item, TableRegion):
                pieces.append(item)
                table_pages[id(item)] = number
            else:
                pieces.extend(assemble_paragraphs(item, pitch=pitch, right_edges=edges))
    assign_heading_levels([p for p in pieces if isinstance(p, Paragraph)])
    blocks: list[Block] = []
    for piece in merge_page_continuations(pieces):
        if isinstance(piece, TableRegion):
            page = table_pages[id(piece)]
            block = table_block(piece.rows, page)
            if block is not None:
                block.ocr = page in ocr_pages
                blocks.append(block)
        else:
            blocks.append(_paragraph_block(piece, piece.page in ocr_pages))
    return stitch_tables(blocks)


def _title(doc: pdfium.PdfDocument) -> str | None:
    try:
        title = doc.get_metadata_value("Title")
    except (pdfium.PdfiumError, KeyError, ValueError):
        return None
    return title.strip() or None


def _run_ocr(doc: pdfium.PdfDocument, scans: list[_PageScan], settings: ParsingSettings, warnings: list[str]) -> str:
    """OCR the text-less pages in place; returns "" or why no OCR text came out (for the refusal)."""
    todo = [i for i, scan in enumerate(scans) if _needs_ocr(scan)]
    if not todo:
        return ""
    if not settings.ocr_enabled:
        warnings.append(f"{len(todo)} page(s) have no text layer and OCR is disabled (parsing.ocr_enabled)")
        return "OCR is disabled (parsing.ocr_enabled=false)"
    if settings.ocr_max_pages <= 0:
        warnings.append(f"{len(todo)} page(s) have no text layer and parsing.ocr_max_pages is 0")
        return "OCR is disabled (parsing.ocr_max_pages=0)"
    if len(todo) > settings.ocr_max_pages:
        warnings.append(
            f"{len(todo)} pages have no text layer; only the first {settings.ocr_max_pages} were OCR'd "
            "(parsing.ocr_max_pages)"
        )
        todo = todo[: settings.ocr_max_pages]
    found = False
    for index in todo:
        page = doc[index]
        try:
            lines = ocr_page(page, index + 1)
        except (OcrFailed, pdfium.PdfiumError) as exc:  # the engine, or pdfium rendering the page
            warnings.append(f"page {index + 1}: OCR failed: {exc}")
            return f"OCR failed: {exc}"
        finally:
            page.close()
        scans[index].lines = lines
        scans[index].ocr = True
        found = found or bool(lines)
    return "" if found else "OCR found no text on the page images"


def parse_pdf(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a PDF into page-tagged blocks, OCR-ing pages without a text layer when allowed.

    Refuses with ``encrypted`` (password missing or wrong), ``corrupt`` (pdfium cannot open
    it) or ``no_text_layer`` (no page has text and OCR is disabled, failed or read nothing).
    """
    path = Path(path)
    doc = open_pdf(path, password)
    warnings: list[str] = []
    try:
        page_count = len(doc)
        scans: list[_PageScan] = []
        fonts = _FontProbe()
        for index in range(page_count):
            try:
                scans.append(_scan_page(doc, index, fonts, warnings))
            except pdfium.PdfiumError as exc:
                warnings.append(f"page {index + 1} cannot be read: {exc}")
                scans.append(_PageScan(lines=[]))
        ocr_problem = _run_ocr(doc, scans, settings, warnings)
        title = _title(doc)
    finally:
        doc.close()
    if not any(scan.lines for scan in scans):
        if ocr_problem:
            message = f"the PDF has no text layer and {ocr_problem}"
            raise UnreadableDocument(str(path), RefusalKind.NO_TEXT_LAYER, message)
        return ParsedDocument(path=str(path), file_type="pdf", blocks=[], page_count=page_count, warnings=warnings)
    _detect_tables(path, password, scans, warnings)
    cleaned = strip_page_furniture(
        [scan.lines for scan in scans], settings.pdf_header_footer_min_pages, heights=[s.height for s in scans]
    )
    for scan, lines in zip(scans, cleaned, strict=True):
        scan.lines = lines
    return ParsedDocument(
        path=str(path),
        file_type="pdf",
        blocks=build_blocks(scans),
        title=title,
        page_count=page_count,
        ocr_used=any(scan.ocr for scan in scans),
        warnings=warnings,
    )
