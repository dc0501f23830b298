"""Word (.docx) -> blocks, by walking the package's XML directly with lxml.

Why not python-docx's object model: ``Document.paragraphs``/``Document.tables`` skip
everything inside ``w:sdt`` content controls (whole tables disappear), know nothing of
numbering labels, and building proxy objects for an 800-page manual costs seconds. The
body is walked once in document order instead; python-docx stays a test dependency
(the unit tests build their files with it).

What becomes what:

- heading: a paragraph style named "Heading N"/"标题 N"/"Title", an outline level
  (``w:outlineLvl`` on the paragraph or its style chain), a line whose wording is a
  heading ("第一章 …", "第三条 …", "一、…", "1.1 …", see :mod:`indexing.parsing.headings`),
  or a short line written all bold or in a large font (WPS and hand-made documents
  style headings by looks). A look-promoted heading sits one level below the deepest
  styled heading seen so far (level 1 for a large font, 2 for bold, in a document
  without styled headings). A long paragraph that opens with "第十一条" yields a
  heading "第十一条" followed by the whole paragraph.
- list: consecutive numbered/bulleted paragraphs (``w:numPr`` or a "List …" style);
  numbered items carry their computed label ("1.", "a)", "第一条").
- table: rows of cells; a cell spanning columns (``gridSpan``) or continuing a vertical
  merge (``vMerge``) repeats the merged value, ragged rows are padded, rows marked
  ``w:tblHeader`` (else the first row) are the header. A table nested in a cell becomes
  its own table block right after the outer table (``meta["nested"]``), so its header
  survives; the outer cell keeps only its own paragraphs. A 1x1 table (a framed box) is
  read as paragraphs.
- headers/footers: paragraph blocks with role header/footer, de-duplicated across
  sections (headers first, footers last); bare page numbers are dropped.
- comments: paragraph blocks with role comment right after the block where the commented
  range ends, ``meta`` naming the author and the commented text.
- footnotes/endnotes: paragraph blocks with role footnote at the end.
- text boxes: their paragraphs follow the paragraph that anchors them.
- OMML equations: their text (``m:t``) inline.
- page: counted from ``w:lastRenderedPageBreak`` markers when Word left them, else from
  explicit page breaks; None when the file has neither (pagination is unknown).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from indexing.parsing.headings import clause_prefix, heading_level, is_heading_candidate
from indexing.parsing.ooxml import (
    SAFE_PARSER,
    corrupt_on_error,
    main_part,
    open_ooxml,
    read_core_title,
    read_xml,
    relationships,
)
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument, render_table_text
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"


def _w(tag: str) -> str:
    return f"{{{W_NS}}}{tag}"


W_VAL = _w("val")
W_P, W_TBL, W_TR, W_TC, W_R, W_T = _w("p"), _w("tbl"), _w("tr"), _w("tc"), _w("r"), _w("t")
W_PPR, W_RPR, W_TCPR, W_TRPR = _w("pPr"), _w("rPr"), _w("tcPr"), _w("trPr")
W_SDT, W_SDTCONTENT, W_CUSTOMXML = _w("sdt"), _w("sdtContent"), _w("customXml")
W_TXBX = _w("txbxContent")
W_HYPERLINK = _w("hyperlink")
M_OMATH, M_OMATHPARA, M_T = f"{{{M_NS}}}oMath", f"{{{M_NS}}}oMathPara", f"{{{M_NS}}}t"
MC_ALT, MC_CHOICE = f"{{{MC_NS}}}AlternateContent", f"{{{MC_NS}}}Choice"

# Containers whose children are read as if they sat in the parent.
_TRANSPARENT = {
    W_SDT,
    W_SDTCONTENT,
    W_CUSTOMXML,
    _w("hyperlink"),
    _w("ins"),
    _w("smartTag"),
    _w("fldSimple"),
    _w("moveTo"),
    _w("bdo"),
    _w("dir"),
}
# Never read: deleted revisions, paragraph properties, sdt properties, field codes.
_SKIP = {
    _w("del"),
    _w("moveFrom"),
    W_PPR,
    W_RPR,
    _w("sdtPr"),
    _w("sdtEndPr"),
    _w("proofErr"),
    _w("bookmarkStart"),
    _w("bookmarkEnd"),
}

_HEADING_STYLE = re.compile(r"^(?:heading|标题|titre|überschrift)\s*(\d)$", re.IGNORECASE)
_TITLE_STYLE = re.compile(r"^(?:title|标题|主标题)$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^(?:list|列表)", re.IGNORECASE)
_TOC_STYLE = re.compile(r"^(?:toc|目录)\s*\d|^(?:toc heading|table of contents|目录)$", re.IGNORECASE)
_CAPTION_STYLE = re.compile(r"^(?:caption|题注)$", re.IGNORECASE)
_PAGE_NUMBER = re.compile(r"^[\W_]*(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?[\W_]*$|^第\s*\d+\s*页", re.IGNORECASE)
_TRUE = {"1", "true", "on"}


def _on(el: etree._Element | None) -> bool | None:
    """A WordprocessingML toggle (``<w:b/>``, ``<w:b w:val="0"/>``): True/False, None when absent."""
    if el is None:
        return None
    val = el.get(W_VAL)
    return val is None or val.lower() in _TRUE


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# ---------------------------------------------------------------- styles


@dataclass(slots=True)
class _Style:
    name: str = ""
    based_on: str | None = None
    outline: int | None = None
    num_id: str | None = None
    num_ilvl: int = 0
    bold: bool | None = None
    size: int | None = None


@dataclass(slots=True)
class _ResolvedStyle:
    heading: int | None
    is_list: bool
    is_toc: bool
    is_caption: bool
    num_id: str | None
    num_ilvl: int
    bold: bool
    size: int | None


class _Styles:
    """styles.xml resolved through ``w:basedOn``; missing entries (WPS files) are tolerated."""

    def __init__(self, root: etree._Element | None) -> None:
        self._styles: dict[str, _Style] = {}
        self._resolved: dict[str | None, _ResolvedStyle] = {}
        self.default_size: int = 21 if root is None else 22
        self.default_para: str | None = None
        if root is None:
            return
        size = root.find(f"{_w('docDefaults')}/{_w('rPrDefault')}/{W_RPR}/{_w('sz')}")
        if size is not None and _int(size.get(W_VAL)):
            self.default_size = _int(size.get(W_VAL)) or self.default_size
        for el in root.iter(_w("style")):
            style_id = el.get(_w("styleId"))
            if not style_id:
                continue
            style = _Style()
            name = el.find(_w("name"))
            style.name = (name.get(W_VAL) if name is not None else style_id) or style_id
            based = el.find(_w("basedOn"))
            style.based_on = based.get(W_VAL) if based is not None else None
            ppr = el.find(W_PPR)
            if ppr is not None:
                outline = ppr.find(_w("outlineLvl"))
                style.outline = _int(outline.get(W_VAL)) if outline is not None else None
                num_pr = ppr.find(_w("numPr"))
                if num_pr is not None:
                    num = num_pr.find(_w("numId"))
                    ilvl = num_pr.find(_w("ilvl"))
                    style.num_id = num.get(W_VAL) if num is not None else None
                    style.num_ilvl = (_int(ilvl.get(W_VAL)) or 0) if ilvl is not None else 0
            rpr = el.find(W_RPR)
            if rpr is not None:
                style.bold = _on(rpr.find(_w("b")))
                sz = rpr.find(_w("sz"))
                style.size = _int(sz.get(W_VAL)) if sz is not None else None
            self._styles[style_id] = style
            if el.get(_w("type")) == "paragraph" and el.get(_w("default")) in _TRUE:
                self.default_para = style_id
                if style.size:
                    self.default_size = style.size

    def resolve(self, style_id: str | None) -> _ResolvedStyle:
        style_id = style_id or self.default_para
        cached = self._resolved.get(style_id)
        if cached is not None:
            return cached
        heading: int | None = None
        is_list = is_toc = is_caption = False
        num_id: str | None = None
        num_ilvl = 0
        bold: bool | None = None
        size: int | None = None
        outline: int | None = None
        seen: set[str] = set()
        current = style_id
        first = True
        while current and current not in seen:
            seen.add(current)
            style = self._styles.get(current)
            name = style.name if style else current
            if first or heading is None:
                match = _HEADING_STYLE.match(name.strip()) or _HEADING_STYLE.match(current)
                if match and heading is None:
                    heading = max(1, int(match.group(1)))
                elif first and _TITLE_STYLE.match(name.strip()):
                    heading = 1
            if first:
                is_list = bool(_LIST_STYLE.match(name.strip()))
                is_toc = bool(_TOC_STYLE.match(name.strip()) or _TOC_STYLE.match(current))
                is_caption = bool(_CAPTION_STYLE.match(name.strip()))
            first = False
            if style is None:
                break
            outline = style.outline if outline is None else outline
            if num_id is None and style.num_id is not None:
                num_id, num_ilvl = style.num_id, style.num_ilvl
            bold = style.bold if bold is None else bold
            size = style.size if size is None else size
            current = style.based_on
        if heading is None and outline is not None and 0 <= outline <= 8:
            heading = outline + 1
        if is_toc:
            heading = None
        resolved = _ResolvedStyle(heading, is_list, is_toc, is_caption, num_id, num_ilvl, bool(bold), size)
        self._resolved[style_id] = resolved
        return resolved

    def run_style(self, style_id: str) -> tuple[bool | None, int | None]:
        """Bold and size of a character style (one level of basedOn is enough in practice)."""
        style = self._styles.get(style_id)
        if style is None:
            return None, None
        parent = self._styles.get(style.based_on or "")
        bold = style.bold if style.bold is not None else (parent.bold if parent else None)
        size = style.size if style.size is not None else (parent.size if parent else None)
        return bold, size


# ---------------------------------------------------------------- numbering

_CN_DIGITS = "零一二三四五六七八九"


def _chinese_number(n: int) -> str:
    if n <= 0 or n >= 100:
        return str(n)
    tens, ones = divmod(n, 10)
    if tens == 0:
        return _CN_DIGITS[ones]
    return ("" if tens == 1 else _CN_DIGITS[tens]) + "十" + (_CN_DIGITS[ones] if ones else "")


def _roman(n: int) -> str:
    if n <= 0 or n >= 4000:
        return str(n)
    out = []
    for value, letters in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def _letters(n: int) -> str:
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _format_number(n: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter"):
        text = _letters(n)
        return text.upper() if fmt == "upperLetter" else text
    if fmt in ("lowerRoman", "upperRoman"):
        text = _roman(n)
        return text.upper() if fmt == "upperRoman" else text
    if fmt in (
        "chineseCounting",
        "chineseCountingThousand",
        "ideographTraditional",
        "japaneseCounting",
        "taiwaneseCounting",
        "chineseLegalSimplified",
    ):
        return _chinese_number(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt in ("decimalEnclosedCircle", "decimalEnclosedCircleChinese") and 1 <= n <= 20:
        return chr(0x2460 + n - 1)
    return str(n)


@dataclass(slots=True)
class _Level:
    fmt: str = "decimal"
    text: str = "%1."
    start: int = 1


class _Numbering:
    """numbering.xml: computes the label ("1.2", "(a)", "第三条") of each numbered paragraph."""

    def __init__(self, root: etree._Element | None) -> None:
        self._abstract: dict[str, dict[int, _Level]] = {}
        self._num_to_abstract: dict[str, str] = {}
        self._counters: dict[str, list[int]] = {}
        if root is None:
            return
        for abstract in root.iter(_w("abstractNum")):
            levels: dict[int, _Level] = {}
            for lvl in abstract.iter(_w("lvl")):
                level = _Level()
                fmt = lvl.find(_w("numFmt"))
                text = lvl.find(_w("lvlText"))
                start = lvl.find(_w("start"))
                level.fmt = (fmt.get(W_VAL) if fmt is not None else None) or "decimal"
                level.text = (text.get(W_VAL) if text is not None else None) or ""
                level.start = (_int(start.get(W_VAL)) if start is not None else None) or 1
                levels[_int(lvl.get(_w("ilvl"))) or 0] = level
            self._abstract[abstract.get(_w("abstractNumId")) or ""] = levels
        for num in root.iter(_w("num")):
            ref = num.find(_w("abstractNumId"))
            if ref is not None:
                self._num_to_abstract[num.get(_w("numId")) or ""] = ref.get(W_VAL) or ""

    def known(self, num_id: str) -> bool:
        return num_id in self._num_to_abstract

    def list_key(self, num_id: str) -> str | None:
        """Paragraphs sharing a key belong to one list (Word continues numbering per abstract definition)."""
        return self._num_to_abstract.get(num_id)

    def label(self, num_id: str, ilvl: int) -> str | None:
        """Advance the list's counter and return the item's label; None for bullets."""
        abstract_id = self._num_to_abstract.get(num_id)
        levels = self._abstract.get(abstract_id or "")
        if not levels:
            return None
        counters = self._counters.setdefault(abstract_id or "", [0] * 9)
        ilvl = min(max(ilvl, 0), 8)
        if counters[ilvl] == 0:
            counters[ilvl] = (levels.get(ilvl) or _Level()).start - 1
        counters[ilvl] += 1
        for deeper in range(ilvl + 1, 9):
            counters[deeper] = 0
        level = levels.get(ilvl)
        if level is None or level.fmt in ("bullet", "none") or not level.text:
            return None

        def substitute(match: re.Match[str]) -> str:
            index = int(match.group(1)) - 1
            ref = levels.get(index) or _Level()
            value = counters[index] if counters[index] else ref.start
            return _format_number(value, ref.fmt)

        return re.sub(r"%([1-9])", substitute, level.text).strip() or None


# ---------------------------------------------------------------- paragraph content


@dataclass(slots=True)
class _Para:
    """What one paragraph's runs hold."""

    parts: list[str] = field(default_factory=list)
    text_runs: int = 0
    bold_runs: int = 0
    max_size: int = 0
    first_page: int | None = None
    boxes: list[etree._Element] = field(default_factory=list)
    toc_link: bool = False  # a hyperlink to a "_Toc…" bookmark: a table-of-contents line

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _math_text(el: etree._Element) -> str:
    return "".join(t.text or "" for t in el.iter(M_T))


