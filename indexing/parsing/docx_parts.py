"""The side parts of a .docx package: headers/footers, comments, footnotes and endnotes.

Why a module of its own: these live in their own XML parts outside ``w:body`` and come
back as blocks with their own roles (header, footer, comment, footnote), with rules of
their own (headers de-duplicated across sections, bare page numbers dropped, note
separators skipped); the body walk need not know about any of it.
"""

from __future__ import annotations

import re
import zipfile

from lxml import etree

from indexing.parsing.docx_context import DocContext
from indexing.parsing.docx_walker import Walker
from indexing.parsing.docx_xml import W_P, W_T, one_line, wtag
from indexing.parsing.ooxml import read_xml
from officeqa.domain import Block, BlockRole, BlockType

_PAGE_NUMBER = re.compile(r"^[\W_]*(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?[\W_]*$|^第\s*\d+\s*页", re.IGNORECASE)
_NOTE_SEPARATORS = ("separator", "continuationSeparator", "continuationNotice")


def _plain_text(el: etree._Element) -> str:
    """The paragraphs under ``el`` (a comment, a note), each on one line, empty ones dropped."""
    lines = [one_line("".join(t.text or "" for t in p.iter(W_T))) for p in el.iter(W_P)]
    return "\n".join(line for line in lines if line)


def comment_blocks(archive: zipfile.ZipFile, part: str | None) -> dict[str, Block]:
    """Comment blocks by comment id (the body walk places each after the block its range ends in)."""
    root = read_xml(archive, part) if part else None
    if root is None:
        return {}
    out: dict[str, Block] = {}
    for comment in root.iter(wtag("comment")):
        text = _plain_text(comment)
        if not text:
            continue
        meta = {"author": comment.get(wtag("author")) or "", "comment_id": comment.get(wtag("id")) or ""}
        out[comment.get(wtag("id")) or ""] = Block(
            type=BlockType.PARAGRAPH, text=text, role=BlockRole.COMMENT, meta=meta
        )
    return out


def note_blocks(archive: zipfile.ZipFile, part: str | None, tag: str) -> list[Block]:
    """Footnote (``tag="footnote"``) or endnote (``tag="endnote"``) blocks, separators skipped."""
    root = read_xml(archive, part) if part else None
    if root is None:
        return []
    out: list[Block] = []
    for note in root.iter(wtag(tag)):
        if note.get(wtag("type")) in _NOTE_SEPARATORS:
            continue
        text = _plain_text(note)
        if text:
            out.append(
                Block(
                    type=BlockType.PARAGRAPH,
                    text=text,
                    role=BlockRole.FOOTNOTE,
                    meta={"note": tag, "note_id": note.get(wtag("id")) or ""},
                )
            )
    return out


def story_blocks(archive: zipfile.ZipFile, part_names: list[str], doc: DocContext, role: BlockRole) -> list[Block]:
    """Header or footer blocks of every section, each distinct text once; bare page numbers dropped."""
    seen: set[str] = set()
    out: list[Block] = []
    for name in part_names:
        root = read_xml(archive, name)
        if root is None:
            continue
        saved_page = doc.page
        doc.page = None
        for block in Walker(doc, role).walk(root):
            key = block.text.strip()
            if not key or key in seen or _PAGE_NUMBER.match(key):
                continue
            seen.add(key)
            out.append(block)
        doc.page = saved_page
    return out
