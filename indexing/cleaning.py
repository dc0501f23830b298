"""Clean parsed blocks: invisible characters, width folding, whitespace and soft line breaks.

Why a separate pass: every format parser emits the same block model, so the text
hygiene that decides chunk quality (BM25 tokens, sentence ends, the abnormal-character
metric) is done once, here, and not eight times with eight different bugs. The
dispatcher (``indexing.parsing.dispatch.parse_file``) runs :func:`clean_blocks` on
every parser's output.

What is changed, precisely:

* Mojibake: UTF-8 that was once read as latin-1 ("â" + C1 codes) is decoded back
  (:func:`repair_mojibake`); only sequences with C1 codes are touched.
* Removed: zero-width characters (U+200B..U+200D, U+2060), the BOM / zero-width
  no-break space U+FEFF, the soft hyphen U+00AD, C0 control characters except ``\\t``
  and ``\\n``, DEL and the C1 controls. ``\\r\\n``/``\\r``, vertical tab, form feed and
  U+2028/U+2029 become ``\\n``.
* Spaces: NBSP (U+00A0), the ideographic space U+3000 and the other Unicode space
  characters (U+2000..U+200A, U+202F, U+205F) become an ASCII space. Trailing spaces
  on every line are removed; 3+ newlines become a single blank line.
* Full-width forms U+FF01..U+FF5E fold to ASCII -- letters, digits and symbols such as
  ``％ ＋ － ＝ ＠ ＃ ＆ ＄ ＊ ／ ＜ ＞ ［ ］ ｛ ｝ ＿ ～ ｜ ＼ ＂ ＇ ． ＾ ｀`` -- EXCEPT the seven
  forms that are Chinese punctuation in running text and must stay full-width:
  ``！ （ ） ， ： ； ？`` (U+FF01, U+FF08, U+FF09, U+FF0C, U+FF1A, U+FF1B, U+FF1F).
  Characters outside that block (``。 、 “ ” 《 》 【 】 「 」 ￥``) are never touched.
  ``．`` (U+FF0E) folds because in Chinese documents it is a numbering dot ("1．2").
* Line breaks inside a paragraph (reflow): ``docu-\\nment`` -> ``document`` (a letter,
  a hyphen, a break, a lower-case letter); a break between Chinese characters is
  dropped ("我们今天\\n去公园" -> "我们今天去公园"); a break inside an English sentence
  becomes a space. A break stays when the line ends a sentence (。！？；：.!?;:…, also
  followed by a closing quote or bracket), when the next line starts a list item
  ("- ", "1.", "（1）", "①", "一、"), a heading (:func:`heading_level`) or a
  "label：" field, and when the line is less than half as wide as the paragraph's widest
  line (capped at 80 columns, a CJK character counting two): a deliberate break, not a wrap;
  three or more lines all narrower than 24 columns (slide points, an address) stay lines.
* Code blocks (:attr:`BlockType.CODE`) are never folded or reflowed: only line endings
  are normalised and a BOM is removed.
* Blocks whose text is empty after cleaning are dropped, except page breaks; table rows
  with no text are dropped, list items with no text too (with their ``meta["levels"]``).

Everything is ``str.translate`` plus a few precompiled regexes, so the 872-page docx
goes through in a fraction of its parse time.
"""

from __future__ import annotations

import re
from itertools import pairwise

from indexing.parsing.headings import heading_level
from officeqa.domain import Block, BlockType, render_table_text
from officeqa.scripts import CJK, CJK_PUNCTUATION, HAN

__all__ = [
    "KEPT_FULLWIDTH_PUNCTUATION",
    "clean_block",
    "clean_blocks",
    "clean_cell",
    "clean_chars",
    "clean_text",
    "reflow",
    "repair_mojibake",
]

# Full-width forms that are Chinese punctuation in running text: they stay as they are.
KEPT_FULLWIDTH_PUNCTUATION = frozenset("！（），：；？")


def _build_char_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for code in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD):
        table[code] = None
    for code in range(0x00, 0x20):
        if chr(code) not in "\t\n":
            table[code] = None
    for code in (0x0B, 0x0C):  # vertical tab (Word's soft line break), form feed
        table[code] = "\n"
    table[0x0D] = "\n"  # "\r\n" is replaced before translation; a lone "\r" is a line break
    for code in range(0x7F, 0xA0):
        table[code] = None
    for code in (0x2028, 0x2029):
        table[code] = "\n"
    for code in (0x00A0, 0x3000, 0x202F, 0x205F, *range(0x2000, 0x200B)):
        table[code] = " "
    for code in range(0xFF01, 0xFF5F):
        if chr(code) not in KEPT_FULLWIDTH_PUNCTUATION:
            table[code] = chr(code - 0xFEE0)
    return table


