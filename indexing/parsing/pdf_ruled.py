"""Ruled tables from pdfium's own path objects and characters, cut by pdfplumber's table finder.

Why: pdfplumber's ``find_tables`` needs pdfminer to re-interpret the page's content stream
in Python (0.1-0.5 s a page: 55% of indexing a real annual report, ``bench/results/
ingest_profile.md``), although pdfium has already parsed that page for its text. The
table *algorithm* (edges -> snapped/joined segments -> intersections -> cells -> tables,
then the characters inside each cell) is cheap and pure Python over plain dicts, so it is
kept exactly; only its inputs come from pdfium: the page's edges (built the way pdfminer
classifies paths into lines, rectangles and curves, and pdfplumber turns those into
edges) and its characters (pdfium's loose character boxes, without the spaces pdfium
generates between words). ``tests/unit/indexing/test_pdf_ruled.py`` checks the tables
against pdfplumber's own on generated PDFs.

Coordinates are top-down relative to the crop box's top-left corner, like the text lines
of ``pdf.py``, so the regions need no shifting.
"""

from __future__ import annotations

import ctypes
import itertools
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from indexing.parsing.pdf_tables import TableRegion, find_table_regions
from officeqa.scripts import is_cjk

Point = tuple[float, float]
Matrix = tuple[float, float, float, float, float, float]

_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_HYPHEN_MARKS = (0x02, 0xFFFE)  # pdfium's code for a hyphen it took for a line-end break


def _compose(inner: Matrix, outer: Matrix) -> Matrix:
    """``inner`` then ``outer`` (PDF row-vector convention: inner x outer)."""
    a, b, c, d, e, f = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (
        a * a2 + b * c2,
        a * b2 + b * d2,
        c * a2 + d * c2,
        c * b2 + d * d2,
        e * a2 + f * c2 + e2,
        e * b2 + f * d2 + f2,
    )


def _object_matrix(obj: Any) -> Matrix:
    m = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(obj, m):
        return _IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _subpaths(obj: Any, matrix: Matrix) -> list[tuple[str, list[Point]]]:
    """The path's subpaths as (pdfminer-style shape, end points in page space).

    pdfminer keeps one point per operator (a Bezier curve's end point, not its control
    points) and writes a close as ``h`` whose point is the subpath's start; pdfium gives a
    curve as three BEZIERTO segments and marks a close on the last segment.
    """
    a, b, c, d, e, f = matrix
    x, y = ctypes.c_float(), ctypes.c_float()
    out: list[tuple[str, list[Point]]] = []
    shape: list[str] = []
    points: list[Point] = []
    bezier = 0
    for index in range(pdfium_c.FPDFPath_CountSegments(obj)):
        segment = pdfium_c.FPDFPath_GetPathSegment(obj, index)
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        pdfium_c.FPDFPathSegment_GetPoint(segment, x, y)
        point = (x.value * a + y.value * c + e, x.value * b + y.value * d + f)
        if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
            if shape:
                out.append(("".join(shape), points))
            shape, points, bezier = ["m"], [point], 0
        elif kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            bezier += 1
            if bezier % 3:
                continue
            shape.append("c")
            points.append(point)
        else:
            shape.append("l")
            points.append(point)
        if pdfium_c.FPDFPathSegment_GetClose(segment) and points:
            shape.append("h")
            points.append(points[0])
    if shape:
        out.append(("".join(shape), points))
    return out


