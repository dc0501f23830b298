"""Plain-text files (.txt): paragraphs, headings promoted by wording, list items.

Why line rules and not a partitioner: a .txt file has no markup, only conventions --
blank lines between paragraphs, "第一章"/"一、"/"1.1" or Markdown "#" lines as headings,
"- "/"1."/"（1）" lines as list items; a line opening with a clause number ("第十一条 甲方应当……")
starts a section headed by that number, as the docx parser does. Reading them directly is fast, exact and keeps
the lines' order; joining wrapped lines is left to :mod:`indexing.cleaning`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from indexing.parsing.encoding import read_text
from indexing.parsing.headings import clause_prefix, heading_level
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_text", "strip_markup", "text_to_blocks"]

_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_LIST_ITEM = re.compile(
    r"^[ \t]*(?:[-*+•·●○▪■□◆◇►▶][ \t]+"
    r"|\d{1,3}(?:[.．)）](?:[ \t]+|(?=[\u4e00-\u9fff]))|、)"
    r"|[（(]\d{1,3}[)）][ \t]*"
    r"|[①-⑳⑴-⒇⒈-⒛][ \t]*)\S"
)
# A list item line at least this long was wrapped: an unindented next line continues it.
_WRAPPED_ITEM_CHARS = 50
# A .txt that is really XML/HTML (an RSS dump, a saved page): its tags are dropped, its text kept.
_MARKUP_START = re.compile(r"^\s*<(?:\?xml|!DOCTYPE\s+html|html|rss)\b", re.IGNORECASE)
_CDATA = re.compile(r"<!\[CDATA\[|\]\]>")
_COMMENT_OPEN, _COMMENT_CLOSE, _MAX_COMMENT_CHARS = "<!--", "-->", 2000
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]{0,40})?[^<>]{0,1000}>")
# Tags that end a line of text; any other tag (a, b, span, font ...) is dropped in place.
_BLOCK_TAGS = frozenset(
    (
        *("p", "div", "br", "li", "ul", "ol", "tr", "td", "th", "table", "pre", "blockquote", "section"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "article", "header", "footer"),
        *("item", "title", "description", "link", "channel", "entry", "summary", "content", "pubdate", "guid"),
    )
)


def _tag_break(match: re.Match[str]) -> str:
    name = (match.group(2) or "").lower()
    return "\n" if name in _BLOCK_TAGS or not name else ""


# A guessed encoding below this confidence is reported as a warning on the document.
_LOW_CONFIDENCE = 0.5


class _Builder:
    """Accumulates lines into paragraph and list blocks, flushing on structure changes."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self._para: list[str] = []
        self._items: list[str] = []

    def flush(self) -> None:
        if self._para:
            self.blocks.append(Block(BlockType.PARAGRAPH, text="\n".join(self._para)))
            self._para = []
        if self._items:
            self.blocks.append(Block(BlockType.LIST, text="\n".join(self._items), items=self._items))
            self._items = []

    def heading(self, text: str, level: int) -> None:
        self.flush()
        self.blocks.append(Block(BlockType.HEADING, text=text, level=level))

    def item(self, line: str) -> None:
        if self._para:
            self.flush()
        self._items.append(line.strip())

    def _last_item_wrapped(self) -> bool:
        last_line = self._items[-1].rsplit("\n", 1)[-1]
        return len(last_line) >= _WRAPPED_ITEM_CHARS

    def line(self, line: str) -> None:
        if self._items and (line[:1] in (" ", "\t", "\u3000") or self._last_item_wrapped()):
            self._items[-1] += "\n" + line.strip()  # an indented continuation of the last list item
            return
        if self._items:
            self.flush()
        self._para.append(line)


def _drop_comments(text: str) -> str:
    """``re.sub(r"<!--.{0,2000}?-->", "", text, flags=re.DOTALL)`` in linear time.

    The regex rescans up to 2,000 characters after every "<!--" that has no close nearby, so a
    file of nothing but "<!--" took minutes; here the next "-->" is found once and reused.
    """
    parts: list[str] = []
    kept = 0  # text[kept:] is not yet copied
    start = text.find(_COMMENT_OPEN)
    close = -1
    while start >= 0:
        body = start + len(_COMMENT_OPEN)
        if close < body:
            close = text.find(_COMMENT_CLOSE, body)
            if close < 0:
                break
        if close - body <= _MAX_COMMENT_CHARS:
            parts.append(text[kept:start])
            kept = close + len(_COMMENT_CLOSE)
            start = text.find(_COMMENT_OPEN, kept)
        else:
            start = text.find(_COMMENT_OPEN, start + 1)
    parts.append(text[kept:])
    return "".join(parts)


def strip_markup(text: str) -> str:
    """Text of an XML/HTML dump saved as .txt: comments and tags dropped, CDATA opened, entities decoded."""
    text = _drop_comments(text)
    text = _CDATA.sub("\n", text)
    text = _TAG.sub(_tag_break, text)
    text = _TAG.sub(_tag_break, html.unescape(text))  # CDATA often held escaped HTML
    return html.unescape(text)


def text_to_blocks(text: str) -> list[Block]:
    """Split decoded text into heading, paragraph and list blocks (uncleaned)."""
    builder = _Builder()
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            builder.flush()
            continue
        match = _MD_HEADING.match(stripped)
        if match:
            builder.heading(match.group(2), len(match.group(1)))
            continue
        level = heading_level(stripped)
        prefix = clause_prefix(stripped) if level is None else None
        if level is not None:
            builder.heading(stripped, level)
        elif prefix and prefix != stripped:
            # "第十一条 甲方应当……" : the clause number opens a section, as in the docx parser
            builder.heading(prefix, heading_level(prefix) or 3)
            builder.line(stripped)
        elif _LIST_ITEM.match(line):
            builder.item(line)
        else:
            builder.line(line)
    builder.flush()
    return builder.blocks


def parse_text(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a .txt file (any encoding :func:`read_text` detects) into blocks."""
    del password, settings  # plain text has neither encryption nor format knobs
    decoded = read_text(path)
    text = decoded.text
    warnings = []
    if _MARKUP_START.match(text[:200]):
        text = strip_markup(text)
        warnings.append("the text file holds XML/HTML markup; tags were dropped")
    blocks = text_to_blocks(text)
    title = next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    if decoded.confidence < _LOW_CONFIDENCE:
        warnings.append(f"encoding guessed as {decoded.encoding} (confidence {decoded.confidence:.2f})")
    return ParsedDocument(path=str(path), file_type="txt", blocks=blocks, title=title, warnings=warnings)