class _Walker:
    """Walks one story (body, a header, a footnote) and appends blocks in document order."""

    def __init__(self, doc: _DocContext, role: BlockRole = BlockRole.BODY) -> None:
        self.doc = doc
        self.role = role
        self.blocks: list[Block] = []
        self._list_items: list[str] = []
        self._list_levels: list[int] = []
        self._list_page: int | None = None
        self._list_key: str | None = None
        self._in_toc = False

    # -- stories
    def walk(self, container: etree._Element) -> list[Block]:
        self._walk_children(container)
        self._flush_list()
        return self.blocks

    def _walk_children(self, container: etree._Element) -> None:
        for child in container:
            tag = child.tag
            if tag == W_P:
                self._paragraph(child)
            elif tag == W_TBL:
                self._flush_list()
                self._emit_many(self._table(child))
            elif tag == W_SDT and _is_toc_control(child):
                saved, self._in_toc = self._in_toc, True
                self._walk_children(child)
                self._in_toc = saved
            elif tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML):
                self._walk_children(child)
            elif tag == MC_ALT:
                choice = child.find(MC_CHOICE)
                if choice is not None:
                    self._walk_children(choice)

    def _emit(self, block: Block) -> None:
        if block.type is not BlockType.LIST:
            self._flush_list()
        if block.type is BlockType.TABLE and self.doc.pending_caption and not block.meta.get("nested"):
            block.caption, self.doc.pending_caption = self.doc.pending_caption, None
        elif block.type is BlockType.HEADING:
            self.doc.pending_caption = None
        block.role = self.role if block.role is BlockRole.BODY else block.role
        self.blocks.append(block)
        self.blocks.extend(self.doc.take_comments())

    def _emit_many(self, blocks: list[Block]) -> None:
        for block in blocks:
            self._emit(block)

    def _flush_list(self) -> None:
        if not self._list_items:
            return
        items, levels = self._list_items, self._list_levels
        self._list_items, self._list_levels = [], []
        block = Block(type=BlockType.LIST, text="\n".join(items), items=items, page=self._list_page, role=self.role)
        if any(levels):
            block.meta["levels"] = levels
        self.blocks.append(block)
        self.blocks.extend(self.doc.take_comments())

    # -- paragraphs
    def _paragraph(self, p: etree._Element) -> None:
        doc = self.doc
        ppr = p.find(W_PPR)
        style_id = None
        num_id: str | None = None
        ilvl: int | None = None
        outline: int | None = None
        if ppr is not None:
            pstyle = ppr.find(_w("pStyle"))
            style_id = pstyle.get(W_VAL) if pstyle is not None else None
            num_pr = ppr.find(_w("numPr"))
            if num_pr is not None:
                num = num_pr.find(_w("numId"))
                lvl = num_pr.find(_w("ilvl"))
                num_id = num.get(W_VAL) if num is not None else None
                ilvl = _int(lvl.get(W_VAL)) if lvl is not None else None
            out = ppr.find(_w("outlineLvl"))
            outline = _int(out.get(W_VAL)) if out is not None else None
            if not doc.rendered_breaks and _on(ppr.find(_w("pageBreakBefore"))):
                doc.new_page()
        style = doc.styles.resolve(style_id)
        para = _Para()
        self._collect(p, para, style)
        if ppr is not None and not doc.rendered_breaks:
            sect = ppr.find(_w("sectPr"))
            if sect is not None:
                kind = sect.find(_w("type"))
                if kind is None or kind.get(W_VAL) != "continuous":
                    doc.pending_section_break = True
        text = para.text.replace("\r", "").strip()
        page = para.first_page if para.first_page is not None else doc.page
        if text:
            self._classify(text, para, style, num_id, ilvl, outline, page)
        for box in para.boxes:
            self._walk_children(box)
        if doc.pending_section_break:
            doc.pending_section_break = False
            doc.new_page()

    def _classify(
        self,
        text: str,
        para: _Para,
        style: _ResolvedStyle,
        num_id: str | None,
        ilvl: int | None,
        outline: int | None,
        page: int | None,
    ) -> None:
        doc = self.doc
        if num_id is None and style.num_id is not None:
            num_id, ilvl = style.num_id, (style.num_ilvl if ilvl is None else ilvl)
        numbered = num_id not in (None, "0") and doc.numbering.known(num_id or "")
        label = doc.numbering.label(num_id or "", ilvl or 0) if numbered else None
        full = f"{label} {text}" if label else text
        body = self.role is BlockRole.BODY
        toc = style.is_toc or self._in_toc or para.toc_link
        if toc or not body:
            # Table-of-contents lines look exactly like headings; they must not open sections.
            self._emit(Block(type=BlockType.PARAGRAPH, text=full, page=page, meta={"toc": True} if toc else {}))
            return
        if style.is_caption:
            self._caption(full, page)
            return
        level = style.heading
        if outline is not None:
            level = outline + 1 if 0 <= outline <= 8 else None
        if level is not None:
            doc.styled_depth = max(doc.styled_depth, level)
            self._emit(Block(type=BlockType.HEADING, text=_one_line(full), level=level, page=page))
            return
        worded = heading_level(full)
        if worded is not None:
            self._emit(Block(type=BlockType.HEADING, text=_one_line(full), level=worded, page=page))
            return
        if numbered or style.is_list:
            key = doc.numbering.list_key(num_id or "") if numbered else None
            if self._list_items and key != self._list_key:
                self._flush_list()  # a different list starts right after this one
            if not self._list_items:
                self._list_page = page
                self._list_key = key
            self._list_items.append(full)
            self._list_levels.append(ilvl or 0)
            return
        if is_heading_candidate(text):
            looks = self._looks_level(para)
            if looks is not None:
                self._emit(
                    Block(
                        type=BlockType.HEADING,
                        text=_one_line(text),
                        level=looks,
                        page=page,
                        meta={"promoted": "format"},
                    )
                )
                return
        prefix = clause_prefix(text)
        if prefix and prefix != text:
            self._emit(
                Block(
                    type=BlockType.HEADING,
                    text=prefix,
                    level=heading_level(prefix) or 3,
                    page=page,
                    meta={"promoted": "clause"},
                )
            )
        self._emit(Block(type=BlockType.PARAGRAPH, text=text, page=page))

    def _caption(self, text: str, page: int | None) -> None:
        """A caption paragraph names the table right before it, or the next one (kept as a paragraph too)."""
        previous = self.blocks[-1] if self.blocks else None
        if previous is not None and previous.type is BlockType.TABLE and previous.caption is None:
            previous.caption = text
        else:
            self.doc.pending_caption = text
        self._emit(Block(type=BlockType.PARAGRAPH, text=text, page=page, meta={"caption": True}))

    def _looks_level(self, para: _Para) -> int | None:
        """Level of a short line promoted for its looks (all bold, or a clearly larger font)."""
        doc = self.doc
        large = para.max_size >= max(28, int(doc.styles.default_size * 1.3))
        bold = para.text_runs > 0 and para.bold_runs == para.text_runs
        if not (bold or large):
            return None
        if doc.styled_depth:
            return min(doc.styled_depth + 1, 9)
        return 1 if large else 2

    def _collect(self, el: etree._Element, para: _Para, style: _ResolvedStyle) -> None:
        for child in el:
            tag = child.tag
            if tag == W_R:
                self._run(child, para, style)
            elif tag == W_HYPERLINK:
                if (child.get(_w("anchor")) or "").startswith("_Toc"):
                    para.toc_link = True
                self._collect(child, para, style)
            elif tag in _TRANSPARENT:
                self._collect(child, para, style)
            elif tag in _SKIP or not isinstance(tag, str):
                continue
            elif tag in (M_OMATH, M_OMATHPARA):
                self._add(para, _math_text(child))
            elif tag == _w("commentRangeStart"):
                self.doc.open_comment(child.get(_w("id")) or "")
            elif tag == _w("commentRangeEnd"):
                self.doc.close_comment(child.get(_w("id")) or "")
            elif tag == MC_ALT:
                choice = child.find(MC_CHOICE)
                if choice is not None:
                    self._collect(choice, para, style)

    def _add(self, para: _Para, text: str) -> None:
        if not text:
            return
        if para.first_page is None and text.strip():
            para.first_page = self.doc.page
        para.parts.append(text)
        self.doc.capture(text)

    def _run(self, run: etree._Element, para: _Para, style: _ResolvedStyle) -> None:
        doc = self.doc
        rpr = run.find(W_RPR)
        bold: bool | None = None
        size: int | None = None
        if rpr is not None:
            bold = _on(rpr.find(_w("b")))
            sz = rpr.find(_w("sz"))
            size = _int(sz.get(W_VAL)) if sz is not None else None
            rstyle = rpr.find(_w("rStyle"))
            if rstyle is not None and (bold is None or size is None):
                style_bold, style_size = doc.styles.run_style(rstyle.get(W_VAL) or "")
                bold = style_bold if bold is None else bold
                size = style_size if size is None else size
        has_text = False
        for child in run:
            tag = child.tag
            if tag == W_T:
                text = child.text or ""
                if text.strip():
                    has_text = True
                self._add(para, text)
            elif tag == _w("tab"):
                self._add(para, "\t")
            elif tag in (_w("br"), _w("cr")):
                if child.get(_w("type")) == "page":
                    if not doc.rendered_breaks:
                        doc.new_page()
                else:
                    self._add(para, "\n")
            elif tag == _w("lastRenderedPageBreak"):
                if doc.rendered_breaks:
                    doc.new_page()
            elif tag == _w("noBreakHyphen"):
                self._add(para, "-")
            elif tag in (_w("drawing"), _w("pict"), MC_ALT):
                para.boxes.extend(_text_boxes(child))
            elif tag in (M_OMATH, M_OMATHPARA):
                self._add(para, _math_text(child))
        if has_text:
            para.text_runs += 1
            if bold if bold is not None else style.bold:
                para.bold_runs += 1
            para.max_size = max(para.max_size, size or style.size or doc.styles.default_size)

    # -- tables
    def _table(self, tbl: etree._Element) -> list[Block]:
        nested: list[Block] = []
        rows: list[list[str]] = []
        header_flags: list[bool] = []
        above: dict[int, str] = {}
        page = self.doc.page
        for tr in _children(tbl, W_TR):
            trpr = tr.find(W_TRPR)
            before = after = 0
            is_header = False
            if trpr is not None:
                gb, ga = trpr.find(_w("gridBefore")), trpr.find(_w("gridAfter"))
                before = (_int(gb.get(W_VAL)) or 0) if gb is not None else 0
                after = (_int(ga.get(W_VAL)) or 0) if ga is not None else 0
                is_header = bool(_on(trpr.find(_w("tblHeader"))))
            row = [""] * before
            for tc in _children(tr, W_TC):
                span, vmerge = 1, None
                tcpr = tc.find(W_TCPR)
                if tcpr is not None:
                    gs = tcpr.find(_w("gridSpan"))
                    span = max(1, (_int(gs.get(W_VAL)) or 1) if gs is not None else 1)
                    vm = tcpr.find(_w("vMerge"))
                    vmerge = (vm.get(W_VAL) or "continue") if vm is not None else None
                col = len(row)
                text = above.get(col, "") if vmerge == "continue" else self._cell_text(tc, nested)
                for offset in range(span):
                    above[col + offset] = text
                row.extend([text] * span)
            row.extend([""] * after)
            if any(cell for cell in row):
                rows.append(row)
                header_flags.append(is_header)
        if not rows:
            return nested
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        if width == 1 and len(rows) == 1:
            return [Block(type=BlockType.PARAGRAPH, text=rows[0][0], page=page), *nested]
        n_header = 0
        while n_header < len(rows) and header_flags[n_header]:
            n_header += 1
        n_header = max(n_header, 1)
        header, body = rows[:n_header], rows[n_header:]
        table = Block(
            type=BlockType.TABLE, text=render_table_text(header, body), header_rows=header, rows=body, page=page
        )
        return [table, *nested]

    def _cell_text(self, tc: etree._Element, nested: list[Block]) -> str:
        """A cell's paragraphs joined by spaces (one table row stays one line); nested tables go to ``nested``."""
        parts: list[str] = []
        style = self.doc.styles.resolve(None)

        def visit(container: etree._Element) -> None:
            for child in container:
                tag = child.tag
                if tag == W_P:
                    ppr = child.find(W_PPR)
                    pstyle = ppr.find(_w("pStyle")) if ppr is not None else None
                    para_style = self.doc.styles.resolve(pstyle.get(W_VAL)) if pstyle is not None else style
                    para = _Para()
                    self._collect(child, para, para_style)
                    text = " ".join(para.text.split())
                    if text:
                        parts.append(text)
                    for box in para.boxes:
                        visit(box)
                elif tag == W_TBL:
                    for block in self._table(child):
                        if block.type is BlockType.TABLE:
                            block.meta["nested"] = True
                        nested.append(block)
                elif tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML):
                    visit(child)

        visit(tc)
        return " ".join(parts)


