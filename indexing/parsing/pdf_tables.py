"""Tables in PDFs: a cheap ruling-line pre-check, pdfplumber detection, page-break stitching.

Why a pre-check: pdfplumber's ``find_tables`` lays out every object of a page with
pdfminer (0.2-1 s per page here); run on all 619 pages of a manual it would cost far more
than the whole text extraction (about 1.5 s with pdfium). Ruled tables are drawn with
path objects, which pdfium classifies in microseconds (:class:`Rulings`), so only pages
with crossing strokes or cell boxes are handed to pdfplumber.

Stitching (:func:`stitch_tables`) is a pure function over blocks so it is tested with
literals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from indexing.parsing.pdf_layout import join_text
from officeqa.domain import Block, BlockType

MIN_ROWS = 2
MIN_COLS = 2


@dataclass(slots=True)
class Rulings:
    """Path objects of a page sorted by shape: the evidence a ruled table leaves."""

    horizontal: int = 0  # thin, wide strokes
    vertical: int = 0  # thin, tall strokes
    boxes: int = 0  # rectangles big enough to be cells or frames
    grids: int = 0  # one path with many segments spanning a box (a whole grid drawn at once)

    def add(self, width: float, height: float, segments: int) -> None:
        """Classify one path object by its bounding box and segment count."""
        if height < 2 and width >= 10:
            self.horizontal += 1
        elif width < 2 and height >= 8:
            self.vertical += 1
        elif width >= 10 and height >= 8:
            self.boxes += 1
            if segments >= 10:
                self.grids += 1

    def may_hold_table(self) -> bool:
        """Whether pdfplumber is worth asking: crossing strokes, several boxes, or a drawn grid.

        Horizontal strokes alone (link underlines, rules under headings: 380 of them on each
        table-of-contents page of the 619-page manual) are not enough.
        """
        return (self.horizontal >= 2 and self.vertical >= 2) or self.boxes >= 2 or self.grids >= 1


@dataclass(frozen=True, slots=True)
class TableRegion:
    """A detected table: its box in top-down page coordinates and its cell texts."""

    x0: float
    top: float
    x1: float
    bottom: float
    rows: list[list[str]]

    def shifted(self, dx: float, dy: float) -> TableRegion:
        """The same table with its box moved (to another page coordinate system)."""
        return TableRegion(self.x0 + dx, self.top + dy, self.x1 + dx, self.bottom + dy, self.rows)

    def contains(self, x: float, y: float, margin: float = 1.0) -> bool:
        """Whether a point (e.g. a line's centre) lies inside the table box."""
        return self.x0 - margin <= x <= self.x1 + margin and self.top - margin <= y <= self.bottom + margin


def clean_cell(value: Any) -> str:
    """A cell's text on one line: wrapped lines inside the cell joined like soft breaks."""
    if value is None:
        return ""
    text = ""
    for part in str(value).splitlines():
        text = join_text(text, part)
    return " ".join(text.split())


def normalise_rows(raw_rows: list[list[Any]]) -> list[list[str]]:
    """Cells cleaned, empty rows dropped, columns that are empty in every row dropped."""
    rows = [[clean_cell(c) for c in row] for row in raw_rows]
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    keep = [col for col in range(width) if any(row[col] for row in rows)]
    return [[row[col] for col in keep] for row in rows]


def table_block(rows: list[list[str]], page: int) -> Block | None:
    """A table block with the first row as header, or None when the grid is too small to be a table."""
    if len(rows) < MIN_ROWS or max(len(r) for r in rows) < MIN_COLS:
        return None
    header_rows, body = [rows[0]], rows[1:]
    return Block.table(
        header_rows,
        body,
        page=page,
    )


def find_table_regions(plumber_page: Any) -> list[TableRegion]:
    """Ruled tables on one pdfplumber page (lines strategy), as regions with normalised rows."""
    regions: list[TableRegion] = []
    for table in plumber_page.find_tables():
        rows = normalise_rows(table.extract())
        if len(rows) < MIN_ROWS or max((len(r) for r in rows), default=0) < MIN_COLS:
            continue
        x0, top, x1, bottom = table.bbox
        regions.append(TableRegion(float(x0), float(top), float(x1), float(bottom), rows))
    return regions


def _width(block: Block) -> int:
    rows = [*(block.header_rows or []), *(block.rows or [])]
    return max((len(r) for r in rows), default=0)


def _last_page(block: Block) -> int | None:
    return block.meta.get("page_end", block.page)


def stitch_tables(blocks: list[Block]) -> list[Block]:
    """Join a table cut by a page break back into one table block.

    When a table block is immediately followed by a table block that starts the next page
    (so the first was the last block of its page) and both have the same number of columns,
    the second one's rows are appended to the first. A header repeated on the new page is
    dropped; a different "header" on the continuation is really a data row and is kept.
    The stitched block keeps the first page in ``page`` and records ``meta["page_end"]`` and
    ``meta["page_rows"]`` ([[first body row, page], ...]) so a row's own page can be cited.
    """
    out: list[Block] = []
    for block in blocks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.type is BlockType.TABLE
            and block.type is BlockType.TABLE
            and prev.page is not None
            and block.page is not None
            and _last_page(prev) is not None
            and block.page == _last_page(prev) + 1
            and _width(prev) == _width(block)
        ):
            head = prev.header_rows or []
            extra = list(block.rows or [])
            if block.header_rows and block.header_rows != head:
                extra = [*block.header_rows, *extra]
            merged_rows = [*(prev.rows or []), *extra]
            out[-1] = Block.table(
                head,
                merged_rows,
                caption=prev.caption,
                page=prev.page,
                role=prev.role,
                ocr=prev.ocr,
                meta={**prev.meta, "page_end": block.meta.get("page_end", block.page),
                      "page_rows": [*prev.meta.get("page_rows", [[0, prev.page]]),
                                    [len(prev.rows or []), block.page]]},
            )
            continue
        out.append(block)
    return out
