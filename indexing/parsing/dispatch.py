"""Choose the parser for a file, guard its size, clean its blocks, refuse empty output."""

from __future__ import annotations

import importlib
import importlib.util
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
    # legacy Office and WPS Office twins: routed by content (an .et may be BIFF8 or xlsx, a .doc RTF ...)
    ".doc": "indexing.parsing.legacy:parse_by_content",
    ".wps": "indexing.parsing.legacy:parse_by_content",
    ".xls": "indexing.parsing.legacy:parse_by_content",
    ".et": "indexing.parsing.legacy:parse_by_content",
    ".ppt": "indexing.parsing.legacy:parse_by_content",
    ".dps": "indexing.parsing.legacy:parse_by_content",
    ".odt": "indexing.parsing.odf:parse_odt",
    ".ods": "indexing.parsing.xls:parse_ods",
    ".odp": "indexing.parsing.odf:parse_odp",
    ".rtf": "indexing.parsing.rtf:parse_rtf",
    ".eml": "indexing.parsing.mail:parse_eml",
    ".msg": "indexing.parsing.msg:parse_msg",
}
# Binary legacy readers, reached through the content router above (never by a file's own suffix).
_BY_CONTENT: dict[str, str] = {
    "binary:doc": "indexing.parsing.doc:parse_doc",
    "binary:xls": "indexing.parsing.xls:parse_xls",
    "binary:ppt": "indexing.parsing.ppt:parse_ppt",
}
# Suffixes no native parser covers, read by unstructured when the optional extra is installed
# (pip install -e ".[unstructured]"); without it they stay unsupported and folders skip them.
FALLBACK_SUFFIXES: frozenset[str] = frozenset((".epub", ".org", ".rst"))
_FALLBACK = "indexing.parsing.unstructured_fallback:parse_with_unstructured"
if importlib.util.find_spec("unstructured") is not None:
    _PARSERS.update(dict.fromkeys(FALLBACK_SUFFIXES, _FALLBACK))

SUPPORTED_SUFFIXES: frozenset[str] = frozenset(_PARSERS)


def load_parser(suffix: str) -> Parser:
    """The parser function for a suffix (or one of the content router's internal routes)."""
    module_name, func_name = {**_PARSERS, **_BY_CONTENT}[suffix].split(":")
    return getattr(importlib.import_module(module_name), func_name)


def parse_file(
    path: str | Path, *, password: str | None = None, settings: ParsingSettings | None = None
) -> ParsedDocument:
    """Parse one file into cleaned blocks.

    Raises UnreadableDocument (kind: unsupported, too_large, empty, encrypted, corrupt,
    no_text_layer) naming the file; never returns a document without text.
    """
    from indexing.cleaning import clean_blocks

    document = parse_uncleaned(Path(path), password, settings or ParsingSettings())
    document.blocks = clean_blocks(document.blocks)
    if not any(block.text.strip() for block in document.blocks):
        raise UnreadableDocument(str(path), RefusalKind.EMPTY, "no text found in the document")
    return document


def parse_uncleaned(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """The checks and the format parser of :func:`parse_file`, without cleaning.

    Mail attachments go through here so that the mail's blocks are cleaned once, together.
    """
    if not path.is_file():
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, "file not found or not a regular file")
    suffix = path.suffix.lower()
    if suffix not in _PARSERS:
        hint = ""
        if suffix in FALLBACK_SUFFIXES:
            hint = ' (install the optional extra: pip install "officeqa[unstructured]")'
        raise UnreadableDocument(
            str(path), RefusalKind.UNSUPPORTED, f"unsupported file type {suffix or '(no suffix)'!r}{hint}"
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
    return load_parser(suffix)(path, password, settings)