def _is_toc_control(sdt: etree._Element) -> bool:
    """A content control holding Word's generated table of contents."""
    gallery = sdt.find(f"{_w('sdtPr')}/{_w('docPartObj')}/{_w('docPartGallery')}")
    return gallery is not None and (gallery.get(W_VAL) or "").lower() == "table of contents"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _children(el: etree._Element, tag: str) -> list[etree._Element]:
    """Direct children with ``tag``, looking through sdt/customXml wrappers (rows and cells may sit in them)."""
    found: list[etree._Element] = []
    for child in el:
        if child.tag == tag:
            found.append(child)
        elif child.tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML):
            found.extend(_children(child, tag))
    return found


def _text_boxes(el: etree._Element) -> list[etree._Element]:
    """Text-box contents under a drawing, skipping the VML fallback copy of the same box."""
    if el.tag == MC_ALT:
        choice = el.find(MC_CHOICE)
        return list(choice.iter(W_TXBX)) if choice is not None else []
    return list(el.iter(W_TXBX))


# ---------------------------------------------------------------- document context


class _DocContext:
    """State shared by every story of one document: styles, numbering, pages, comments."""

    def __init__(
        self, styles: _Styles, numbering: _Numbering, comments: dict[str, Block], rendered_breaks: bool, paginated: bool
    ) -> None:
        self.styles = styles
        self.numbering = numbering
        self.comments = comments
        self.rendered_breaks = rendered_breaks
        self.page: int | None = 1 if paginated else None
        self.pending_section_break = False
        self.pending_caption: str | None = None
        self.styled_depth = 0
        self._capturing: dict[str, list[str]] = {}
        self._ready: list[Block] = []
        self.emitted: set[str] = set()

    def new_page(self) -> None:
        if self.page is not None:
            self.page += 1

    def open_comment(self, comment_id: str) -> None:
        if comment_id in self.comments:
            self._capturing[comment_id] = []

    def close_comment(self, comment_id: str) -> None:
        captured = self._capturing.pop(comment_id, None)
        block = self.comments.get(comment_id)
        if block is None or comment_id in self.emitted:
            return
        if captured is not None:
            anchor = " ".join("".join(captured).split())
            if anchor:
                block.meta["commented_text"] = anchor
        self.emitted.add(comment_id)
        block.page = self.page
        self._ready.append(block)

    def capture(self, text: str) -> None:
        if self._capturing:
            for parts in self._capturing.values():
                parts.append(text)

    def take_comments(self) -> list[Block]:
        ready, self._ready = self._ready, []
        return ready


