"""PowerPoint (.pptx) -> blocks, slide by slide (``slide`` = 1-based slide number).

python-pptx reads everything needed here (placeholders, text frames, tables, charts,
groups, notes) and opens the slide parts lazily, so it is fast enough for decks of
hundreds of slides; ``unstructured``'s pptx partitioner adds nothing but a spaCy download.

Per slide, in reading order (the title first, then shapes top-to-bottom, left-to-right):

- the title placeholder -> heading level 1;
- text frames -> paragraphs; bulleted or numbered paragraphs (an explicit bullet, an
  indent level, or a body placeholder, whose paragraphs the master bullets) -> list
  blocks, numbered items with their label ("1.", "a)");
- tables -> table blocks (first row = header; merged cells repeat their value);
- charts -> a table block of categories x series values, captioned with the chart title;
- group shapes are read recursively; pictures carry no text and are skipped;
- date/footer placeholders -> paragraphs with role footer; slide numbers are dropped;
- speaker notes -> a paragraph with role notes, after the slide's content.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from indexing.parsing.headings import heading_level
from indexing.parsing.ooxml import corrupt_on_error, open_ooxml
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

_A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
_A = f"{{{_A_NS}}}"
_C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
_BU_CHAR, _BU_AUTO, _BU_NONE = (f"{{{_A_NS}}}{tag}" for tag in ("buChar", "buAutoNum", "buNone"))


def _roman(n: int) -> str:
    out = []
    for value, letters in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                           (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def _auto_label(scheme: str, n: int) -> str:
    """Label of the n-th item of a DrawingML auto-numbering scheme such as "arabicPeriod" or "alphaLcParenR"."""
    if scheme.startswith("alpha"):
        core = chr(ord("a") + (n - 1) % 26)
        core = core.upper() if "Uc" in scheme else core
    elif scheme.startswith("roman"):
        core = _roman(n)
        core = core.upper() if "Uc" in scheme else core
    elif scheme.startswith(("ea1Chs", "ea1Cht", "ea1Jpn")):
        digits = "零一二三四五六七八九十"
        core = digits[n] if n <= 10 else str(n)
    else:
        core = str(n)
    if scheme.endswith("ParenBoth"):
        return f"({core})"
    if scheme.endswith("ParenR"):
        return f"{core})"
    if scheme.endswith("Period") or scheme.endswith("DbPeriod"):
        return f"{core}."
    return core


class _SlideReader:
    """Turns one slide's shapes into blocks."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.blocks: list[Block] = []
        self.title: str | None = None

    def read(self, slide: Any) -> list[Block]:
        from pptx.enum.shapes import PP_PLACEHOLDER

        shapes = list(slide.shapes)
        title_types = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
        titles = [s for s in shapes if s.is_placeholder and s.placeholder_format.type in title_types]
        for shape in titles:
            text = " ".join(shape.text_frame.text.split()) if shape.has_text_frame else ""
            if text:
                self.title = self.title or text
                self._add(Block(type=BlockType.HEADING, text=text, level=1))
        rest = [s for s in shapes if s not in titles]
        self._shapes(rest)
        notes = _notes_text(slide)
        if notes:
            self._add(Block(type=BlockType.PARAGRAPH, text=notes, role=BlockRole.NOTES))
        return self.blocks

    def _add(self, block: Block) -> None:
        block.slide = self.number
        self.blocks.append(block)

    def _shapes(self, shapes: Iterable[Any]) -> None:
        from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER

        ordered = sorted(shapes, key=lambda s: (s.top if s.top is not None else 0, s.left if s.left is not None else 0))
        for shape in ordered:
            if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
                self._shapes(shape.shapes)
                continue
            role = BlockRole.BODY
            body_placeholder = False
            if shape.is_placeholder:
                kind = shape.placeholder_format.type
                if kind == PP_PLACEHOLDER.SLIDE_NUMBER:
                    continue
                if kind in (PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.HEADER):
                    role = BlockRole.FOOTER
                body_placeholder = kind in (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT)
            if getattr(shape, "has_table", False) and shape.has_table:
                self._table(shape.table)
            elif getattr(shape, "has_chart", False) and shape.has_chart:
                self._chart(shape.chart_part.chart._chartSpace)
            elif shape.has_text_frame:
                self._text_frame(shape.text_frame, role, body_placeholder)

    def _text_frame(self, frame: Any, role: BlockRole, bulleted_by_default: bool) -> None:
        items: list[str] = []
        levels: list[int] = []
        lines: list[str] = []
        counters: dict[int, int] = {}

        def flush_items() -> None:
            if items:
                block = Block(type=BlockType.LIST, text="\n".join(items), items=list(items), role=role)
                if any(levels):
                    block.meta["levels"] = list(levels)
                self._add(block)
                items.clear()
                levels.clear()

        def flush_lines() -> None:
            if lines:
                self._add(Block(type=BlockType.PARAGRAPH, text="\n".join(lines), role=role))
                lines.clear()

        for paragraph in frame.paragraphs:
            text = " ".join(paragraph.text.replace("\v", "\n").split())
            if not text:
                continue
            level = paragraph.level or 0
            bullet, scheme, start = _bullet(paragraph, bulleted_by_default or level > 0)
            if bullet:
                flush_lines()
                label = ""
                if scheme:
                    counters[level] = counters.get(level, start - 1) + 1
                    for deeper in [k for k in counters if k > level]:
                        del counters[deeper]
                    label = _auto_label(scheme, counters[level]) + " "
                items.append(label + text)
                levels.append(level)
                continue
            for deeper in [k for k in counters if k >= level]:
                del counters[deeper]
            flush_items()
            worded = heading_level(text) if role is BlockRole.BODY else None
            if worded is not None:
                flush_lines()
                self._add(Block(type=BlockType.HEADING, text=text, level=max(2, worded)))
            else:
                lines.append(text)
        flush_items()
        flush_lines()

    def _table(self, table: Any) -> None:
        rows = len(table.rows)
        cols = len(table.columns)
        grid = [["" for _ in range(cols)] for _ in range(rows)]
        for r in range(rows):
            for c in range(cols):
                cell = table.cell(r, c)
                if cell.is_spanned:
                    continue
                text = " ".join(cell.text.split())
                height = cell.span_height if cell.is_merge_origin else 1
                width = cell.span_width if cell.is_merge_origin else 1
                for rr in range(r, min(r + height, rows)):
                    for cc in range(c, min(c + width, cols)):
                        grid[rr][cc] = text
        n_header = 1
        for c in range(cols):
            cell = table.cell(0, c)
            if cell.is_merge_origin:
                # a header cell spanning columns groups the row below (a two-row header); one spanning rows extends it
                n_header = max(n_header, cell.span_height, 2 if cell.span_width > 1 and rows > 2 else 1)
        n_header = min(n_header, 3)
        header = [row for row in grid[:n_header] if any(row)]
        body = [row for row in grid[n_header:] if any(row)]
        if not header and not body:
            return
        if len(header) + len(body) == 1 and cols == 1:
            self._add(Block(type=BlockType.PARAGRAPH, text=(header or body)[0][0]))
            return
        self._add(Block.table(header, body))

    def _chart(self, chart_space: Any) -> None:
        """Categories x series values, read from the chart XML's caches (any plot type, 3-D included)."""
        caption = " ".join("".join(t.text or "" for t in chart_space.iterfind(f".//{_C}title//{_A}t")).split()) or None
        series = list(chart_space.iterfind(f".//{_C}plotArea//{_C}ser"))
        if not series:
            return
        names: list[str] = []
        columns: list[dict[int, str]] = []
        categories: dict[int, str] = {}
        for i, ser in enumerate(series):
            name = " ".join("".join(v.text or "" for v in ser.iterfind(f"{_C}tx//{_C}v")).split())
            names.append(name or f"Series {i + 1}")
            for tag in ("cat", "xVal"):
                for idx, text in _points(ser.find(f"{_C}{tag}")).items():
                    categories.setdefault(idx, text)
            values = ser.find(f"{_C}val")
            columns.append(_points(values if values is not None else ser.find(f"{_C}yVal")))
        length = max([*categories, *(k for col in columns for k in col)], default=-1) + 1
        if length == 0:
            return
        header = [["Category", *names]]
        body = [[categories.get(i, str(i + 1)), *[_number(col.get(i, "")) for col in columns]] for i in range(length)]
        self._add(
            Block.table(
                header,
                body,
                caption=caption,
                meta={"chart": True},
            )
        )


