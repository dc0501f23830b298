"""Word 97-2003 (.doc, and WPS Writer's .wps) -> blocks, through antiword's DocBook output.

Why antiword: it is the one well-kept reader of the Word binary format that needs no
office suite (Debian's ``antiword``, 200 KB, C). Its DocBook mode (``-x db``) keeps what
the plain-text mode flattens: heading paragraphs become ``chapter``/``sect1``... titles
with their level, bulleted and numbered paragraphs ``itemizedlist``/``orderedlist``, and
tables ``informaltable`` rows and entries, all as UTF-8 (Chinese included). Measured on
the fixtures and the 872-page handbook converted to .doc (``bench/bench_formats.py``):
antiword's DocBook costs about what its plain text does, and this module adds only an
lxml walk. LibreOffice would convert more faithfully but is a 300 MB install and seconds
per file; python libraries that read .doc (textract, docx2txt) shell out to antiword too.

antiword's DocBook writer gives up on some documents ("Impossible tag sequence": nested
emphasis across a page break, as in the 872-page handbook); those are read again in its
plain-text mode (``-w 0``: one line per paragraph, tables as ``|cell|cell|`` rows), with a
warning that headings then come from wording only.

Limits (antiword's): no page numbers (the binary format has none without layout), text
boxes and comments are not read, and a heading whose style antiword does not recognise
is a paragraph -- then promoted only by its wording ("第一章 …", "1.1 …") as everywhere.

An encrypted file is decrypted in memory (:func:`indexing.parsing.legacy_ole.open_legacy`)
and handed to antiword through an anonymous memory file, so no plaintext touches the disk.
Without the ``antiword`` program the file is refused as ``unsupported``, naming the fix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lxml import etree

from indexing.parsing.headings import heading_level
from indexing.parsing.legacy import WPS_NATIVE
from indexing.parsing.legacy_ole import open_legacy
from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["docbook_to_blocks", "parse_doc", "plain_to_blocks"]

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True, recover=True)
_SECTIONS = {"chapter": 1, "preface": 1, "appendix": 1, "sect1": 2, "sect2": 3, "sect3": 4, "sect4": 5, "sect5": 6}
_LISTS = ("itemizedlist", "orderedlist")
_TABLES = ("informaltable", "table")
# antiword's own wall-clock share of the parse time limit (the guard stops the worker at 100%).
_TIMEOUT_SHARE = 0.9


def _text(el: etree._Element) -> str:
    """Text of an element with antiword's layout newlines around each piece removed."""
    return " ".join(part.strip() for part in el.itertext() if part.strip())


class _Walker:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.notes: list[Block] = []

    def walk(self, el: etree._Element, depth: int = 0) -> None:
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in _SECTIONS:
                self.section(child, _SECTIONS[tag])
            elif tag == "para":
                self.para(child)
            elif tag in _LISTS:
                self.list(child)
            elif tag in _TABLES:
                self.table(child)
            elif tag in ("bookinfo", "title", "beginpage"):
                continue
            elif depth < 50:
                self.walk(child, depth + 1)

    def section(self, el: etree._Element, level: int) -> None:
        title = el.find("title")
        if title is not None and _text(title):
            self.blocks.append(Block(type=BlockType.HEADING, text=_text(title), level=level))
        self.walk(el)

    def para(self, el: etree._Element) -> None:
        """A paragraph's own text; tables, lists and footnotes inside it become blocks of their own."""
        parts: list[str] = [el.text or ""]
        nested: list[etree._Element] = []
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in _TABLES or tag in _LISTS:
                nested.append(child)
            elif tag == "footnote":
                note = _text(child)
                if note:
                    self.notes.append(Block(type=BlockType.PARAGRAPH, text=note, role=BlockRole.FOOTNOTE))
            else:
                parts.append("".join(child.itertext()))
            parts.append(child.tail or "")
        text = " ".join(line.strip() for line in "".join(parts).splitlines() if line.strip())
        if text:
            level = heading_level(text)
            kind = BlockType.HEADING if level is not None else BlockType.PARAGRAPH
            self.blocks.append(Block(type=kind, text=text, level=level))
        for child in nested:
            self.table(child) if child.tag in _TABLES else self.list(child)

    def list(self, el: etree._Element) -> None:
        items = [_text(item) for item in el.iter("listitem")]
        items = [item for item in items if item]
        if items:
            self.blocks.append(Block(type=BlockType.LIST, text="\n".join(items), items=items))

    def table(self, el: etree._Element) -> None:
        head = [[_text(entry) for entry in row.iter("entry")] for row in el.iterfind(".//thead/row")]
        body = [[_text(entry) for entry in row.iter("entry")] for row in el.iterfind(".//tbody/row")]
        rows = [row for row in head + body if any(row)]
        if not rows:
            return
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        n_head = len([row for row in head if any(row)]) or 1
        if len(rows) == 1:
            self.blocks.append(Block(type=BlockType.PARAGRAPH, text=" ".join(cell for cell in rows[0] if cell)))
            return
        self.blocks.append(Block.table(rows[:n_head], rows[n_head:]))


