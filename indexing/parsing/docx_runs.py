"""The content of one .docx paragraph: its runs' text, looks, page and anchored text boxes.

Why a module of its own: body paragraphs, table cells and header/footer lines all read
their runs the same way (revisions, fields, equations, breaks, comment anchors), and the
run-level facts gathered here (bold runs, largest font) feed heading detection; one reader
keeps those rules identical everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from indexing.parsing.docx_context import DocContext
from indexing.parsing.docx_styles import ResolvedStyle
from indexing.parsing.docx_xml import (
    M_OMATH,
    M_OMATHPARA,
    M_T,
    MC_ALT,
    MC_CHOICE,
    W_CUSTOMXML,
    W_HYPERLINK,
    W_PPR,
    W_R,
    W_RPR,
    W_SDT,
    W_SDTCONTENT,
    W_T,
    W_TXBX,
    W_VAL,
    to_int,
    toggle,
    wtag,
)

# Containers whose children are read as if they sat in the parent.
_TRANSPARENT = {
    W_SDT,
    W_SDTCONTENT,
    W_CUSTOMXML,
    wtag("hyperlink"),
    wtag("ins"),
    wtag("smartTag"),
    wtag("fldSimple"),
    wtag("moveTo"),
    wtag("bdo"),
    wtag("dir"),
}
# Never read: deleted revisions, paragraph properties, sdt properties, field codes.
_SKIP = {
    wtag("del"),
    wtag("moveFrom"),
    W_PPR,
    W_RPR,
    wtag("sdtPr"),
    wtag("sdtEndPr"),
    wtag("proofErr"),
    wtag("bookmarkStart"),
    wtag("bookmarkEnd"),
}


@dataclass(slots=True)
class Para:
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


def math_text(el: etree._Element) -> str:
    """The text of an OMML equation (its ``m:t`` pieces in order)."""
    return "".join(t.text or "" for t in el.iter(M_T))


def text_boxes(el: etree._Element) -> list[etree._Element]:
    """Text-box contents under a drawing, skipping the VML fallback copy of the same box."""
    if el.tag == MC_ALT:
        choice = el.find(MC_CHOICE)
        return list(choice.iter(W_TXBX)) if choice is not None else []
    return list(el.iter(W_TXBX))


def collect(el: etree._Element, para: Para, style: ResolvedStyle, doc: DocContext) -> None:
    """Read the runs under paragraph (or container) ``el`` into ``para``."""
    for child in el:
        tag = child.tag
        if tag == W_R:
            _run(child, para, style, doc)
        elif tag == W_HYPERLINK:
            if (child.get(wtag("anchor")) or "").startswith("_Toc"):
                para.toc_link = True
            collect(child, para, style, doc)
        elif tag in _TRANSPARENT:
            collect(child, para, style, doc)
        elif tag in _SKIP or not isinstance(tag, str):
            continue
        elif tag in (M_OMATH, M_OMATHPARA):
            _add(para, math_text(child), doc)
        elif tag == wtag("commentRangeStart"):
            doc.open_comment(child.get(wtag("id")) or "")
        elif tag == wtag("commentRangeEnd"):
            doc.close_comment(child.get(wtag("id")) or "")
        elif tag == MC_ALT:
            choice = child.find(MC_CHOICE)
            if choice is not None:
                collect(choice, para, style, doc)


def _add(para: Para, text: str, doc: DocContext) -> None:
    if not text:
        return
    if para.first_page is None and text.strip():
        para.first_page = doc.page
    para.parts.append(text)
    doc.capture(text)


def _run(run: etree._Element, para: Para, style: ResolvedStyle, doc: DocContext) -> None:
    rpr = run.find(W_RPR)
    bold: bool | None = None
    size: int | None = None
    if rpr is not None:
        bold = toggle(rpr.find(wtag("b")))
        sz = rpr.find(wtag("sz"))
        size = to_int(sz.get(W_VAL)) if sz is not None else None
        rstyle = rpr.find(wtag("rStyle"))
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
            _add(para, text, doc)
        elif tag == wtag("tab"):
            _add(para, "\t", doc)
        elif tag in (wtag("br"), wtag("cr")):
            if child.get(wtag("type")) == "page":
                if not doc.rendered_breaks:
                    doc.new_page()
            else:
                _add(para, "\n", doc)
        elif tag == wtag("lastRenderedPageBreak"):
            if doc.rendered_breaks:
                doc.new_page()
        elif tag == wtag("noBreakHyphen"):
            _add(para, "-", doc)
        elif tag in (wtag("drawing"), wtag("pict"), MC_ALT):
            para.boxes.extend(text_boxes(child))
        elif tag in (M_OMATH, M_OMATHPARA):
            _add(para, math_text(child), doc)
    if has_text:
        para.text_runs += 1
        if bold if bold is not None else style.bold:
            para.bold_runs += 1
        para.max_size = max(para.max_size, size or style.size or doc.styles.default_size)