_CHAR_TABLE = _build_char_table()
_CODE_TABLE = {0xFEFF: None, 0x00: None, 0x0D: "\n"}

_C1 = re.compile("[\u0080-\u009f]")
# a UTF-8 lead byte read as latin-1, then exactly its continuation bytes
_MOJIBAKE = re.compile(
    "[\u00c2-\u00df][\u0080-\u00bf]|[\u00e0-\u00ef][\u0080-\u00bf]{2}|[\u00f0-\u00f4][\u0080-\u00bf]{3}"
)
_MANY_NEWLINES = re.compile(r"\n{3,}")
_HYPHEN_BREAK = re.compile(r"(?<=[A-Za-z])-[ \t]*\n[ \t]*(?=[a-z])")
_SPACE_RUN = re.compile(r"[ \t]{2,}")
_ANY_SPACE_RUN = re.compile(r"\s+")

# CJK ideographs (basic + extension A + compatibility), kana, hangul, and the Chinese punctuation that
# sits mid-sentence. A break between two of these is a wrap, not a word gap.
_CJK_CHAR = re.compile(f"[{CJK}\u3001\u3008-\u3011\u201c\u201d\u2018\u2019\uff08\uff0c]")
# A line that ends with one of these (optionally followed by closing quotes/brackets and
# citation marks like "[4]") ends a sentence.
_SENTENCE_END = re.compile(r"[。！？；：!?;:.…](?:[”’\"'」』）)\]】》]*)(?:\[\d{1,4}\])*$")
_LIST_START = re.compile(
    r"^(?:[-*+•·▪●○◆◇■□►▶–—]\s"
    rf"|\d{{1,3}}(?:[.．)）](?:\s|(?=[{HAN}]))|、)"
    r"|[（(](?:\d{1,3}|[一二三四五六七八九十]{1,3}|[a-zA-Z])[)）]"
    r"|[①-⑳⑴-⒇⒈-⒛]"
    r"|[一二三四五六七八九十]{1,3}[、．.]"
    r"|[a-zA-Z][.)]\s"
    r"|第[一二三四五六七八九十百千零〇两0-9]{1,6}[编篇部章节条款])"
)
_LABEL_START = re.compile(r"^[^\s：:，。,.!?！？；;]{1,10}[：:]")
# A line shorter than this share of the paragraph's longest line is a deliberate break.
_SHORT_LINE_RATIO = 0.5
# Wrapped text is rarely wider than this many columns; longer lines (unwrapped paragraphs) must not make
# every wrapped line look "short".
_WRAP_WIDTH_CAP = 80
# Three or more lines all narrower than this (columns) are kept as lines: nobody wraps text that narrow.
_SHORT_LINES_MIN_COUNT = 3
_SHORT_LINES_MAX_WIDTH = 24
_WIDE = re.compile(f"[{CJK}{CJK_PUNCTUATION}]")
# English soft breaks are joined only when the paragraph's lines are prose-wide.
_MIN_PROSE_WIDTH = 30


def _unmangle(match: re.Match[str]) -> str:
    if not _C1.search(match.group(0)):
        return match.group(0)
    try:
        return match.group(0).encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return match.group(0)


def repair_mojibake(text: str) -> str:
    """Undo UTF-8 read as latin-1 ("1986\u00e2\u0080\u00931990" -> "1986–1990") where C1 codes prove it.

    Only sequences holding a C1 control character (U+0080..U+009F, never real text) are
    touched, so legitimate accented text is left alone.
    """
    if not _C1.search(text):
        return text
    return _MOJIBAKE.sub(_unmangle, text)


