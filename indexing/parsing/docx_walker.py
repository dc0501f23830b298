"""Walks one .docx story (the body, a header, a footer) and turns its paragraphs into typed blocks.

Why a module of its own: this is the one place that decides what a paragraph *is*
(heading by style, outline level, wording or looks; list item; caption; TOC line;
plain paragraph) and keeps document order, list grouping and caption hand-off straight.
Reading runs, styles, numbering and table grids is delegated to the ``docx_*`` modules.
"""

from __future__ import annotations

from lxml import etree

from indexing.parsing.docx_context import DocContext
from indexing.parsing.docx_runs import Para, collect
from indexing.parsing.docx_styles import ResolvedStyle, looks_level
from indexing.parsing.docx_tables import table_blocks
from indexing.parsing.docx_xml import (
    MC_ALT,
    MC_CHOICE,
    W_CUSTOMXML,
    W_P,
    W_PPR,
    W_SDT,
    W_SDTCONTENT,
    W_TBL,
    W_VAL,
    one_line,
    to_int,
    toggle,
    wtag,
)
from indexing.parsing.headings import clause_prefix, heading_level, is_heading_candidate
from officeqa.domain import Block, BlockRole, BlockType


class Walker:
    """Walks one story (body, a header, a footnote) and appends blocks in document order."""

    def __init__(self, doc: DocContext, role: BlockRole = BlockRole.BODY) -> None:
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
        """The blocks of every paragraph and table under ``container``, in document order."""
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
                self._emit_many(table_blocks(child, self.doc))
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
            pstyle = ppr.find(wtag("pStyle"))
            style_id = pstyle.get(W_VAL) if pstyle is not None else None
            num_pr = ppr.find(wtag("numPr"))
            if num_pr is not None:
                num = num_pr.find(wtag("numId"))
                lvl = num_pr.find(wtag("ilvl"))
                num_id = num.get(W_VAL) if num is not None else None
                ilvl = to_int(lvl.get(W_VAL)) if lvl is not None else None
            out = ppr.find(wtag("outlineLvl"))
            outline = to_int(out.get(W_VAL)) if out is not None else None
            if not doc.rendered_breaks and toggle(ppr.find(wtag("pageBreakBefore"))):
                doc.new_page()
        style = doc.styles.resolve(style_id)
        para = Para()
        collect(p, para, style, doc)
        if ppr is not None and not doc.rendered_breaks:
            sect = ppr.find(wtag("sectPr"))
            if sect is not None:
                kind = sect.find(wtag("type"))
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
        para: Para,
        style: ResolvedStyle,
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
            self._emit(Block(type=BlockType.HEADING, text=one_line(full), level=level, page=page))
            return
        worded = heading_level(full)
        if worded is not None:
            self._emit(Block(type=BlockType.HEADING, text=one_line(full), level=worded, page=page))
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
            looks = looks_level(
                text_runs=para.text_runs,
                bold_runs=para.bold_runs,
                max_size=para.max_size,
                default_size=doc.styles.default_size,
                styled_depth=doc.styled_depth,
            )
            if looks is not None:
                self._emit(
                    Block(
                        type=BlockType.HEADING,
                        text=one_line(text),
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


def _is_toc_control(sdt: etree._Element) -> bool:
    """A content control holding Word's generated table of contents."""
    gallery = sdt.find(f"{wtag('sdtPr')}/{wtag('docPartObj')}/{wtag('docPartGallery')}")
    return gallery is not None and (gallery.get(W_VAL) or "").lower() == "table of contents"
