"""A .docx table as a rectangular grid: merged cells, ragged rows, header rows, nested tables.

Why a module of its own: ``w:tbl`` stores a sparse, irregular grid (``gridSpan``,
``vMerge``, ``gridBefore``/``gridAfter``, rows wrapped in content controls, tables inside
cells); turning it into the regular header/rows shape the chunker expects is a job
separate from walking paragraphs.
"""

from __future__ import annotations

from lxml import etree

from indexing.parsing.docx_context import DocContext
from indexing.parsing.docx_runs import Para, collect
from indexing.parsing.docx_xml import (
    W_CUSTOMXML,
    W_P,
    W_PPR,
    W_SDT,
    W_SDTCONTENT,
    W_TBL,
    W_TC,
    W_TCPR,
    W_TR,
    W_TRPR,
    W_VAL,
    one_line,
    to_int,
    toggle,
    wtag,
)
from officeqa.domain import Block, BlockType


def table_blocks(tbl: etree._Element, doc: DocContext) -> list[Block]:
    """The table block of ``tbl`` followed by the tables nested in its cells (a 1x1 table reads as a paragraph)."""
    nested: list[Block] = []
    rows: list[list[str]] = []
    header_flags: list[bool] = []
    above: dict[int, str] = {}
    page = doc.page
    for tr in _children(tbl, W_TR):
        trpr = tr.find(W_TRPR)
        before = after = 0
        is_header = False
        if trpr is not None:
            gb, ga = trpr.find(wtag("gridBefore")), trpr.find(wtag("gridAfter"))
            before = (to_int(gb.get(W_VAL)) or 0) if gb is not None else 0
            after = (to_int(ga.get(W_VAL)) or 0) if ga is not None else 0
            is_header = bool(toggle(trpr.find(wtag("tblHeader"))))
        row = [""] * before
        for tc in _children(tr, W_TC):
            span, vmerge = 1, None
            tcpr = tc.find(W_TCPR)
            if tcpr is not None:
                gs = tcpr.find(wtag("gridSpan"))
                span = max(1, (to_int(gs.get(W_VAL)) or 1) if gs is not None else 1)
                vm = tcpr.find(wtag("vMerge"))
                vmerge = (vm.get(W_VAL) or "continue") if vm is not None else None
            col = len(row)
            text = above.get(col, "") if vmerge == "continue" else _cell_text(tc, nested, doc)
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
    table = Block.table(header, body, page=page)
    return [table, *nested]


def _cell_text(tc: etree._Element, nested: list[Block], doc: DocContext) -> str:
    """A cell's paragraphs joined by spaces (one table row stays one line); nested tables go to ``nested``."""
    parts: list[str] = []
    style = doc.styles.resolve(None)

    def visit(container: etree._Element) -> None:
        for child in container:
            tag = child.tag
            if tag == W_P:
                ppr = child.find(W_PPR)
                pstyle = ppr.find(wtag("pStyle")) if ppr is not None else None
                para_style = doc.styles.resolve(pstyle.get(W_VAL)) if pstyle is not None else style
                para = Para()
                collect(child, para, para_style, doc)
                text = one_line(para.text)
                if text:
                    parts.append(text)
                for box in para.boxes:
                    visit(box)
            elif tag == W_TBL:
                for block in table_blocks(child, doc):
                    if block.type is BlockType.TABLE:
                        block.meta["nested"] = True
                    nested.append(block)
            elif tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML):
                visit(child)

    visit(tc)
    return " ".join(parts)


def _children(el: etree._Element, tag: str) -> list[etree._Element]:
    """Direct children with ``tag``, looking through sdt/customXml wrappers (rows and cells may sit in them)."""
    found: list[etree._Element] = []
    for child in el:
        if child.tag == tag:
            found.append(child)
        elif child.tag in (W_SDT, W_SDTCONTENT, W_CUSTOMXML):
            found.extend(_children(child, tag))
    return found