# ---------------------------------------------------------------- package


def _comments(archive: zipfile.ZipFile, part: str | None) -> dict[str, Block]:
    root = read_xml(archive, part) if part else None
    if root is None:
        return {}
    out: dict[str, Block] = {}
    for comment in root.iter(_w("comment")):
        lines = [" ".join("".join(t.text or "" for t in p.iter(W_T)).split()) for p in comment.iter(W_P)]
        text = "\n".join(line for line in lines if line)
        if not text:
            continue
        meta = {"author": comment.get(_w("author")) or "", "comment_id": comment.get(_w("id")) or ""}
        out[comment.get(_w("id")) or ""] = Block(type=BlockType.PARAGRAPH, text=text, role=BlockRole.COMMENT, meta=meta)
    return out


def _notes(archive: zipfile.ZipFile, part: str | None, tag: str) -> list[Block]:
    root = read_xml(archive, part) if part else None
    if root is None:
        return []
    out: list[Block] = []
    for note in root.iter(_w(tag)):
        if note.get(_w("type")) in ("separator", "continuationSeparator", "continuationNotice"):
            continue
        lines = [" ".join("".join(t.text or "" for t in p.iter(W_T)).split()) for p in note.iter(W_P)]
        text = "\n".join(line for line in lines if line)
        if text:
            out.append(
                Block(
                    type=BlockType.PARAGRAPH,
                    text=text,
                    role=BlockRole.FOOTNOTE,
                    meta={"note": tag, "note_id": note.get(_w("id")) or ""},
                )
            )
    return out


