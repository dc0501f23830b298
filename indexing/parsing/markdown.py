"""Markdown files: a CommonMark parse (markdown-it-py) mapped onto the block model.

Why markdown-it-py and not line rules: fenced code, nested lists and pipe tables are
where hand-written Markdown readers go wrong, and they are exactly what the chunker
must see intact (code is never split; a table keeps its header row).

Mapping: headings -> heading blocks; paragraphs -> paragraphs (or headings when worded as
one, "第三条 违约责任"); fenced/indented code ->
code blocks (language in ``meta["language"]``); pipe tables -> table blocks with the
header row; block quotes -> their paragraphs; raw HTML blocks -> their text; images ->
an image block ``[image: alt]`` when a paragraph is only an image with alt text, else
dropped; YAML front matter is skipped. Lists: a list item that has a nested list and a short, title-like text acts as
a heading one level below the current one (mind-map style notes such as
``zh_分布式训练技术原理.md`` are deep outlines, and one unsplittable list block of the
whole document would be useless to the chunker); other items become list blocks, one
item per entry, ordered items keeping their number.
"""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from indexing.parsing.encoding import read_text
from indexing.parsing.headings import heading_level
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.settings import ParsingSettings

__all__ = ["markdown_to_blocks", "parse_markdown"]

_LISTS = ("bullet_list", "ordered_list")
# YAML front matter ("---" ... "---" at the very top) is metadata, not text; without this it reads as a
# setext heading. Bounded so a stray "---" far below cannot swallow the document.
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\n.{0,4000}?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
# A parent list item becomes a heading only when its text is short and not a sentence.
_MAX_OUTLINE_HEADING_CHARS = 60
_SENTENCE_END = re.compile(r"[。！？；：:;.!?，,]$")


def _inline_text(node: SyntaxTreeNode, *, keep_images: bool = False) -> str:
    """Plain text of an inline node: emphasis and links unwrapped, breaks kept, images dropped."""
    parts: list[str] = []
    for child in node.children:
        kind = child.type
        if kind in ("text", "code_inline"):
            parts.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif kind == "image":
            if keep_images:
                parts.append(_inline_text(child))
        elif kind == "html_inline":
            continue
        else:  # strong, em, s, link ... : their text
            parts.append(_inline_text(child, keep_images=keep_images))
    return "".join(parts)


def _only_image(inline: SyntaxTreeNode) -> SyntaxTreeNode | None:
    images = [c for c in inline.children if c.type == "image"]
    rest = [c for c in inline.children if c.type != "image" and not (c.type == "text" and not c.content.strip())]
    rest = [c for c in rest if c.type not in ("softbreak", "hardbreak")]
    return images[0] if len(images) == 1 and not rest else None


def _html_text(html: str) -> str:
    return BeautifulSoup(html, "lxml").get_text("\n")


