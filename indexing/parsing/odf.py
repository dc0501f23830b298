"""OpenDocument text (.odt) and presentations (.odp) -> blocks, by walking ``content.xml`` with lxml.

Why lxml and not odfpy: ODF is a documented XML vocabulary in a zip, like OOXML, and the
walk needs only a dozen element names; odfpy (last release 2020) parses the same XML into
its own Python DOM first -- several times slower (``bench/bench_formats.py``) for the same
text, with no structure it knows that the walk does not. Spreadsheets (.ods) go through
python-calamine (:mod:`indexing.parsing.xls`).

What becomes what:

- ``text:h`` -> heading at its ``text:outline-level``; ``text:p`` -> paragraph (promoted to a
  heading by its wording, as everywhere); ``text:list`` -> one list block (nested items flattened);
- ``table:table`` -> table (``table:table-header-rows`` are the header, else the first row;
  repeated and spanned cells repeat their value, covered cells take the spanning cell's);
- text boxes (``draw:frame``/``draw:text-box``) are read in place; notes (``text:note``) become
  footnote blocks at the end; the table of contents is skipped (it repeats the headings);
- ``text:soft-page-break`` (written by the office suite that laid the document out) counts pages;
- in a presentation each ``draw:page`` is a slide (``slide`` = its 1-based number): the title
  frame is a level-1 heading, then the other frames in order, tables as tables, speaker notes
  (``presentation:notes``) a paragraph with role notes;
- what every slide shows but no slide holds is read once, at the first slide that shows it:
  the text a master page (``styles.xml``) adds outside its placeholders -- a footer typed on
  the master (role footer), a company line -- and the footer and header texts declared in
  ``content.xml`` (``presentation:footer-decl``, used by a slide's ``use-footer-name``), role
  footer. A deck whose only text is its master's footer is therefore not empty.

A password-protected ODF file (its manifest declares ``encryption-data``) is refused as
``encrypted``: ODF's own encryption (PBKDF2 + AES/Blowfish per part) is read by no library here.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

from lxml import etree

from indexing.parsing.headings import heading_level
from indexing.parsing.ooxml import SAFE_PARSER
from indexing.parsing.sniff import ODF_MIMETYPES
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["check_odf", "parse_odp", "parse_odt"]

_NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "manifest": "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
}


def _q(name: str) -> str:
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_H, _P, _LIST, _ITEM, _HEADER_ITEM = _q("text:h"), _q("text:p"), _q("text:list"), _q("text:list-item"), _q(
    "text:list-header"
)
_S, _TAB, _BR, _NOTE, _SOFT_BREAK = (_q(n) for n in ("text:s", "text:tab", "text:line-break", "text:note",
                                                     "text:soft-page-break"))  # fmt: skip
_NOTE_BODY, _SECTION, _TOC = _q("text:note-body"), _q("text:section"), _q("text:table-of-content")
_TABLE, _ROW, _CELL, _COVERED = _q("table:table"), _q("table:table-row"), _q("table:table-cell"), _q(
    "table:covered-table-cell"
)
_HEADER_ROWS = _q("table:table-header-rows")
_FRAME, _TEXT_BOX, _GROUP, _CUSTOM = _q("draw:frame"), _q("draw:text-box"), _q("draw:g"), _q("draw:custom-shape")
_PAGE, _NOTES = _q("draw:page"), _q("presentation:notes")
_CLASS = _q("presentation:class")
_PLACEHOLDER = _q("presentation:placeholder")
_MASTER_PAGE, _MASTER_NAME, _PAGE_MASTER = _q("style:master-page"), _q("style:name"), _q("draw:master-page-name")
_FOOTER_DECL, _HEADER_DECL = _q("presentation:footer-decl"), _q("presentation:header-decl")
_DECL_NAME = _q("presentation:name")
_USE_FOOTER, _USE_HEADER = _q("presentation:use-footer-name"), _q("presentation:use-header-name")
_ANNOTATION = _q("office:annotation")
# Cap on a cell's repeat count (spreadsheets repeat empty cells to column 1024).
_MAX_REPEAT = 256
# Frames whose text is a field (slide number, date) or a thumbnail; footer and header frames are read, as role footer.
_SKIP_CLASSES = {"page-number", "date-time", "page"}
_FURNITURE_CLASSES = {"footer", "header"}
_MASTER_TEXT_CLASSES = {None, "footer", "header"}
# What a slide shows from elsewhere: (role, a master-page frame to walk or a declared footer/header text).
_Shared = tuple[BlockRole, "etree._Element | str"]


def check_odf(path: Path, kind: str) -> None:
    """Refuse a damaged (corrupt), foreign (corrupt) or password-protected (encrypted) ODF package."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            mimetype = archive.read("mimetype").decode("ascii", "replace").strip() if "mimetype" in names else ""
            manifest = archive.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in names else b""
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"not a valid OpenDocument file: {exc}") from exc
    if ODF_MIMETYPES.get(mimetype) != kind:
        raise UnreadableDocument(
            str(path), RefusalKind.CORRUPT, f"not an OpenDocument {kind} file (mimetype {mimetype or 'missing'!r})"
        )
    if b"encryption-data" in manifest:
        raise UnreadableDocument(
            str(path),
            RefusalKind.ENCRYPTED,
            "password-protected OpenDocument file; open it in LibreOffice and save it without a password",
        )


