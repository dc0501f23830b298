"""Find the evidence around a value: its sentence or table row, the chunk that holds it, its label.

Why: a rule answer that cites "13812345678 [合同.docx]" makes the reader search the file; the
citation must quote the sentence ("联系人：张三，电话 13812345678。") or the row with its header
("姓名: 张三, 电话: 13812345678"), point at the chunk that contains that text (so the chat page
can open and highlight it), and say when the text is a Word comment or speaker notes. Everything
here reads the stored parsed documents and the chunk texts; nothing parses a source file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from indexing.chunking.tables import render_table
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from prompts.assembler import split_sentences
from retrieval.messages import text as message

_SPACE = re.compile(r"\s+")
#: "批注（张三）：", "Speaker notes: " at the start of an annotated quote.
LABEL_PREFIX = re.compile(
    r"^((?:批注|演讲者备注|脚注|Comment|Speaker notes|Footnote)(?:（[^：]*）| \([^:]*\))?)[：:]\s*"
)
MAX_QUOTE_CHARS = 300

ChunkTexts = Callable[[str], list[tuple[str, str, dict[str, Any]]]]  # doc id -> [(chunk id, text, metadata)]


def squash(text: str) -> str:
    """Text compared loosely: all whitespace removed."""
    return _SPACE.sub("", text)


@dataclass(slots=True)
class Evidence:
    """A quote and where it is."""

    quote: str
    page: int | None = None
    sheet: str | None = None
    slide: int | None = None
    row: int | None = None
    role: BlockRole = BlockRole.BODY
    author: str = ""
    heading_path: list[str] | None = None


def heading_path_of(document: ParsedDocument, block_index: int) -> list[str]:
    """The headings above block ``block_index`` (outermost first): the section a quote sits in.

    More precise than a chunk's heading path, which names the first section of a chunk that
    merged several small ones.
    """
    path: list[tuple[int, str]] = []
    for block in document.blocks[:block_index]:
        if block.type is BlockType.HEADING and block.text.strip():
            level = block.level or 1
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, " ".join(block.text.split())))
    own = document.blocks[block_index] if 0 <= block_index < len(document.blocks) else None
    if own is not None and own.type is BlockType.HEADING:
        # a heading's own section is below its parents, not below its previous sibling
        while path and path[-1][0] >= (own.level or 1):
            path.pop()
    return [title for _, title in path]


def evidence_for(document: ParsedDocument, block_index: int | None, value: str, row: int | None = None,
                 sheet_row: int | None = None) -> Evidence | None:
    """The sentence (or table row with its header) of block ``block_index`` that contains ``value``."""
    if block_index is None or not 0 <= block_index < len(document.blocks):
        return None
    block = document.blocks[block_index]
    where = {"page": block.page, "sheet": block.sheet, "slide": block.slide, "role": block.role,
             "author": str(block.meta.get("author", "") or ""),
             "heading_path": heading_path_of(document, block_index)}
    if block.type is BlockType.TABLE:
        line = table_row_line(block, row)
        if line:
            return Evidence(_cut(line, value), row=sheet_row or row, **where)
        return Evidence(_cut(block.caption or "", value), **where) if block.caption else None
    texts = block.items if block.type is BlockType.LIST and block.items else [block.text]
    for text in texts:
        sentence = sentence_with(text, value)
        if sentence:
            return Evidence(sentence, **where)
    return Evidence(_cut(block.text.strip(), value), **where) if block.text.strip() else None


def table_row_line(block: Block, row: int | None) -> str:
    """Data row ``row`` (1-based) rendered as the chunker renders it: "列名: 值, 列名: 值"."""
    if row is None:
        return ""
    rendered = render_table(block)
    return rendered.row_lines[row - 1] if 0 < row <= len(rendered.row_lines) else ""


def sentence_with(text: str, value: str) -> str:
    """The sentence of ``text`` that contains ``value`` (compared without whitespace)."""
    target = squash(value)
    for sentence in split_sentences(text):
        if target and target in squash(sentence):
            return _cut(" ".join(sentence.split()), value)
    return ""


def _cut(text: str, value: str) -> str:
    """Long text shortened around the value, so a quote stays readable."""
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    at = text.find(value)
    start = max(0, (at if at >= 0 else 0) - MAX_QUOTE_CHARS // 2)
    piece = text[start : start + MAX_QUOTE_CHARS]
    return ("…" if start else "") + piece + ("…" if start + MAX_QUOTE_CHARS < len(text) else "")


def role_label(role: BlockRole, author: str, language: str) -> str:
    """"批注（张三）", "Speaker notes" ... for non-body text; empty for body text."""
    key = {BlockRole.COMMENT: "comment", BlockRole.NOTES: "notes", BlockRole.FOOTNOTE: "footnote"}.get(role)
    if key is None:
        return ""
    label = message(key, language)
    return message("label_with_author", language, label=label, author=author) if author else label


def find_chunk(
    quote: str, chunks: Iterable[tuple[str, str, Mapping[str, Any]]]
) -> tuple[str, Mapping[str, Any]] | None:
    """The first chunk whose text contains ``quote`` (whitespace ignored; a cut quote by its longest piece)."""
    pieces = [squash(p) for p in quote.split("…") if p.strip()]
    if not pieces:
        return None
    longest = max(pieces, key=len)
    for chunk_id, text, meta in chunks:
        if longest in squash(text):
            return chunk_id, meta
    return None


class QuoteLocator:
    """Where a quoted sentence sits in a stored document: its block, section, page, and comment label.

    Built once per document (block texts with whitespace removed) and reused across questions.
    """

    def __init__(self, document: ParsedDocument) -> None:
        self.document = document
        self._texts = [squash(b.text) for b in document.blocks]

    def block_of(self, sentence: str) -> int | None:
        target = squash(sentence)
        if not target:
            return None
        for index, text in enumerate(self._texts):
            if target in text:
                return index
        return None

    def table_context(self, chunk_text: str) -> str:
        """The text before the table a table chunk comes from (its lead-in sentence) and its caption."""
        lines = chunk_text.splitlines()
        row = next((line for line in lines if ": " in line), "")
        values = [squash(cell.split(": ", 1)[1]) for cell in row.split(", ") if ": " in cell]
        values = [v for v in values if v]
        if not values:
            return ""
        for index, block in enumerate(self.document.blocks):
            if block.type is not BlockType.TABLE or not all(v in self._texts[index] for v in values):
                continue
            before = next((b.text for b in reversed(self.document.blocks[:index])
                           if b.type is not BlockType.TABLE and b.text.strip()), "")
            return " ".join(part for part in (before.strip()[-200:], block.caption or "") if part)
        return ""

    def annotate(self, chunk_text: str, language: str) -> str:
        """The chunk text with each comment, speaker note or footnote prefixed by its label and author,
        so a model reading the materials knows what it is and who wrote it."""
        out = chunk_text
        for block in self.document.blocks:
            if block.role in (BlockRole.COMMENT, BlockRole.NOTES, BlockRole.FOOTNOTE):
                body = block.text.strip()
                label = role_label(block.role, str(block.meta.get("author", "") or ""), language)
                if body and label and body in out and f"{label}：{body}" not in out:
                    out = out.replace(body, f"{label}：{body}", 1)
        return out

    def label(self, sentence: str, language: str) -> str | None:
        """"批注（张三）" when the sentence is a comment (or notes, footnote), else None."""
        index = self.block_of(sentence)
        if index is None:
            return None
        block = self.document.blocks[index]
        return role_label(block.role, str(block.meta.get("author", "") or ""), language) or None

    def refine(self, citation: Any) -> None:
        """Set the citation's section and page from the block its quote comes from (when found); a quote that
        carries an annotation label ("批注（张三）：…", added for the model) is split into label and text."""
        labelled = LABEL_PREFIX.match(citation.quote or "")
        if labelled:
            citation.label_note = citation.label_note or labelled.group(1)
            citation.quote = citation.quote[labelled.end():]
        first = citation.quote.split("…")[0] if citation.quote else ""
        index = self.block_of(first)
        if index is None:
            return
        block = self.document.blocks[index]
        path = heading_path_of(self.document, index)
        if path:
            citation.heading_path = path
        if block.page is not None:
            citation.page, citation.page_end = block.page, None
        if block.slide is not None:
            citation.slide = block.slide


__all__ = ["Evidence", "QuoteLocator", "evidence_for", "find_chunk", "heading_path_of", "role_label",
           "sentence_with", "squash", "table_row_line"]
