"""The blocks the chunker works on, and the document text their offsets refer to.

Which blocks count: every block with text, except page breaks, images without OCR text
(a placeholder is noise to a retriever) and repeats of the same header/footer/comment text
(a running header kept on 600 pages would otherwise flood the index; its first occurrence
stays so nothing is lost). The document text is the kept blocks' stripped texts joined by
a blank line; every chunk's ``char_start``/``char_end`` are offsets into it, and for a
prose chunk ``text == document_text[char_start - overlap_chars:char_end]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from officeqa.domain import Block, BlockRole, BlockType

SEPARATOR = "\n\n"
_SPACE = re.compile(r"\s+")


@dataclass(slots=True)
class Item:
    """A kept block with its stripped text and its span in the document text."""

    index: int  # position among kept items
    block: Block
    text: str
    start: int
    end: int

    @property
    def type(self) -> BlockType:
        return self.block.type


def select_items(blocks: list[Block]) -> tuple[list[Item], str]:
    """The kept blocks as items and the document text (see the module docstring)."""
    items: list[Item] = []
    parts: list[str] = []
    seen_non_body: set[str] = set()
    offset = 0
    for block in blocks:
        text = _block_text(block)
        if not text:
            continue
        if block.role is not BlockRole.BODY:
            key = _SPACE.sub("", text)
            if key in seen_non_body:
                continue
            seen_non_body.add(key)
        if parts:
            offset += len(SEPARATOR)
        items.append(Item(len(items), block, text, offset, offset + len(text)))
        parts.append(text)
        offset += len(text)
    return items, SEPARATOR.join(parts)


def _block_text(block: Block) -> str:
    if block.type is BlockType.PAGE_BREAK:
        return ""
    if block.type is BlockType.IMAGE and not block.ocr:
        return ""
    return block.text.strip()


def heading_title(text: str, limit: int = 120) -> str:
    """A heading as one line for heading paths (whitespace collapsed, long ones cut)."""
    title = _SPACE.sub(" ", text).strip()
    return title if len(title) <= limit else title[: limit - 1] + "…"


__all__ = ["SEPARATOR", "Item", "heading_title", "select_items"]