def _read_parts(path: Path, kind: str) -> tuple[etree._Element, str | None]:
    """The parsed content.xml and the dc:title of meta.xml."""
    check_odf(path, kind)
    try:
        with zipfile.ZipFile(path) as archive:
            content = etree.fromstring(archive.read("content.xml"), parser=SAFE_PARSER)
            title = None
            if "meta.xml" in archive.namelist():
                node = etree.fromstring(archive.read("meta.xml"), parser=SAFE_PARSER).find(f".//{_q('dc:title')}")
                title = (node.text or "").strip() or None if node is not None else None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, etree.XMLSyntaxError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read content.xml: {exc}") from exc
    return content, title


def _read_styles(path: Path) -> etree._Element | None:
    """The parsed styles.xml (master pages), or None when absent or unreadable (its text is a bonus)."""
    try:
        with zipfile.ZipFile(path) as archive:
            if "styles.xml" not in archive.namelist():
                return None
            return etree.fromstring(archive.read("styles.xml"), parser=SAFE_PARSER)
    except (zipfile.BadZipFile, OSError, EOFError, KeyError, etree.XMLSyntaxError):
        return None


def _master_frames(styles: etree._Element | None) -> dict[str, list[etree._Element]]:
    """master page name -> its frames that hold typed text: free text boxes, footers and headers.

    Title and outline frames of a master hold the prompt ("Click to edit Master title style"),
    placeholder or not (LibreOffice's pptx import leaves the flag off), so they are never read.
    """
    if styles is None:
        return {}
    masters: dict[str, list[etree._Element]] = {}
    for master in styles.iter(_MASTER_PAGE):
        masters[master.get(_MASTER_NAME, "")] = [
            frame
            for frame in master
            if frame.tag in (_FRAME, _GROUP, _CUSTOM)
            and frame.get(_PLACEHOLDER) != "true"
            and frame.get(_CLASS) in _MASTER_TEXT_CLASSES
        ]
    return masters


def _declarations(body: etree._Element) -> dict[tuple[str, str], str]:
    """(attribute a slide uses it by, name) -> text of the presentation's footer and header declarations."""
    out: dict[tuple[str, str], str] = {}
    for tag, use in ((_FOOTER_DECL, _USE_FOOTER), (_HEADER_DECL, _USE_HEADER)):
        for decl in body.iter(tag):
            text = "".join(decl.itertext()).strip()
            if text:
                out[(use, decl.get(_DECL_NAME, ""))] = text
    return out


