"""Choose the parser for a file, guard its size, clean its blocks, refuse empty output."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

Parser = Callable[[Path, str | None, ParsingSettings], ParsedDocument]

# suffix -> "module:function"; imported lazily so `officeqa parse x.txt` never loads pdfium or onnxruntime.
_PARSERS: dict[str, str] = {
    ".docx": "indexing.parsing.docx:parse_docx",
    ".pdf": "indexing.parsing.pdf:parse_pdf",
    ".xlsx": "indexing.parsing.xlsx:parse_xlsx",
    ".xlsm": "indexing.parsing.xlsx:parse_xlsx",
    ".pptx": "indexing.parsing.pptx:parse_pptx",
    ".csv": "indexing.parsing.csv:parse_csv",
    ".tsv": "indexing.parsing.csv:parse_csv",
    ".md": "indexing.parsing.markdown:parse_markdown",
    ".markdown": "indexing.parsing.markdown:parse_markdown",
    ".txt": "indexing.parsing.text:parse_text",
    ".text": "indexing.parsing.text:parse_text",
    ".html": "indexing.parsing.html:parse_html",
    ".htm": "indexing.parsing.html:parse_html",
}

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(_PARSERS)


def _load_parser(suffix: str) -> Parser:
    module_name, func_name = _PARSERS[suffix].split(":")
    return getattr(importlib.import_module(module_name), func_name)


def parse_file(
    path: str | Path, *, password: str | None = None, settings: ParsingSettings | None = None
) -> ParsedDocument:
    """Parse one file into cleaned blocks.

    Raises UnreadableDocument (kind: unsupported, too_large, empty, encrypted, corrupt,
    no_text_layer) naming the file; never returns a document without text.
    """
    from indexing.cleaning import clean_blocks

    settings = settings or ParsingSettings()
    path = Path(path)
    if not path.is_file():
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "file not found or not a regular file")
    suffix = path.suffix.lower()
    if suffix not in _PARSERS:
        raise UnreadableDocument(
            str(path), RefusalKind.UNSUPPORTED, f"unsupported file type {suffix or '(no suffix)'!r}"
        )
    size = path.stat().st_size
    if size == 0:
        raise UnreadableDocument(str(path), RefusalKind.EMPTY, "the file is 0 bytes")
    if size > settings.max_file_mb * 1024 * 1024:
        raise UnreadableDocument(
            str(path),
            RefusalKind.TOO_LARGE,
            f"{size / 1024 / 1024:.1f} MB is above the {settings.max_file_mb:g} MB limit (parsing.max_file_mb)",
        )
    document = _load_parser(suffix)(path, password, settings)
    document.blocks = clean_blocks(document.blocks)
    if not any(block.text.strip() for block in document.blocks):
        raise UnreadableDocument(str(path), RefusalKind.EMPTY, "no text found in the document")
    return document