def parse_docx(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a .docx (or a password-protected one, given the password) into blocks."""
    stream = open_ooxml(path, password)
    with stream, corrupt_on_error(path, "the Word document"), zipfile.ZipFile(stream) as archive:
        main = main_part(archive, "word/document.xml")
        try:
            data = archive.read(main)
        except KeyError as exc:
            raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"no main document part {main!r}") from exc
        root = etree.fromstring(data, parser=SAFE_PARSER)
        body = root.find(_w("body"))
        if body is None:
            raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, "no w:body (Strict OOXML or not a Word file)")
        rels = relationships(archive, main)
        parts: dict[str, list[str]] = {}
        for kind, target, _rid in rels:
            parts.setdefault(kind, []).append(target)

        def first(kind: str) -> str | None:
            return (parts.get(kind) or [None])[0]

        styles = _Styles(read_xml(archive, first("styles")) if first("styles") else None)
        numbering = _Numbering(read_xml(archive, first("numbering")) if first("numbering") else None)
        comments = _comments(archive, first("comments"))
        rendered = b"lastRenderedPageBreak" in data
        paginated = rendered or b'w:type="page"' in data or b"pageBreakBefore" in data
        doc = _DocContext(styles, numbering, comments, rendered, paginated)

        blocks = _Walker(doc).walk(body)
        page_count = doc.page
        headers = _story_blocks(archive, parts.get("header", []), doc, BlockRole.HEADER)
        footers = _story_blocks(archive, parts.get("footer", []), doc, BlockRole.FOOTER)
        leftover = [block for cid, block in comments.items() if cid not in doc.emitted]
        notes = _notes(archive, first("footnotes"), "footnote") + _notes(archive, first("endnotes"), "endnote")
        title = read_core_title(archive)
    blocks = headers + blocks + leftover + notes + footers
    if title is None:
        title = next((b.text for b in blocks if b.type is BlockType.HEADING and b.role is BlockRole.BODY), None)
    return ParsedDocument(path=str(path), file_type="docx", blocks=blocks, title=title, page_count=page_count)


def _story_blocks(archive: zipfile.ZipFile, part_names: list[str], doc: _DocContext, role: BlockRole) -> list[Block]:
    """Header or footer blocks of every section, each distinct text once; bare page numbers dropped."""
    seen: set[str] = set()
    out: list[Block] = []
    for name in part_names:
        root = read_xml(archive, name)
        if root is None:
            continue
        saved_page = doc.page
        doc.page = None
        for block in _Walker(doc, role).walk(root):
            key = block.text.strip()
            if not key or key in seen or _PAGE_NUMBER.match(key):
                continue
            seen.add(key)
            out.append(block)
        doc.page = saved_page
    return out