class _EdgeCollector:
    """pdfminer's LTLine / LTRect / LTCurve classification, then pdfplumber's edges of each."""

    def __init__(self, left: float, top: float) -> None:
        self.left, self.top = left, top
        self.lines: list[dict[str, Any]] = []
        self.rects: list[dict[str, Any]] = []
        self.curves: list[dict[str, Any]] = []

    def edges(self) -> list[dict[str, Any]]:
        """In pdfplumber's order (lines, rectangles, curves): snapping averages in that order."""
        return self.lines + self.rects + self.curves

    def add_path(self, obj: Any, matrix: Matrix) -> None:
        for shape, points in _subpaths(obj, matrix):
            if len(shape) > 3 and shape[-2:] == "lh" and points[-2] == points[0]:
                shape, points = shape[:-2] + "h", points[:-1]
            if shape in ("mlh", "ml"):
                self._line(points[0], points[1])
            elif shape in ("mlllh", "mllll") and self._is_rect(points):
                self._rect(points)
            else:
                self._curve(points)

    @staticmethod
    def _is_rect(pts: list[Point]) -> bool:
        (x0, y0), (x1, y1), (x2, y2), (x3, y3), _ = pts
        square = (x0 == x1 and y1 == y2 and x2 == x3 and y3 == y0) or (y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0)
        return pts[0] == pts[4] and square

    def _box(self, pts: list[Point]) -> dict[str, Any]:
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        x0, x1 = min(xs) - self.left, max(xs) - self.left
        top, bottom = self.top - max(ys), self.top - min(ys)
        return {
            "x0": x0,
            "x1": x1,
            "top": top,
            "bottom": bottom,
            "doctop": top,
            "width": x1 - x0,
            "height": bottom - top,
        }

    def _line(self, p0: Point, p1: Point) -> None:
        edge = self._box([p0, p1])
        edge.update(object_type="line", orientation="h" if edge["top"] == edge["bottom"] else "v")
        self.lines.append(edge)

    def _rect(self, pts: list[Point]) -> None:
        box = self._box(pts)
        x0, x1, top, bottom = box["x0"], box["x1"], box["top"], box["bottom"]
        common = {"object_type": "rect_edge", "doctop": top}
        self.rects += [
            {**box, **common, "height": 0, "bottom": top, "orientation": "h"},
            {**box, **common, "height": 0, "top": bottom, "doctop": bottom, "orientation": "h"},
            {**box, **common, "width": 0, "x1": x0, "orientation": "v"},
            {**box, **common, "width": 0, "x0": x1, "orientation": "v"},
        ]

    def _curve(self, pts: list[Point]) -> None:
        for (ax, ay), (bx, by) in itertools.pairwise(pts):
            x0, x1 = min(ax, bx) - self.left, max(ax, bx) - self.left
            top, bottom = self.top - max(ay, by), self.top - min(ay, by)
            orientation = "v" if ax == bx else ("h" if ay == by else None)
            self.curves.append(
                {
                    "object_type": "curve_edge",
                    "x0": x0,
                    "x1": x1,
                    "top": top,
                    "doctop": top,
                    "bottom": bottom,
                    "width": x1 - x0,
                    "height": bottom - top,
                    "orientation": orientation,
                }
            )

    def walk(self, objects: list[Any], matrix: Matrix) -> None:
        """Path objects of a page or form, descending into forms (pdfminer draws their content too)."""
        for obj in objects:
            kind = pdfium_c.FPDFPageObj_GetType(obj)
            if kind == pdfium_c.FPDF_PAGEOBJ_PATH:
                self.add_path(obj, _compose(_object_matrix(obj), matrix))
            elif kind == pdfium_c.FPDF_PAGEOBJ_FORM:
                inner = _compose(_object_matrix(obj), matrix)
                count = pdfium_c.FPDFFormObj_CountObjects(obj)
                self.walk([pdfium_c.FPDFFormObj_GetObject(obj, i) for i in range(count)], inner)


def page_edges(page: pdfium.PdfPage, left: float, top: float) -> list[dict[str, Any]]:
    """pdfplumber's ``page.edges`` for a pdfium page, top-down from the crop box corner ``(left, top)``."""
    collector = _EdgeCollector(left, top)
    count = pdfium_c.FPDFPage_CountObjects(page)
    collector.walk([pdfium_c.FPDFPage_GetObject(page, i) for i in range(count)], _IDENTITY)
    return collector.edges()


