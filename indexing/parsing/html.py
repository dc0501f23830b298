"""HTML pages: headings, paragraphs, lists, code and tables, boilerplate dropped.

Why BeautifulSoup over lxml: lxml parses broken real-world pages (unclosed tags, GB2312
fragments without <html>) quickly, and BeautifulSoup gives a tree that is simple to walk
in document order. The 650 KB Chinese Wikipedia page parses in well under a second.

Encoding: the bytes are decoded by :func:`decode_bytes` with the page's own declaration
(``<meta charset>``, ``http-equiv`` content type or the XML declaration) as a hint; a
page without one goes through detection (``EDGE_zh_gb2312_fragment.html`` -> GB18030).

Boilerplate: script/style/noscript/template, nav/footer/aside, forms and widgets, and
elements whose class or id is a known navigation-chrome token (navbox, toc, edit links,
MediaWiki's head/panel/footer; whole tokens only, so ``vector-toc-available`` on <body>
does not take the page with it) are removed before walking. Tables: header from ``<thead>`` or leading rows of
``<th>`` cells, else the first row; colspan/rowspan are filled so every row has the
same columns. A table used for layout (one column, or holding another table) is read
as a container, not as data. A paragraph worded as a heading ("第一章 总则", "1.1 范围")
is promoted, as in every other format.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from bs4 import BeautifulSoup, Comment, NavigableString, Tag, XMLParsedAsHTMLWarning
from bs4.element import CData, Declaration, Doctype, ProcessingInstruction

from indexing.parsing.encoding import decode_bytes
from indexing.parsing.headings import heading_level
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["html_to_blocks", "parse_html", "sniff_declared_charset"]

_DROP_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "footer",
    "aside",
    "form",
    "button",
    "input",
    "select",
    "textarea",
    "label",
    "svg",
    "iframe",
    "object",
    "canvas",
    "head",
    "link",
    "meta",
)
# Class or id tokens (matched whole, case-insensitive) of navigation chrome; MediaWiki's and common site names.
_BOILERPLATE_TOKENS = frozenset(
    (
        *("navbox", "navbar", "navigation", "mw-navigation", "mw-editsection", "mw-jump-link", "toc", "catlinks"),
        *("printfooter", "noprint", "sidebar", "breadcrumb", "breadcrumbs", "cookie-banner", "site-footer"),
        *("site-header", "skip-link", "mw-head", "mw-panel", "vector-header", "vector-page-toolbar", "mw-footer"),
        *("vector-column-start", "vector-main-menu-container", "vector-sticky-header", "mw-indicators"),
        *("vector-dropdown", "mw-portlet-lang", "sitenotice", "mw-dismissable-notice", "mw-cite-backlink"),
    )
)
_NEVER_DROP = frozenset(("html", "body", "main", "article"))
_BLOCK_TAGS = frozenset(
    (
        *("p", "div", "section", "article", "main", "header", "body", "html", "blockquote", "center"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "pre", "table"),
        *("tr", "td", "th", "thead", "tbody", "tfoot", "caption", "figure", "figcaption", "address", "hr", "br"),
    )
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SKIP_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, CData)
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef"
_CJK_NEWLINE = re.compile(f"(?<=[{_CJK}])[ \\t\\r\\f]*\\n\\s*(?=[{_CJK}])")
_WS = re.compile(r"[ \t\n\r\f]+")
_META_CHARSET = re.compile(rb"<meta[^>]{0,300}?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]{2,40})", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"<\?xml[^>]{0,200}?encoding\s*=\s*[\"']([A-Za-z0-9_.:-]{2,40})", re.IGNORECASE)
# Deeper nesting than this is read as flat text (a guard against pathological pages).
_MAX_DEPTH = 300
_SNIFF_BYTES = 4096


def sniff_declared_charset(data: bytes) -> str | None:
    """The charset a page declares in its first 4 KB (meta charset, http-equiv, XML declaration)."""
    head = data[:_SNIFF_BYTES]
    match = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    return match.group(1).decode("ascii") if match else None


def _collapse(text: str) -> str:
    """HTML whitespace rules: runs collapse to one space; a source line break between CJK characters vanishes."""
    return _WS.sub(" ", _CJK_NEWLINE.sub("", text))


def _text(node: Tag, *, depth: int = 0) -> str:
    """Visible text of an element: inline runs collapsed, <br> and block boundaries as line breaks."""
    parts: list[str] = []
    for child in node.children:
        if isinstance(child, NavigableString):
            if not isinstance(child, _SKIP_STRINGS):
                parts.append(_collapse(str(child)))
        elif isinstance(child, Tag):
            name = child.name
            if name == "br":
                parts.append("\n")
            elif name == "pre":
                parts.append("\n" + child.get_text() + "\n")
            elif name in _BLOCK_TAGS:
                inner = _text(child, depth=depth + 1) if depth < _MAX_DEPTH else child.get_text(" ")
                parts.append("\n" + inner + "\n")
            elif name == "img":
                continue
            else:
                parts.append(_text(child, depth=depth + 1) if depth < _MAX_DEPTH else child.get_text(" "))
    return "".join(parts)


def _is_boilerplate(tag: Tag) -> bool:
    if tag.name in _DROP_TAGS:
        return True
    if tag.get("role") in ("navigation", "banner", "contentinfo", "search"):
        return True
    if tag.get("aria-hidden") == "true" or tag.has_attr("hidden"):
        return True
    if tag.name in _NEVER_DROP:
        return False
    classes = tag.get("class") or []
    tokens = {c.lower() for c in classes} if isinstance(classes, list) else {str(classes).lower()}
    ident = str(tag.get("id") or "").lower()
    return bool(ident in _BOILERPLATE_TOKENS or tokens & _BOILERPLATE_TOKENS)


def _remove_boilerplate(root: Tag) -> None:
    doomed = [tag for tag in root.find_all(True) if _is_boilerplate(tag)]
    for tag in doomed:
        if not tag.decomposed:
            tag.decompose()
    for comment in root.find_all(string=lambda s: isinstance(s, _SKIP_STRINGS)):
        comment.extract()


def _own_rows(table: Tag) -> list[tuple[Tag, bool]]:
    """The table's own rows (not those of nested tables), each with 'is in thead'."""
    rows: list[tuple[Tag, bool]] = []
    for child in table.find_all(["thead", "tbody", "tfoot", "tr"], recursive=False):
        if child.name == "tr":
            rows.append((child, False))
        else:
            rows.extend((tr, child.name == "thead") for tr in child.find_all("tr", recursive=False))
    return rows