def plain_to_blocks(text: str) -> list[Block]:
    """Blocks of antiword's plain-text output: ``|a |b |`` runs are tables, the rest goes through the text rules."""
    from indexing.parsing.text import text_to_blocks

    blocks: list[Block] = []
    prose: list[str] = []
    table: list[list[str]] = []

    def flush_table() -> None:
        if len(table) >= 2:
            width = max(len(row) for row in table)
            rows = [row + [""] * (width - len(row)) for row in table]
            blocks.append(Block.table(rows[:1], rows[1:]))
        elif table:
            prose.append(" ".join(cell for cell in table[0] if cell))
        table.clear()

    for line in text.replace("\f", "\n").splitlines():
        stripped = line.strip()
        if len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|"):
            if prose:
                blocks.extend(text_to_blocks("\n".join(prose)))
                prose.clear()
            table.append([cell.strip() for cell in stripped[1:-1].split("|")])
            continue
        flush_table()
        prose.append("" if stripped == "[pic]" else line)
    flush_table()
    blocks.extend(text_to_blocks("\n".join(prose)))
    return blocks


def docbook_to_blocks(xml: bytes) -> list[Block]:
    """Blocks of antiword's DocBook output (uncleaned); footnotes come last."""
    root = etree.fromstring(xml, parser=_PARSER)
    if root is None:
        return []
    walker = _Walker()
    walker.walk(root)
    return walker.blocks + walker.notes


def _is_ole(path: Path) -> bool:
    from indexing.parsing.sniff import CFB_MAGIC

    try:
        with path.open("rb") as fh:
            return fh.read(len(CFB_MAGIC)) == CFB_MAGIC
    except OSError:
        return True  # open_legacy names the read error


@contextmanager
def _file_for(path: Path, data: bytes, decrypted: bool) -> Iterator[tuple[str, tuple[int, ...]]]:
    """A path antiword can open: the file itself, or an anonymous memory file holding the decrypted bytes."""
    if not decrypted:
        yield str(path), ()
        return
    fd = os.memfd_create("officeqa-doc")
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        yield f"/dev/fd/{fd}", (fd,)
    finally:
        os.close(fd)


def _stderr_lines(stderr: bytes, target: str, path: Path) -> list[str]:
    """antiword's messages, with the path it was given replaced by the file's name (no server paths in refusals)."""
    text = stderr.decode("utf-8", "replace").replace(target, path.name)
    return [line for line in text.strip().splitlines() if line.strip()]


def _antiword(path: Path, command: list[str], fds: tuple[int, ...], settings: ParsingSettings) -> Any:
    try:
        return subprocess.run(
            command, capture_output=True, timeout=settings.timeout_s * _TIMEOUT_SHARE, pass_fds=fds, check=False
        )
    except subprocess.TimeoutExpired as exc:
        message = f"antiword took longer than {exc.timeout:g} s"
        raise UnreadableDocument(str(path), RefusalKind.TIMEOUT, message) from exc


def parse_doc(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a Word 97-2003 binary file (decrypted in memory when a password is given) into blocks."""
    antiword = shutil.which("antiword")
    if antiword is None:
        raise UnreadableDocument(
            str(path),
            RefusalKind.UNSUPPORTED,
            "Word 97-2003 (.doc) needs the antiword program (apt-get install antiword); or save the file as .docx",
        )
    if _is_ole(path):
        data, decrypted = open_legacy(path, password, "doc")
    else:  # Word 1.x/2.0 (routed here by its FIB ident): no container to check, no encryption to undo
        data, decrypted = b"", False
    warnings: list[str] = []
    with _file_for(path, data, decrypted) as (target, fds):
        proc = _antiword(path, [antiword, "-x", "db", target], fds, settings)
        message = _stderr_lines(proc.stderr, target, path)
        if proc.returncode == 0 and proc.stdout.strip():
            blocks = docbook_to_blocks(proc.stdout)
        else:
            reason = message[0] if message else f"antiword exit code {proc.returncode}"
            if "ncrypted" in reason:
                raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, f"antiword cannot read it: {reason}")
            if "not a Word Document" in reason or "not contain a Word document" in reason:  # sound, another format
                refusal = f"not a Word document antiword reads ({reason})"
                refusal = WPS_NATIVE if path.suffix.lower() == ".wps" else refusal
                raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, refusal)
            proc = _antiword(path, [antiword, "-w", "0", target], fds, settings)
            if proc.returncode != 0 or not proc.stdout.strip():
                raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"antiword cannot read it: {reason}")
            warnings.append(f"antiword's DocBook mode failed ({reason}); read as plain text (headings by wording)")
            blocks = plain_to_blocks(proc.stdout.decode("utf-8", "replace"))
            message = _stderr_lines(proc.stderr, target, path)
    if not blocks and message:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"antiword cannot read it: {message[0]}")
    warnings.extend(f"antiword: {line}" for line in message[:3])
    title = next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    return ParsedDocument(path=str(path), file_type="doc", blocks=blocks, title=title, warnings=warnings)
