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

Where each job lives (this module only opens the package and assembles the result):

- :mod:`indexing.parsing.docx_xml`: tag names and the small value readers all share.
- :mod:`indexing.parsing.docx_styles`: styles, outline levels, heading detection by looks.
- :mod:`indexing.parsing.docx_numbering`: list numbering and computed labels.
- :mod:`indexing.parsing.docx_context`: page counter, list counters and comment capture shared by all stories.
- :mod:`indexing.parsing.docx_runs`: the text and looks of one paragraph's runs.
- :mod:`indexing.parsing.docx_tables`: table grid, merged cells, nested tables.
- :mod:`indexing.parsing.docx_walker`: one story's paragraphs -> headings, lists, captions, paragraphs.
- :mod:`indexing.parsing.docx_parts`: headers/footers, comments, footnotes and endnotes.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

from indexing.parsing.docx_context import DocContext
from indexing.parsing.docx_numbering import Numbering
from indexing.parsing.docx_parts import comment_blocks, note_blocks, story_blocks
from indexing.parsing.docx_styles import Styles
from indexing.parsing.docx_walker import Walker
from indexing.parsing.docx_xml import wtag
from indexing.parsing.ooxml import (
    SAFE_PARSER,
    corrupt_on_error,
    main_part,
    open_ooxml,
    read_core_title,
    read_xml,
    relationships,
)
from officeqa.domain import BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_docx"]


def parse_docx(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a .docx (or a password-protected one, given the password) into blocks."""
    stream = open_ooxml(path, password, settings)
    with stream, corrupt_on_error(path, "the Word document"), zipfile.ZipFile(stream) as archive:
        main = main_part(archive, "word/document.xml")
        try:
            data = archive.read(main)
        except KeyError as exc:
            raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"no main document part {main!r}") from exc
        root = etree.fromstring(data, parser=SAFE_PARSER)
        body = root.find(wtag("body"))
        if body is None:
            raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, "no w:body (Strict OOXML or not a Word file)")
        rels = relationships(archive, main)
        parts: dict[str, list[str]] = {}
        for kind, target, _rid in rels:
            parts.setdefault(kind, []).append(target)

        def first(kind: str) -> str | None:
            return (parts.get(kind) or [None])[0]

        styles = Styles(read_xml(archive, first("styles")) if first("styles") else None)
        numbering = Numbering(read_xml(archive, first("numbering")) if first("numbering") else None)
        comments = comment_blocks(archive, first("comments"))
        rendered = b"lastRenderedPageBreak" in data
        paginated = rendered or b'w:type="page"' in data or b"pageBreakBefore" in data
        doc = DocContext(styles, numbering, comments, rendered, paginated)

        blocks = Walker(doc).walk(body)
        page_count = doc.page
        headers = story_blocks(archive, parts.get("header", []), doc, BlockRole.HEADER)
        footers = story_blocks(archive, parts.get("footer", []), doc, BlockRole.FOOTER)
        leftover = [block for cid, block in comments.items() if cid not in doc.emitted]
        footnotes = note_blocks(archive, first("footnotes"), "footnote")
        notes = footnotes + note_blocks(archive, first("endnotes"), "endnote")
        title = read_core_title(archive)
    blocks = headers + blocks + leftover + notes + footers
    if title is None:
        title = next((b.text for b in blocks if b.type is BlockType.HEADING and b.role is BlockRole.BODY), None)
    return ParsedDocument(path=str(path), file_type="docx", blocks=blocks, title=title, page_count=page_count)