def clean_chars(text: str) -> str:
    """Character-level cleaning only: mojibake, invisible/control characters, spaces, full-width folding."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return repair_mojibake(text).translate(_CHAR_TABLE)


def _keeps_break(prev: str, nxt: str, max_width: int) -> bool:
    """True when the break between two stripped, non-empty lines is deliberate."""
    if _SENTENCE_END.search(prev):
        return True
    if _LIST_START.match(nxt) or _LABEL_START.match(nxt) or heading_level(nxt) is not None:
        return True
    if heading_level(prev) is not None:
        return True
    return _width(prev) < _SHORT_LINE_RATIO * max_width


def _width(line: str) -> int:
    """Display width: a CJK character takes two columns, as in the editors that wrapped the text."""
    return len(line) + len(_WIDE.findall(line))


def _join_lines(lines: list[str]) -> str:
    """Join wrapped lines of one paragraph (no blank lines inside), keeping deliberate breaks."""
    widest = max(_width(line) for line in lines)
    if len(lines) >= _SHORT_LINES_MIN_COUNT and widest < _SHORT_LINES_MAX_WIDTH:
        return "\n".join(lines)  # a column of short lines (slide points, an address) is structure, not a wrap
    max_width = min(widest, _WRAP_WIDTH_CAP)
    parts = [lines[0]]
    for prev, nxt in pairwise(lines):
        if _keeps_break(prev, nxt, max_width):
            parts.append("\n")
        elif _CJK_CHAR.match(prev[-1]) or _CJK_CHAR.match(nxt[0]):
            pass
        elif max_width >= _MIN_PROSE_WIDTH:
            parts.append(" ")
        else:
            parts.append("\n")
        parts.append(nxt)
    return "".join(parts)


def reflow(text: str) -> str:
    """Join soft line breaks (hyphenation, Chinese wraps, English wraps); blank lines stay."""
    if "\n" not in text:
        return text.strip()
    text = _HYPHEN_BREAK.sub("", text)
    paragraphs: list[str] = []
    for para in text.split("\n\n"):
        lines = [line.strip() for line in para.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            paragraphs.append(_join_lines(lines) if len(lines) > 1 else lines[0])
    return "\n\n".join(paragraphs)


def _strip_line_ends(text: str) -> str:
    """Trailing spaces/tabs removed from every line.

    Not the regex ``[ \t]+$`` (MULTILINE): on a long run of spaces that does not reach a line
    end it retries from every space of the run, which is quadratic (a 200,000-space line took
    minutes); ``str.rstrip`` per line is linear.
    """
    return "\n".join(line.rstrip(" \t") for line in text.split("\n"))


def clean_text(text: str) -> str:
    """Full cleaning of a paragraph-like text: characters, reflow, trailing spaces, blank lines."""
    text = clean_chars(text)
    if "\n" in text:
        text = _strip_line_ends(text)
        text = _MANY_NEWLINES.sub("\n\n", text)
        text = reflow(text)
    return text.strip()


def clean_cell(text: str) -> str:
    """A table cell or list item on one line: cleaned, reflowed, remaining breaks and space runs -> one space."""
    text = clean_text(text)
    if "\n" in text:
        text = _ANY_SPACE_RUN.sub(" ", text)
    elif "  " in text or "\t" in text:
        text = _SPACE_RUN.sub(" ", text.replace("\t", " "))
    return text


def _clean_code(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    text = text.translate(_CODE_TABLE)
    return text.strip("\n").rstrip()


def _clean_rows(rows: list[list[str]] | None) -> list[list[str]]:
    cleaned = [[clean_cell(cell or "") for cell in row] for row in rows or []]
    return [row for row in cleaned if any(row)]


def clean_block(block: Block) -> Block | None:
    """Clean one block in place and return it, or None when nothing is left of it."""
    kind = block.type
    if kind is BlockType.PAGE_BREAK:
        return block
    if kind is BlockType.CODE:
        block.text = _clean_code(block.text)
        return block if block.text.strip() else None
    if block.caption:
        block.caption = clean_cell(block.caption) or None
    if kind is BlockType.TABLE:
        block.header_rows = _clean_rows(block.header_rows)
        block.rows = _clean_rows(block.rows)
        if not block.header_rows and not block.rows:
            return None
        block.text = render_table_text(block.header_rows, block.rows)
        return block
    if kind is BlockType.LIST and block.items is not None:
        items = [clean_cell(item) for item in block.items]
        keep = [i for i, item in enumerate(items) if item]
        levels = block.meta.get("levels")
        if isinstance(levels, list) and len(levels) == len(items):  # per-item nesting levels stay aligned
            block.meta["levels"] = [levels[i] for i in keep]
        block.items = [items[i] for i in keep]
        block.text = "\n".join(block.items)
        return block if block.items else None
    if kind is BlockType.HEADING:
        block.text = clean_cell(block.text)
    else:
        block.text = clean_text(block.text)
    return block if block.text else None


def clean_blocks(blocks: list[Block]) -> list[Block]:
    """Clean every block (see the module docstring for the exact rules); drop the ones left empty."""
    out: list[Block] = []
    for block in blocks:
        cleaned = clean_block(block)
        if cleaned is not None:
            out.append(cleaned)
    return out