def _span(cell: Tag, name: str) -> int:
    try:
        return max(1, min(int(str(cell.get(name, "1")).strip() or 1), 1000))
    except ValueError:
        return 1


def _fill_spanned(row: list[str], pending: dict[int, tuple[str, int]]) -> None:
    """Append the cells that rowspans from rows above cover at the row's current end."""
    while len(row) in pending:
        col = len(row)
        text, left = pending[col]
        row.append(text)
        if left <= 1:
            del pending[col]
        else:
            pending[col] = (text, left - 1)


def table_grid(table: Tag) -> tuple[list[list[str]], list[list[str]]]:
    """(header_rows, rows) of a data table, colspan/rowspan filled with the spanning cell's text."""
    grid: list[list[str]] = []
    is_head: list[bool] = []
    pending: dict[int, tuple[str, int]] = {}  # column -> (text, rows still covered)
    for tr, in_thead in _own_rows(table):
        cells = tr.find_all(["td", "th"], recursive=False)
        row: list[str] = []
        all_th = bool(cells)
        for cell in cells:
            _fill_spanned(row, pending)
            text = _text(cell).strip()
            all_th = all_th and cell.name == "th"
            colspan, rowspan = _span(cell, "colspan"), _span(cell, "rowspan")
            for _ in range(colspan):
                if rowspan > 1:
                    pending[len(row)] = (text, rowspan - 1)
                row.append(text)
        _fill_spanned(row, pending)
        if any(c.strip() for c in row):
            grid.append(row)
            is_head.append(in_thead or all_th)
    width = max((len(r) for r in grid), default=0)
    grid = [r + [""] * (width - len(r)) for r in grid]
    keep = [c for c in range(width) if any(r[c].strip() for r in grid)]
    if len(keep) < width:  # spacer columns of layout-minded pages (SEC filings) carry nothing
        grid = [[r[c] for c in keep] for r in grid]
    n_head = 0
    while n_head < len(grid) and is_head[n_head]:
        n_head += 1
    if n_head == 0 and len(grid) > 1:
        n_head = 1  # no marked header: the first row is the header
    return grid[:n_head], grid[n_head:]


