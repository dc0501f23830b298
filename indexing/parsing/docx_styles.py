"""Paragraph and character styles of a .docx, and the heading levels they imply.

Why a module of its own: whether a paragraph is a heading, a list item, a TOC line or a
caption is decided mostly by its style chain (``w:basedOn``, outline levels, localized
style names), and WPS or hand-made documents mark headings only by looks (all bold, a
large font). Both decisions live here, away from the XML walk that asks for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from indexing.parsing.docx_xml import TRUE_VALUES, W_PPR, W_RPR, W_VAL, to_int, toggle, wtag

_HEADING_STYLE = re.compile(r"^(?:heading|标题|titre|überschrift)\s*(\d)$", re.IGNORECASE)
_TITLE_STYLE = re.compile(r"^(?:title|标题|主标题)$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^(?:list|列表)", re.IGNORECASE)
_TOC_STYLE = re.compile(r"^(?:toc|目录)\s*\d|^(?:toc heading|table of contents|目录)$", re.IGNORECASE)
_CAPTION_STYLE = re.compile(r"^(?:caption|题注)$", re.IGNORECASE)


@dataclass(slots=True)
class _Style:
    """One ``w:style`` entry as written, before ``w:basedOn`` is followed."""

    name: str = ""
    based_on: str | None = None
    outline: int | None = None
    num_id: str | None = None
    num_ilvl: int = 0
    bold: bool | None = None
    size: int | None = None


@dataclass(slots=True)
class ResolvedStyle:
    """What a paragraph style means once its whole ``w:basedOn`` chain is read."""

    heading: int | None
    is_list: bool
    is_toc: bool
    is_caption: bool
    num_id: str | None
    num_ilvl: int
    bold: bool
    size: int | None


class Styles:
    """styles.xml resolved through ``w:basedOn``; missing entries (WPS files) are tolerated."""

    def __init__(self, root: etree._Element | None) -> None:
        self._styles: dict[str, _Style] = {}
        self._resolved: dict[str | None, ResolvedStyle] = {}
        self.default_size: int = 21 if root is None else 22
        self.default_para: str | None = None
        if root is None:
            return
        size = root.find(f"{wtag('docDefaults')}/{wtag('rPrDefault')}/{W_RPR}/{wtag('sz')}")
        if size is not None and to_int(size.get(W_VAL)):
            self.default_size = to_int(size.get(W_VAL)) or self.default_size
        for el in root.iter(wtag("style")):
            style_id = el.get(wtag("styleId"))
            if not style_id:
                continue
            style = _Style()
            name = el.find(wtag("name"))
            style.name = (name.get(W_VAL) if name is not None else style_id) or style_id
            based = el.find(wtag("basedOn"))
            style.based_on = based.get(W_VAL) if based is not None else None
            ppr = el.find(W_PPR)
            if ppr is not None:
                outline = ppr.find(wtag("outlineLvl"))
                style.outline = to_int(outline.get(W_VAL)) if outline is not None else None
                num_pr = ppr.find(wtag("numPr"))
                if num_pr is not None:
                    num = num_pr.find(wtag("numId"))
                    ilvl = num_pr.find(wtag("ilvl"))
                    style.num_id = num.get(W_VAL) if num is not None else None
                    style.num_ilvl = (to_int(ilvl.get(W_VAL)) or 0) if ilvl is not None else 0
            rpr = el.find(W_RPR)
            if rpr is not None:
                style.bold = toggle(rpr.find(wtag("b")))
                sz = rpr.find(wtag("sz"))
                style.size = to_int(sz.get(W_VAL)) if sz is not None else None
            self._styles[style_id] = style
            if el.get(wtag("type")) == "paragraph" and el.get(wtag("default")) in TRUE_VALUES:
                self.default_para = style_id
                if style.size:
                    self.default_size = style.size

    def resolve(self, style_id: str | None) -> ResolvedStyle:
        """The meaning of paragraph style ``style_id`` (None: the default paragraph style), cached."""
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
        resolved = ResolvedStyle(heading, is_list, is_toc, is_caption, num_id, num_ilvl, bool(bold), size)
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


def looks_level(*, text_runs: int, bold_runs: int, max_size: int, default_size: int, styled_depth: int) -> int | None:
    """Level of a short line promoted for its looks (all bold, or a clearly larger font); None when plain.

    A look-promoted heading sits one level below the deepest styled heading seen so far
    (``styled_depth``); without styled headings a large font gives level 1 and bold level 2.
    """
    large = max_size >= max(28, int(default_size * 1.3))
    bold = text_runs > 0 and bold_runs == text_runs
    if not (bold or large):
        return None
    if styled_depth:
        return min(styled_depth + 1, 9)
    return 1 if large else 2
