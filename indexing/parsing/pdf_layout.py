"""Turn positioned text lines of PDF pages into paragraphs and headings.

Why pure functions over :class:`Line` literals: the rules here (running header/footer
removal, page-number lines, joining soft line breaks, promoting headings) decide what
the chunker sees, and each one is easiest to get right with small hand-written cases.
The pdfium and OCR front ends (``pdf.py``, ``ocr.py``) only produce ``Line`` values.

Coordinates are "top-down": ``top`` and ``bottom`` grow towards the bottom of the page,
so the first line on a page has the smallest ``top``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from statistics import median
from typing import Any

from indexing.parsing.headings import heading_level
from officeqa.scripts import CJK, CJK_PUNCTUATION, is_hangul


@dataclass(frozen=True, slots=True)
class Line:
    """One line of text on a page, in reading order, with its box and font size."""

    text: str
    page: int
    x0: float = 0.0
    x1: float = 0.0
    top: float = 0.0
    bottom: float = 0.0
    size: float = 0.0
    bold: bool = False


@dataclass(slots=True)
class Paragraph:
    """Consecutive lines joined into one unit of text; ``level`` is set for headings."""

    text: str
    page: int
    size: float
    top: float
    bottom: float
    line_count: int = 1
    level: int | None = None
    bold: bool = False
    page_end: int | None = None  # set when the paragraph runs on from ``page`` onto the next page


# ---------------------------------------------------------------- page numbers

_NUM = r"[0-9０-９]{1,5}"
_CN_NUM = r"[0-9０-９一二三四五六七八九十百零〇]{1,6}"
_PAGE_NUMBER_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"^第\s*{_CN_NUM}\s*页(\s*[,，/]?\s*共\s*{_CN_NUM}\s*页)?$"),  # 第 3 页 共 12 页, 第3页
    re.compile(rf"^共\s*{_CN_NUM}\s*页\s*[,，/]?\s*第\s*{_CN_NUM}\s*页$"),  # 共 12 页 第 3 页
    re.compile(rf"^(page|p\.?|pg\.?)\s*{_NUM}(\s*(of|/)\s*{_NUM})?$", re.IGNORECASE),  # Page 3 of 12
    re.compile(rf"^[-–—‐－]\s*{_NUM}\s*[-–—‐－]$"),  # - 3 -
    re.compile(rf"^{_NUM}\s*/\s*{_NUM}$"),  # 3 / 12
    re.compile(rf"^[\[(（]\s*{_NUM}\s*[\])）]$"),  # (3), [3]
)
_ROMAN_NUMERAL = r"(?=[mdclxvi])m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})"  # a well-formed numeral
_BARE_NUMBER = re.compile(rf"^{_NUM}$|^{_ROMAN_NUMERAL}$", re.IGNORECASE)


def is_page_number_line(text: str, *, at_edge: bool = True) -> bool:
    """True for a line that only states a page number ("第 3 页 共 12 页", "Page 3 of 12", "- 3 -", "3 / 12").

    A bare number ("17", "xii") counts only ``at_edge`` (first/last line of a page): in the
    body it is more likely a value than a folio.
    """
    line = " ".join(text.split())
    if not line:
        return False
    if any(p.match(line) for p in _PAGE_NUMBER_PATTERNS):
        return True
    return at_edge and bool(_BARE_NUMBER.match(line))


# ------------------------------------------------------- running header/footer

_DIGITS = re.compile(r"[0-9０-９]+")
_ROMAN = re.compile(rf"^{_ROMAN_NUMERAL}$|^{_ROMAN_NUMERAL.upper()}$")


def repeat_key(text: str) -> str:
    """The form of a line compared across pages: digits folded to '#', spaces dropped.

    "2 Row and Column Access Control" and "4 Row and Column Access Control" share a key,
    as do "2023 年报 第 3 页" and "2023 年报 第 4 页"; a roman folio at either end ("... reserved. xi")
    is folded too, and punctuation is dropped (OCR reads "第一章" as "第一-章" on some pages).
    """
    words = text.split()
    for i in (0, -1):
        if words and _ROMAN.match(words[i]):
            words[i] = "#"
    folded = _DIGITS.sub("#", "".join(words)).lower()
    return "".join(ch for ch in folded if ch.isalnum() or ch == "#")


def _edge_indexes(lines: list[Line], depth: int, height: float = 0.0) -> tuple[list[int], list[int]]:
    """Indexes of the ``depth`` top-most and bottom-most lines of one page (by position, not order).

    With the page ``height`` known, a candidate must also lie in the outer band of the page
    (EDGE_BAND of the height), so on a short page the first body lines are never candidates.
    """
    if not lines:
        return [], []
    by_top = sorted(range(len(lines)), key=lambda i: (lines[i].top, lines[i].x0))
    top, bottom = by_top[:depth], by_top[::-1][:depth]
    if height > 0:
        top = [i for i in top if lines[i].bottom <= EDGE_BAND * height]
        bottom = [i for i in bottom if lines[i].top >= (1 - EDGE_BAND) * height]
    return top, bottom


EDGE_DEPTH = 3  # lines nearest each page edge that may be running headers/footers
EDGE_BAND = 0.15  # ... and they must sit in the top/bottom 15% of the page (when its height is known)
RUNNING_MIN_SHARE = 0.02  # in long documents a running line must also cover this share of the pages
_POSITION_TOLERANCE = 4.0  # points; a running header sits at the same height on every page


def find_running_keys(
    pages: list[list[Line]], min_pages: int, *, depth: int = EDGE_DEPTH, heights: list[float] | None = None
) -> set[str]:
    """Keys of lines repeated (modulo digits) at the top or bottom of at least ``min_pages`` pages.

    Two guards against body lines that repeat by chance (a chapter title that opens three
    chapters, a quotation that ends several pages): the copies must sit at the same height
    (within a few points, when lines carry geometry), and in long documents they must also
    cover :data:`RUNNING_MIN_SHARE` of the pages.
    """
    tops: dict[str, list[float]] = {}
    for number, lines in enumerate(pages):
        top, bottom = _edge_indexes(lines, depth, heights[number] if heights else 0.0)
        seen: dict[str, float] = {}
        for i in (*top, *bottom):
            key = repeat_key(lines[i].text)
            if key and key != "#":
                seen.setdefault(key, lines[i].top)
        for key, y in seen.items():
            tops.setdefault(key, []).append(y)
    needed = max(2, min_pages, math.ceil(RUNNING_MIN_SHARE * len(pages)))
    running: set[str] = set()
    for key, ys in tops.items():
        if len(ys) < needed:
            continue
        centre = median(ys)
        tolerance = max(_POSITION_TOLERANCE, 0.01 * abs(centre))
        if sum(1 for y in ys if abs(y - centre) <= tolerance) >= needed:
            running.add(key)
    return running


def _outer_rows(lines: list[Line], top: list[int], bottom: list[int]) -> set[int]:
    """Indexes of the lines on the first and the last visual row of a page.

    A page number shares its row with a running title ("第一章 商品    13"), so the bare-number
    rule looks at whole rows; without geometry the first and last line stand in for them.
    """
    rows: set[int] = set()
    if top:
        first = lines[top[0]]
        if first.size <= 0:
            rows.add(top[0])
        else:
            rows |= {i for i in top if lines[i].top <= first.top + 0.6 * max(lines[i].size, 1.0)}
    if bottom:
        last = lines[bottom[0]]
        if last.size <= 0:
            rows.add(bottom[0])
        else:
            rows |= {i for i in bottom if lines[i].bottom >= last.bottom - 0.6 * max(lines[i].size, 1.0)}
    return rows


def strip_page_furniture(
    pages: list[list[Line]], min_pages: int, *, depth: int = EDGE_DEPTH, heights: list[float] | None = None
) -> list[list[Line]]:
    """Drop running headers/footers and page-number lines from the top/bottom of each page.

    Only the ``depth`` lines nearest each edge (and, given ``heights``, inside the page's outer
    band) are candidates, so a sentence that happens to repeat inside the body (a legal
    boilerplate clause) is kept; a bare number counts as a folio only on the first or last
    visual row.
    """
    running = find_running_keys(pages, min_pages, depth=depth, heights=heights)
    out: list[list[Line]] = []
    for number, lines in enumerate(pages):
        top, bottom = _edge_indexes(lines, depth, heights[number] if heights else 0.0)
        outer = _outer_rows(lines, top, bottom)
        drop: set[int] = set()
        for i in set(top) | set(bottom):
            text = lines[i].text
            if repeat_key(text) in running or is_page_number_line(text, at_edge=i in outer):
                drop.add(i)
        out.append([line for i, line in enumerate(lines) if i not in drop])
    return out


# ----------------------------------------------------------------- line joining

_CJK_TEXT_CHAR = re.compile(f"[{CJK}{CJK_PUNCTUATION}]")
_SENTENCE_END = re.compile(r"([。！？!?；;…:：]|(?<![A-Z])\.)[」』”’\"')）]?$")
_BULLET = re.compile(r"^([•●○■□◆◇▪▫►▶✓✔\-–—*·]\s|\(?[0-9]{1,2}[).、]\s|[（(][0-9一二三四五六七八九十]{1,3}[)）]|[①-⑳])")


def _is_cjk(ch: str) -> bool:
    """A character of CJK text where a line may wrap with no space: CJK script or CJK/full-width punctuation."""
    return bool(_CJK_TEXT_CHAR.match(ch))


def join_text(left: str, right: str) -> str:
    """Join two pieces of one paragraph split by a soft line break.

    Chinese/Japanese/Korean text joins without a space (Hangul keeps one: Korean separates
    words by spaces); an English word hyphenated at the line end ("infor-" + "mation") is
    re-joined; anything else gets one space.
    """
    left = left.rstrip()
    right = right.lstrip()
    if not left:
        return right
    if not right:
        return left
    a, b = left[-1], right[0]
    if a in "-\u00ad" and len(left) >= 2 and left[-2].isalpha() and b.islower():
        return left[:-1] + right
    if (_is_cjk(a) or _is_cjk(b)) and not is_hangul(a) and not is_hangul(b):
        return left + right
    return f"{left} {right}"



def ends_sentence(text: str) -> bool:
    """Whether a line ends like a finished sentence/paragraph (so the next line may start a new one)."""
    return bool(_SENTENCE_END.search(text.rstrip()))


def body_pitch(lines: list[Line]) -> float:
    """The body line pitch as a multiple of the font size (median over consecutive same-size lines).

    Relative, so one value serves 9 pt footnotes and 16 pt headings alike.
    """
    ratios = [
        (b.top - a.top) / a.size
        for a, b in pairwise(lines)
        if a.page == b.page and a.size > 0 and 0 < b.top - a.top < 3 * a.size and abs(a.size - b.size) < 0.5
    ]
    return median(ratios) if ratios else 0.0


_EDGE_BIN = 12.0  # points; lines whose left edges fall in one bin share a column
_MIN_COLUMN_LINES = 3


def _column_key(line: Line) -> tuple[int, int]:
    return line.page, int(line.x0 // _EDGE_BIN)


def column_right_edges(lines: list[Line]) -> dict[tuple[int, int], float]:
    """The right edge of each text column, keyed by (page, left-edge bin).

    A paragraph's last line is recognised by falling short of its column's right edge; a
    two-column page has two edges. Bins with too few lines to tell fall back to the page's
    widest line (key ``(page, -1)``).
    """
    widest: dict[tuple[int, int], float] = {}
    counts: Counter[tuple[int, int]] = Counter()
    for line in lines:
        key = _column_key(line)
        counts[key] += 1
        widest[key] = max(widest.get(key, 0.0), line.x1)
        page_key = (line.page, -1)
        widest[page_key] = max(widest.get(page_key, 0.0), line.x1)
    return {key: edge for key, edge in widest.items() if key[1] == -1 or counts[key] >= _MIN_COLUMN_LINES}


def _right_edge(line: Line, edges: dict[tuple[int, int], float]) -> float:
    return edges.get(_column_key(line)) or edges.get((line.page, -1), 0.0)


def _continues(a: Line, b: Line, pitch: float, right_edge: float) -> bool:
    """Whether line ``b`` continues the paragraph that line ``a`` ends."""
    if a.page != b.page:
        return False
    size = max(a.size, b.size, 1.0)
    if b.top < a.bottom and b.bottom > a.top and -0.5 <= b.x0 - a.x1 < 1.5 * size:
        return True  # the same visual row, right after it: a superscript, a font switch mid-line
    if abs(a.size - b.size) > 0.15 * size or a.bold != b.bold:
        return False
    step = b.top - a.top
    if step <= 0.3 * size or step > 2.5 * size:
        return False  # same baseline (another column/cell) or a jump back up / far down
    if pitch and step > 1.35 * pitch * size + 1.0:
        return False  # blank space between paragraphs
    if abs(b.x0 - a.x0) > 6 * size and b.x0 > a.x1:
        return False  # next column
    if _BULLET.match(b.text.lstrip()):
        return False
    if heading_level(a.text) is not None or heading_level(b.text) is not None:
        return False
    if ends_sentence(a.text):
        # A sentence end that still fills the line (within ~2 characters of the column's right
        # edge) is a sentence inside the paragraph; a short line ends the paragraph.
        return bool(right_edge) and a.x1 >= right_edge - 2 * size
    return True


def _continues_plain(a: Line, b: Line) -> bool:
    """The punctuation-only rule, for lines without geometry."""
    return (
        a.page == b.page
        and not ends_sentence(a.text)
        and heading_level(a.text) is None
        and heading_level(b.text) is None
        and not _BULLET.match(b.text.lstrip())
    )


def assemble_paragraphs(
    lines: list[Line],
    *,
    pitch: float | None = None,
    right_edges: dict[tuple[int, int], float] | None = None,
) -> list[Paragraph]:
    """Join lines (in reading order) into paragraphs using punctuation and geometry.

    A line continues into the next when it does not end a sentence, the next line follows at
    the body line pitch, in the same column and font size, and neither is a heading or a bullet.
    Lines without geometry (size 0, e.g. from tests) fall back to punctuation alone.
    ``pitch`` and ``right_edges`` may be computed once over the whole document and passed in
    when lines are assembled in pieces (around tables).
    """
    lines = [line for line in lines if line.text.strip()]
    if not lines:
        return []
    pitch = body_pitch(lines) if pitch is None else pitch
    edges = column_right_edges(lines) if right_edges is None else right_edges
    out: list[Paragraph] = []
    current: Paragraph | None = None
    prev: Line | None = None
    for line in lines:
        if current is not None and prev is not None:
            if line.size > 0 and prev.size > 0:
                joined = _continues(prev, line, pitch, _right_edge(prev, edges))
            else:
                joined = _continues_plain(prev, line)
            if joined:
                current.text = join_text(current.text, line.text)
                current.bottom = line.bottom
                current.line_count += 1
                prev = line
                continue
            out.append(current)
        current = Paragraph(
            text=line.text.strip(), page=line.page, size=line.size, top=line.top, bottom=line.bottom, bold=line.bold
        )
        prev = line
    if current is not None:
        out.append(current)
    return out


def continues_on_next_page(last: Paragraph, first: Paragraph) -> bool:
    """Whether the first paragraph of a page carries on the last sentence of the previous page.

    True when the earlier one stops mid-sentence, both are body text of about the same size,
    and the later one starts like a continuation: a lower-case letter, or a CJK character
    that does not open a heading, list item or quotation.
    """
    if (last.page_end or last.page) + 1 != first.page or last.level is not None or first.level is not None:
        return False
    if ends_sentence(last.text) or heading_level(first.text) is not None or _BULLET.match(first.text):
        return False
    if last.size and first.size and abs(last.size - first.size) > 0.15 * max(last.size, first.size):
        return False
    head = first.text[0]
    return head.islower() or (_is_cjk(head) and head not in "“‘《「『（【")


def merge_page_continuations(items: list[Any]) -> list[Any]:
    """Join paragraphs split by a page break (see :func:`continues_on_next_page`).

    ``items`` are a document's pieces in reading order; only two :class:`Paragraph` values
    that follow each other directly are joined (a table or anything else between them keeps
    them apart). The joined paragraph keeps its first page and records ``page_end``.
    """
    out: list[Any] = []
    for item in items:
        prev = out[-1] if out else None
        if isinstance(item, Paragraph) and isinstance(prev, Paragraph) and continues_on_next_page(prev, item):
            prev.text = join_text(prev.text, item.text)
            prev.line_count += item.line_count
            prev.page_end = item.page_end or item.page
            continue
        out.append(item)
    return out


# --------------------------------------------------------------------- headings

MAX_SIZE_HEADING_CHARS = 80
HEADING_SIZE_RATIO = 1.12  # 12 pt body -> 13.5 pt and up reads as a heading


def body_size(paragraphs: list[Paragraph]) -> float:
    """The font size that carries most characters (the body text size)."""
    weights: Counter[float] = Counter()
    for para in paragraphs:
        if para.size > 0:
            weights[round(para.size * 2) / 2] += len(para.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _bold_share(paragraphs: list[Paragraph], size: float) -> float:
    """Share of the characters at ``size`` set in bold (a bold body font makes bold meaningless)."""
    total = bold = 0
    for para in paragraphs:
        if round(para.size * 2) / 2 == size:
            total += len(para.text)
            bold += len(para.text) if para.bold else 0
    return bold / total if total else 0.0


def assign_heading_levels(paragraphs: list[Paragraph]) -> list[Paragraph]:
    """Set ``level`` on paragraphs that are headings, by wording first, then by font size or weight.

    Wording ("第一章", "1.1", "一、") wins because it carries the document's own numbering.
    A short, unpunctuated paragraph set at least 12% larger than the body text, or in bold
    at body size when the body is not bold, is a heading too; the candidates' sizes are ranked
    so the largest is level 1 (at most level 3).
    """
    base = body_size(paragraphs)
    bold_counts = bool(base) and _bold_share(paragraphs, base) < 0.5
    candidates: list[Paragraph] = []
    for para in paragraphs:
        level = heading_level(para.text)
        if level is not None:
            para.level = level
            continue
        text = para.text.strip()
        if (
            base
            and (para.size >= HEADING_SIZE_RATIO * base or (bold_counts and para.bold and para.size >= 0.95 * base))
            and para.line_count <= 3
            and 1 < len(text) <= MAX_SIZE_HEADING_CHARS
            and (text[0].isalnum() or text[0] in "\"'“‘《「(（[")
            and not ends_sentence(text)
            and any(ch.isalpha() for ch in text)
        ):
            candidates.append(para)
    sizes = sorted({round(p.size) for p in candidates}, reverse=True)
    for para in candidates:
        para.level = min(sizes.index(round(para.size)) + 1, 3)
    return paragraphs