class _Walker:
    """Turns ODF body elements into blocks, counting soft page breaks."""

    def __init__(self, *, paginated: bool) -> None:
        self.blocks: list[Block] = []
        self.notes: list[Block] = []
        self.page: int | None = 1 if paginated else None
        self.slide: int | None = None

    def _block(self, **fields: object) -> Block:
        return Block(page=self.page, slide=self.slide, **fields)  # type: ignore[arg-type]

    # ------------------------------------------------------------ inline text

    def inline(self, el: etree._Element, frames: list[etree._Element] | None = None) -> str:
        """A paragraph's text; notes go to ``self.notes``, frames anchored in it to ``frames``."""
        parts = [el.text or ""]
        for child in el:
            tag = child.tag
            if tag == _S:
                parts.append(" " * min(int(child.get(_q("text:c"), "1") or 1), 100))
            elif tag == _TAB:
                parts.append("\t")
            elif tag == _BR:
                parts.append("\n")
            elif tag == _NOTE:
                body = child.find(_NOTE_BODY)
                text = " ".join(self.inline(p) for p in body.iter(_P)) if body is not None else ""
                if text.strip():
                    self.notes.append(self._block(type=BlockType.PARAGRAPH, text=text, role=BlockRole.FOOTNOTE))
            elif tag == _SOFT_BREAK:
                self.page_break()
            elif tag == _ANNOTATION:
                pass
            elif tag in (_FRAME, _CUSTOM, _GROUP):
                if frames is not None:
                    frames.append(child)
            elif isinstance(tag, str):
                parts.append(self.inline(child, frames))
            parts.append(child.tail or "")
        return "".join(parts)

    def page_break(self) -> None:
        if self.page is not None:
            self.page += 1

    # ------------------------------------------------------------ block level

    def walk(self, el: etree._Element, depth: int = 0) -> None:
        for child in el:
            tag = child.tag
            if tag == _H:
                self.heading(child)
            elif tag == _P:
                self.paragraph(child)
            elif tag == _LIST:
                self.list(child)
            elif tag == _TABLE:
                self.table(child)
            elif tag == _SOFT_BREAK:
                self.page_break()
            elif tag == _TOC:
                continue
            elif tag in (_FRAME, _TEXT_BOX, _GROUP, _CUSTOM, _SECTION) and depth < 50:
                self.walk(child, depth + 1)
            elif isinstance(tag, str) and tag.startswith(f"{{{_NS['text']}}}") and depth < 50:
                self.walk(child, depth + 1)  # text:index-body of other indexes, text:changed-region ...

    def _frames(self, frames: list[etree._Element]) -> None:
        for frame in frames:
            self.walk(frame, 1)

    def heading(self, el: etree._Element) -> None:
        frames: list[etree._Element] = []
        text = self.inline(el, frames).strip()
        if text:
            level = int(el.get(_q("text:outline-level"), "1") or 1)
            self.blocks.append(self._block(type=BlockType.HEADING, text=text, level=max(1, min(level, 9))))
        self._frames(frames)

    def paragraph(self, el: etree._Element) -> None:
        frames: list[etree._Element] = []
        text = self.inline(el, frames).strip()
        if text:
            level = heading_level(text)
            kind = BlockType.HEADING if level is not None else BlockType.PARAGRAPH
            self.blocks.append(self._block(type=kind, text=text, level=level))
        self._frames(frames)

    def _items(self, el: etree._Element, depth: int, items: list[str], levels: list[int]) -> None:
        for item in el:
            if item.tag not in (_ITEM, _HEADER_ITEM):
                continue
            for child in item:
                if child.tag in (_P, _H):
                    text = self.inline(child).strip()
                    if text:
                        items.append(text)
                        levels.append(depth)
                elif child.tag == _LIST and depth < 20:
                    self._items(child, depth + 1, items, levels)
                elif child.tag == _TABLE:
                    self.table(child)

    def list(self, el: etree._Element) -> None:
        items: list[str] = []
        levels: list[int] = []
        self._items(el, 0, items, levels)
        if items:
            block = self._block(type=BlockType.LIST, text="\n".join(items), items=items)
            if any(levels):
                block.meta["levels"] = levels
            self.blocks.append(block)

    def table(self, el: etree._Element) -> None:
        header: list[list[str]] = []
        body: list[list[str]] = []
        spans: dict[int, tuple[str, int]] = {}  # column -> (text, rows still covered)
        for row in el.iter(_ROW):
            if _nearest_table(row) is not el:
                continue
            in_header = row.getparent() is not None and row.getparent().tag == _HEADER_ROWS
            cells = self._row_cells(row, spans)
            repeat = min(int(row.get(_q("table:number-rows-repeated"), "1") or 1), _MAX_REPEAT)
            if any(cells):
                (header if in_header else body).extend([cells] * repeat)
        rows = header + body
        if not rows:
            return
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        keep = [c for c in range(width) if any(r[c] for r in rows)]
        rows = [[r[c] for c in keep] for r in rows]
        n_head = len(header) or 1
        if len(rows) == 1 or len(keep) == 1:
            for row in rows:
                text = " ".join(cell for cell in row if cell)
                if text:
                    self.blocks.append(self._block(type=BlockType.PARAGRAPH, text=text))
            return
        self.blocks.append(Block.table(rows[:n_head], rows[n_head:], page=self.page, slide=self.slide))

    def _row_cells(self, row: etree._Element, spans: dict[int, tuple[str, int]]) -> list[str]:
        """One row's cell texts; a covered cell repeats the cell spanning it (from the left or from above)."""
        cells: list[str] = []
        starting: dict[int, tuple[str, int]] = {}
        for cell in row:
            if cell.tag not in (_CELL, _COVERED):
                continue
            repeat = min(int(cell.get(_q("table:number-columns-repeated"), "1") or 1), _MAX_REPEAT)
            for _ in range(repeat):
                col = len(cells)
                if cell.tag == _COVERED:
                    if col in spans:
                        text, left = spans.pop(col)
                        if left > 1:
                            starting[col] = (text, left - 1)
                    else:
                        text = cells[-1] if cells else ""
                    cells.append(text)
                    continue
                spans.pop(col, None)
                text = "\n".join(t for t in (self.inline(p).strip() for p in cell.iter(_P, _H)) if t)
                across = min(int(cell.get(_q("table:number-columns-spanned"), "1") or 1), _MAX_REPEAT)
                down = int(cell.get(_q("table:number-rows-spanned"), "1") or 1)
                if down > 1:
                    for offset in range(across):
                        starting[col + offset] = (text, down - 1)
                cells.append(text)
        spans.update(starting)
        return cells

    # ------------------------------------------------------------ presentations

    def _walk_as(self, frame: etree._Element, role: BlockRole | None, meta: dict[str, str] | None = None) -> None:
        """Walk one frame; the blocks it gives get ``role`` (when not None) and ``meta``."""
        start = len(self.blocks)
        self.walk(frame, 1)
        for block in self.blocks[start:]:
            if role is not None:
                block.role = role
            block.meta.update(meta or {})

    def slide_page(self, page: etree._Element, number: int, shared: Sequence[_Shared] = ()) -> None:
        """One slide; ``shared`` is the master-page frames and declared footers read once, at this slide."""
        self.slide = number
        frames = [child for child in page if child.tag in (_FRAME, _GROUP, _CUSTOM)]
        titles = [f for f in frames if f.get(_CLASS) == "title"]
        for frame in titles:
            text = " ".join(self.inline(p).strip() for p in frame.iter(_P)).strip()
            if text:
                self.blocks.append(self._block(type=BlockType.HEADING, text=text, level=1))
        for frame in frames:
            if frame in titles or frame.get(_CLASS) in _SKIP_CLASSES:
                continue
            self._walk_as(frame, BlockRole.FOOTER if frame.get(_CLASS) in _FURNITURE_CLASSES else None)
        for role, item in shared:
            if isinstance(item, str):
                self.blocks.append(self._block(type=BlockType.PARAGRAPH, text=item, role=role))
            else:
                self._walk_as(item, role, {"master_page": "true"})
        notes = page.find(_NOTES)
        if notes is not None:
            text = "\n".join(
                self.inline(p).strip()
                for frame in notes.iter(_FRAME)
                if frame.get(_CLASS) == "notes"
                for p in frame.iter(_P)
            ).strip()
            if text:
                self.blocks.append(self._block(type=BlockType.PARAGRAPH, text=text, role=BlockRole.NOTES))