def page_chars(textpage: pdfium.PdfTextPage, left: float, top: float) -> list[dict[str, Any]]:
    """The page's characters as pdfplumber's char dicts (only the keys its text extraction reads)."""
    box = pdfium_c.FS_RECTF()
    matrix = pdfium_c.FS_MATRIX()
    chars: list[dict[str, Any]] = []
    pending = False
    for index in range(pdfium_c.FPDFText_CountChars(textpage)):
        code = pdfium_c.FPDFText_GetUnicode(textpage, index)
        if pdfium_c.FPDFText_IsGenerated(textpage, index) == 1:
            pending = pending or (code == 32 and bool(chars))  # see _space_between
            continue
        if code in _HYPHEN_MARKS:
            code = 45
        if code == 0 or not pdfium_c.FPDFText_GetLooseCharBox(textpage, index, box):
            continue
        upright = True
        if pdfium_c.FPDFText_GetMatrix(textpage, index, matrix):
            upright = matrix.a * matrix.d > 0 and matrix.b * matrix.c <= 0
        char_top, bottom = top - box.top, top - box.bottom
        char = {
            "text": chr(code),
            "x0": box.left - left,
            "x1": box.right - left,
            "top": char_top,
            "doctop": char_top,
            "bottom": bottom,
            "upright": upright,
            "size": bottom - char_top,
        }
        if pending and _space_between(chars[-1], char):
            chars.append({**chars[-1], "text": " ", "x0": chars[-1]["x1"]})
        pending = False
        chars.append(char)
    return chars


def _space_between(prev: dict[str, Any], nxt: dict[str, Any]) -> bool:
    """Whether a space pdfium generated between two characters stands for a real one.

    pdfium drops some space glyphs (one that ends a text object) and generates a zero-width
    space in their place, off the text line; pdfminer keeps the glyph, and pdfplumber splits
    words at it. Put back as a space on the previous character's line, it splits the same
    words. Beside a CJK character pdfium also generates spaces for the gap between scripts
    where no glyph was drawn ("2019 年"): those are left out, as pdfminer has none.
    """
    if _wide(prev["text"]) or _wide(nxt["text"]):
        return False
    return bool(abs(nxt["top"] - prev["top"]) < 1 and nxt["x0"] >= prev["x1"])


def _wide(ch: str) -> bool:
    """A CJK character or CJK/full-width punctuation (written without spaces around it)."""
    return is_cjk(ch) or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"


class _RuledPage:
    """The two things pdfplumber's ``TableFinder`` and ``Table.extract`` read from a page."""

    def __init__(self, edges: list[dict[str, Any]], chars_of: Any, bbox: tuple[float, float, float, float]):
        self.edges = edges
        self.bbox = bbox
        self._chars_of = chars_of
        self._chars: list[dict[str, Any]] | None = None

    @property
    def chars(self) -> list[dict[str, Any]]:
        """Read from pdfium only when a table was found (most candidate pages have none)."""
        if self._chars is None:
            self._chars = self._chars_of()
        return self._chars

    def find_tables(self) -> list[Any]:
        """pdfplumber's tables, each reading only the characters inside its own box.

        ``Table.extract`` tests every character of its page against every row: the same
        result from the characters whose centre lies in the table (a row's box lies inside
        the table's, and the tests are the same half-open ones), for far fewer tests.
        """
        from pdfplumber.table import TableFinder, TableSettings

        tables = TableFinder(self, TableSettings.resolve(None)).tables  # type: ignore[arg-type]
        for table in tables:
            x0, top, x1, bottom = table.bbox
            table.page = _TableChars(  # type: ignore[assignment]
                [
                    c
                    for c in self.chars
                    if x0 <= (c["x0"] + c["x1"]) / 2 < x1 and top <= (c["top"] + c["bottom"]) / 2 < bottom
                ]
            )
        return tables


class _TableChars:
    """What ``Table.extract`` reads from its page: the characters (here only the table's own)."""

    def __init__(self, chars: list[dict[str, Any]]) -> None:
        self.chars = chars


def ruled_tables(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage) -> list[TableRegion]:
    """Ruled tables of one pdfium page (pdfplumber's default "lines" strategy), crop-box top-down coordinates."""
    left, bottom, right, top = page.get_cropbox()
    ruled = _RuledPage(
        page_edges(page, left, top), lambda: page_chars(textpage, left, top), (0, 0, right - left, top - bottom)
    )
    return find_table_regions(ruled)


def page_tables(
    page: pdfium.PdfPage, textpage: pdfium.PdfTextPage, index: int, warnings: list[str]
) -> list[TableRegion] | None:
    """A candidate page's ruled tables while pdf.py has it open; None leaves the page to pdfplumber.

    A rotated page is left to pdfplumber, which finds its tables in the rotated (displayed)
    space that pdfium's objects are not in.
    """
    if page.get_rotation():
        return None
    try:
        return ruled_tables(page, textpage)
    except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as exc:
        warnings.append(f"page {index + 1}: table detection failed ({exc}); text kept as paragraphs")
        return []