def _points(ref: Any) -> dict[int, str]:
    """idx -> cached text of a chart data reference (c:cat, c:val, c:xVal, c:yVal)."""
    if ref is None:
        return {}
    out: dict[int, str] = {}
    for point in ref.iterfind(f".//{_C}pt"):
        value = point.find(f"{_C}v")
        try:
            out[int(point.get("idx") or 0)] = (value.text or "").strip() if value is not None else ""
        except ValueError:
            continue
    return out


def _number(text: str) -> str:
    """A cached chart number without float noise ("2.0" -> "2", "0.30000000000000004" -> "0.3")."""
    try:
        value = float(text)
    except ValueError:
        return text
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return f"{value:.15g}"


def _bullet(paragraph: Any, default: bool) -> tuple[bool, str | None, int]:
    """(is a list item, auto-number scheme or None, start number) from the paragraph's own properties."""
    ppr = paragraph._p.pPr
    if ppr is not None:
        if ppr.find(_BU_NONE) is not None:
            return False, None, 1
        auto = ppr.find(_BU_AUTO)
        if auto is not None:
            return True, auto.get("type") or "arabicPeriod", int(auto.get("startAt") or 1)
        if ppr.find(_BU_CHAR) is not None:
            return True, None, 1
    return default, None, 1


def _notes_text(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    if frame is None:
        return ""
    lines = [" ".join(p.text.split()) for p in frame.paragraphs]
    return "\n".join(line for line in lines if line)


def parse_pptx(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a presentation (decrypting it in memory when a password is given) into blocks."""
    from pptx import Presentation
    from pptx.exc import PythonPptxError

    stream = open_ooxml(path, password, settings)
    blocks: list[Block] = []
    first_title: str | None = None
    with stream, corrupt_on_error(path, "the presentation"):
        try:
            presentation = Presentation(stream)
        except PythonPptxError as exc:
            raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"not a readable presentation: {exc}") from exc
        count = 0
        for number, slide in enumerate(presentation.slides, start=1):
            count = number
            reader = _SlideReader(number)
            blocks.extend(reader.read(slide))
            first_title = first_title or reader.title
        core_title = (presentation.core_properties.title or "").strip() or None
    return ParsedDocument(
        path=str(path),
        file_type="pptx",
        blocks=blocks,
        title=core_title or first_title,
        page_count=count or None,
    )
