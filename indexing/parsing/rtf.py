"""Rich Text Format (.rtf) -> blocks, with striprtf.

Why striprtf: a small, maintained (BSD) pure-Python reader that handles what matters for
office RTF -- ``\\ansicpgNNN`` code pages (GBK/cp936 for Chinese Word files), ``\\uN``
Unicode escapes, skipped destinations (font tables, pictures, field instructions) -- and
renders table cells as ``cell|cell|`` lines. Measured on the fixtures (``bench/bench_formats.py``)
it reads a 25 KB file in milliseconds; LibreOffice or pandoc would add a large install for
the same text. What it does not give, RTF's style sheet (heading styles), is recovered
from wording only ("第一章 …", "1.1 …"), as for plain text.

Lines of striprtf's output become blocks: consecutive ``…|…|`` lines a table (first row
the header), lines opening with a bullet glyph a list, other lines paragraphs or, when
worded as one, headings.
"""

from __future__ import annotations

import re
from pathlib import Path

from indexing.parsing.encoding import normalize_encoding_name
from indexing.parsing.headings import heading_level
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_rtf", "rtf_text_to_blocks"]

_TITLE_CHARS = 80
_CODEPAGE = re.compile(rb"\\ansicpg(\d{3,5})")
# Word and LibreOffice write list bullets as a Symbol-font glyph (U+F0B7 and friends) or a real bullet, then a tab.
_BULLET = re.compile(r"^\s*[\uf0b7\uf0a7\uf076\uf0d8\uf0fc•·▪■◆●○\-–]\s+")


def _decode(data: bytes) -> str:
    """RTF is 7-bit with escapes, but some writers emit raw 8-bit text in the declared code page.

    The code page goes through the one alias table (``\\ansicpg10001``, a Mac code page, is cp932);
    importing :mod:`indexing.parsing.encoding` also lets striprtf resolve such a page for ``\\'xx`` escapes.
    """
    match = _CODEPAGE.search(data[:4096])
    codepage = normalize_encoding_name(f"cp{match.group(1).decode()}") if match else None
    return data.decode(codepage or "cp1252", "replace")


def _join_surrogates(text: str) -> str:
    """striprtf turns ``\\uN`` escapes one by one, so a character beyond the BMP (``\\u-10240\\u-8398``)
    comes out as two UTF-16 surrogates, which cannot be stored or encoded; pair them, replace strays."""
    if not any("\ud800" <= char <= "\udfff" for char in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def rtf_text_to_blocks(text: str) -> list[Block]:
    """Blocks of striprtf's plain-text output (uncleaned)."""
    blocks: list[Block] = []
    table: list[list[str]] = []
    items: list[str] = []

    def flush() -> None:
        if table:
            width = max(len(row) for row in table)
            rows = [row + [""] * (width - len(row)) for row in table]
            if len(rows) == 1:
                blocks.append(Block(type=BlockType.PARAGRAPH, text=" ".join(cell for cell in rows[0] if cell)))
            else:
                blocks.append(Block.table(rows[:1], rows[1:]))
            table.clear()
        if items:
            blocks.append(Block(type=BlockType.LIST, text="\n".join(items), items=list(items)))
            items.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.endswith("|") and line.count("|") >= 2:
            if items:
                flush()
            table.append([cell.strip() for cell in line.split("|")[:-1]])
            continue
        if table:
            flush()
        if not line:
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            items.append(raw[bullet.end() :].strip())
            continue
        flush()
        level = heading_level(line)
        blocks.append(Block(type=BlockType.HEADING if level else BlockType.PARAGRAPH, text=line, level=level))
    flush()
    return blocks


def parse_rtf(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an RTF file into blocks."""
    from striprtf.striprtf import rtf_to_text

    del password, settings  # RTF has neither encryption nor format knobs
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the file: {exc}") from exc
    if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{\\rtf"):
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "not an RTF file (no {\\rtf header)")
    try:
        text = _join_surrogates(rtf_to_text(_decode(data), errors="replace"))
    except (ValueError, IndexError, LookupError) as exc:  # striprtf on malformed control words
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"malformed RTF: {exc}") from exc
    blocks = rtf_text_to_blocks(text)
    # RTF's heading styles are not read, so a short first line (the usual title line) names the document.
    first = blocks[0].text if blocks and blocks[0].type is not BlockType.TABLE else ""
    title = first if 0 < len(first) <= _TITLE_CHARS else next(
        (b.text for b in blocks if b.type is BlockType.HEADING), None
    )
    return ParsedDocument(path=str(path), file_type="rtf", blocks=blocks, title=title)