def _nearest_table(el: etree._Element) -> etree._Element | None:
    parent = el.getparent()
    while parent is not None and parent.tag != _TABLE:
        parent = parent.getparent()
    return parent


def parse_odt(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an OpenDocument text file into blocks."""
    del password, settings  # ODF encryption is refused in check_odf; no format knobs
    content, title = _read_parts(path, "odt")
    body = content.find(f"{_q('office:body')}/{_q('office:text')}")
    if body is None:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "content.xml has no office:text body")
    walker = _Walker(paginated=any(True for _ in body.iter(_SOFT_BREAK)))
    walker.walk(body)
    blocks = walker.blocks + walker.notes
    title = title or next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    page_count = walker.page if walker.page is not None else None
    return ParsedDocument(path=str(path), file_type="odt", blocks=blocks, title=title, page_count=page_count)


def parse_odp(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an OpenDocument presentation into blocks, slide by slide."""
    del password, settings
    content, title = _read_parts(path, "odp")
    body = content.find(f"{_q('office:body')}/{_q('office:presentation')}")
    if body is None:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "content.xml has no office:presentation body")
    walker = _Walker(paginated=False)
    pages = body.findall(_PAGE)
    masters = _master_frames(_read_styles(path))
    declarations = _declarations(body)
    seen: set[object] = set()
    for number, page in enumerate(pages, start=1):
        shared: list[_Shared] = []
        master = page.get(_PAGE_MASTER, "")
        if master not in seen:
            seen.add(master)
            for frame in masters.get(master, []):
                furniture = frame.get(_CLASS) in _FURNITURE_CLASSES
                shared.append((BlockRole.FOOTER if furniture else BlockRole.BODY, frame))
        for use in (_USE_FOOTER, _USE_HEADER):
            text = declarations.get((use, page.get(use, "")))
            if text and text not in seen:
                seen.add(text)
                shared.append((BlockRole.FOOTER, text))
        walker.slide_page(page, number, shared)
    blocks = walker.blocks + walker.notes
    title = title or next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    return ParsedDocument(path=str(path), file_type="odp", blocks=blocks, title=title, page_count=len(pages) or None)