class _Walker:
    """Walks the syntax tree in document order, appending blocks."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.level = 0  # level of the last heading, the base for outline headings

    def heading(self, text: str, level: int) -> None:
        self.blocks.append(Block(BlockType.HEADING, text=text, level=level))
        self.level = level

    def walk(self, nodes: list[SyntaxTreeNode]) -> None:
        for node in nodes:
            kind = node.type
            if kind == "heading":
                self.heading(_inline_text(node.children[0]), int(node.tag[1]))
            elif kind == "paragraph":
                self.paragraph(node)
            elif kind in ("fence", "code_block"):
                language = (node.info or "").split()[0] if node.info else ""
                meta = {"language": language} if language else {}
                self.blocks.append(Block(BlockType.CODE, text=node.content, meta=meta))
            elif kind in _LISTS:
                self.outline(node, self.level + 1)
            elif kind == "table":
                self.table(node)
            elif kind == "html_block":
                text = _html_text(node.content)
                if text.strip():
                    self.blocks.append(Block(BlockType.PARAGRAPH, text=text))
            elif kind == "blockquote":
                self.walk(node.children)
            # hr and anything unknown: no text to keep

    def paragraph(self, node: SyntaxTreeNode) -> None:
        inline = node.children[0]
        image = _only_image(inline)
        if image is not None:
            alt = _inline_text(image).strip()
            if alt:
                meta = {"src": str(image.attrs.get("src", ""))}
                self.blocks.append(Block(BlockType.IMAGE, text=f"[image: {alt}]", meta=meta))
            return
        text = _inline_text(inline)
        level = heading_level(text)
        if level is not None:  # "第三条 违约责任" written as a plain line
            self.blocks.append(Block(BlockType.HEADING, text=text, level=level, meta={"promoted": "wording"}))
        else:
            self.blocks.append(Block(BlockType.PARAGRAPH, text=text))

    def table(self, node: SyntaxTreeNode) -> None:
        header: list[list[str]] = []
        rows: list[list[str]] = []
        for section in node.children:
            target = header if section.type == "thead" else rows
            for tr in section.children:
                target.append([_inline_text(cell.children[0]) if cell.children else "" for cell in tr.children])
        self.blocks.append(Block.table(header, rows))

    def outline(self, node: SyntaxTreeNode, level: int) -> None:
        """A list; items with a nested list and a title-like text become headings at ``level``."""
        items: list[str] = []
        ordered = node.type == "ordered_list"
        for li in node.children:
            own = self._item_text(li)
            nested = [c for c in li.children if c.type in _LISTS]
            label = f"{li.info}. {own}" if ordered and li.info and own else own
            if nested and level <= 6 and _title_like(own):
                self._flush_items(items)
                items = []
                self.blocks.append(Block(BlockType.HEADING, text=own, level=level))
                for sub in nested:
                    self.outline(sub, level + 1)
            else:
                if label:
                    items.append(label)
                for sub in nested:
                    items.extend(_flat_items(sub))
        self._flush_items(items)

    def _item_text(self, li: SyntaxTreeNode) -> str:
        """The item's own text (its paragraphs); code and quotes inside an item are added as blocks."""
        parts: list[str] = []
        for child in li.children:
            if child.type == "paragraph":
                parts.append(_inline_text(child.children[0]))
            elif child.type in ("fence", "code_block", "table", "blockquote", "html_block"):
                self.walk([child])
        return "\n".join(p for p in parts if p.strip())

    def _flush_items(self, items: list[str]) -> None:
        if items:
            self.blocks.append(Block(BlockType.LIST, text="\n".join(items), items=list(items)))


def _title_like(text: str) -> bool:
    text = text.strip()
    if not text or "\n" in text or len(text) > _MAX_OUTLINE_HEADING_CHARS:
        return False
    return not _SENTENCE_END.search(text)


def _flat_items(node: SyntaxTreeNode) -> list[str]:
    items: list[str] = []
    for li in node.children:
        own = "\n".join(_inline_text(c.children[0]) for c in li.children if c.type == "paragraph").strip()
        if own:
            items.append(f"{li.info}. {own}" if node.type == "ordered_list" and li.info else own)
        for sub in li.children:
            if sub.type in _LISTS:
                items.extend(_flat_items(sub))
    return items


def markdown_to_blocks(source: str) -> list[Block]:
    """Blocks of a Markdown text (uncleaned): CommonMark plus GitHub pipe tables."""
    source = _FRONT_MATTER.sub("", source, count=1)
    md = MarkdownIt("commonmark").enable("table")
    walker = _Walker()
    walker.walk(SyntaxTreeNode(md.parse(source)).children)
    return walker.blocks


def parse_markdown(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a .md file into blocks; the first heading is the title."""
    del password, settings  # Markdown has neither encryption nor format knobs
    decoded = read_text(path)
    blocks = markdown_to_blocks(decoded.text)
    title = next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    return ParsedDocument(path=str(path), file_type="md", blocks=blocks, title=title)