def _is_layout_table(table: Tag) -> bool:
    if table.find("table") is not None:
        return True
    rows = _own_rows(table)
    return all(len(tr.find_all(["td", "th"], recursive=False)) <= 1 for tr, _ in rows)


class _Walker:
    """Walks the body in document order; loose inline text gathers into paragraphs."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self._inline: list[str] = []

    def flush(self) -> None:
        text = "".join(self._inline).strip()
        self._inline = []
        if text:
            self.paragraph(text)

    def paragraph(self, text: str) -> None:
        """A paragraph, or a heading when its wording says so ("第一章 总则" in a Word-exported page)."""
        level = heading_level(text)
        if level is not None:
            self.blocks.append(Block(BlockType.HEADING, text=text, level=level, meta={"promoted": "wording"}))
        else:
            self.blocks.append(Block(BlockType.PARAGRAPH, text=text))

    def walk(self, node: Tag, depth: int = 0) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, _SKIP_STRINGS):
                    self._inline.append(_collapse(str(child)))
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name
            if name in _HEADINGS:
                self.flush()
                self.blocks.append(Block(BlockType.HEADING, text=_text(child), level=_HEADINGS[name]))
            elif name == "p" or name in ("dt", "dd", "figcaption", "address", "caption"):
                self.flush()
                self.paragraph(_text(child))
            elif name in ("ul", "ol"):
                self.flush()
                self.list(child)
            elif name == "pre":
                self.flush()
                self.blocks.append(Block(BlockType.CODE, text=child.get_text()))
            elif name == "table":
                self.flush()
                self.table(child, depth)
            elif name == "br":
                self._inline.append("\n")
            elif name in _BLOCK_TAGS:
                self.flush()
                if depth < _MAX_DEPTH:
                    self.walk(child, depth + 1)
                else:
                    self.blocks.append(Block(BlockType.PARAGRAPH, text=child.get_text("\n")))
                self.flush()
            elif name != "img":
                self._inline.append(_text(child))

    def list(self, node: Tag) -> None:
        items: list[str] = []
        for li in node.find_all("li"):
            # the item's own text, without its nested lists (those items come on their own)
            parts: list[str] = []
            for child in li.children:
                if isinstance(child, Tag) and child.name in ("ul", "ol"):
                    continue
                if isinstance(child, NavigableString):
                    if not isinstance(child, _SKIP_STRINGS):
                        parts.append(_collapse(str(child)))
                elif isinstance(child, Tag):
                    parts.append(_text(child))
            text = "".join(parts).strip()
            if text:
                items.append(text)
        if items:
            self.blocks.append(Block(BlockType.LIST, text="\n".join(items), items=items))

    def table(self, table: Tag, depth: int) -> None:
        if _is_layout_table(table):
            for tr, _ in _own_rows(table):
                for cell in tr.find_all(["td", "th"], recursive=False):
                    self.walk(cell, depth + 1)
                    self.flush()
            return
        header, rows = table_grid(table)
        if not header and not rows:
            return
        caption_tag = table.find("caption", recursive=False)
        caption = _text(caption_tag).strip() if caption_tag else None
        self.blocks.append(
            Block.table(
                header,
                rows,
                caption=caption or None,
            )
        )


def html_to_blocks(html: str) -> tuple[list[Block], str | None]:
    """Blocks of an HTML text (uncleaned) and the page title (<title>, else the first <h1>)."""
    with warnings.catch_warnings():
        # XHTML and inline-XBRL pages start with an XML declaration; they are still HTML to read
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "lxml")
    title_tag = soup.find("title")
    title = title_tag.get_text(" ").strip() if title_tag else ""
    _remove_boilerplate(soup)
    walker = _Walker()
    walker.walk(soup.body or soup)
    walker.flush()
    if not title:
        title = next((b.text.strip() for b in walker.blocks if b.type is BlockType.HEADING and b.level == 1), "")
    return walker.blocks, title or None


def parse_html(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an .html/.htm file into blocks, honouring its declared charset."""
    del password, settings  # HTML has neither encryption nor format knobs
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the file: {exc}") from exc
    decoded = decode_bytes(data, declared=sniff_declared_charset(data), source=str(path))
    blocks, title = html_to_blocks(decoded.text)
    return ParsedDocument(path=str(path), file_type="html", blocks=blocks, title=title)
