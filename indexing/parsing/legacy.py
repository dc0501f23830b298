"""Route the legacy and WPS suffixes (.doc .xls .ppt .wps .et .dps) to a parser by content.

Why: these names say less than the bytes do (see :mod:`indexing.parsing.sniff`). A WPS
``.et`` may be a BIFF8 workbook or an xlsx zip, a ``.doc`` may be RTF or a renamed docx, and
an encrypted OOXML package is an OLE file whatever its suffix; each goes to the parser of
what it is, with a warning when that is not what the suffix says. A Microsoft Works
``.wps`` and files that are neither OLE nor zip are refused with the reason.
"""

from __future__ import annotations

from pathlib import Path

from indexing.parsing.sniff import sniff
from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["EXPECTED_KIND", "parse_by_content"]

# suffix -> the format it normally holds
EXPECTED_KIND = {".doc": "doc", ".wps": "doc", ".xls": "xls", ".et": "xls", ".ppt": "ppt", ".dps": "ppt"}
# A password-protected OOXML package is an OLE file: its suffix says which OOXML parser decrypts it.
_ENCRYPTED_OOXML = {"doc": ".docx", "xls": ".xlsx", "ppt": ".pptx"}
_KIND_SUFFIX = {
    "doc": "binary:doc",
    "xls": "binary:xls",
    "ppt": "binary:ppt",
    "docx": ".docx",
    "xlsx": ".xlsx",
    "pptx": ".pptx",
    "odt": ".odt",
    "ods": ".ods",
    "odp": ".odp",
    "rtf": ".rtf",
    "pdf": ".pdf",
    "html": ".html",
    "msg": ".msg",
}


def parse_by_content(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a .doc/.xls/.ppt/.wps/.et/.dps file with the parser for what its bytes are."""
    from indexing.parsing.dispatch import load_parser

    suffix = path.suffix.lower()
    expected = EXPECTED_KIND.get(suffix, "doc")
    kind = sniff(path)
    if kind == "works":
        raise UnreadableDocument(
            str(path),
            RefusalKind.UNSUPPORTED,
            "a Microsoft Works document, not a WPS Office file; open it in LibreOffice and save it as .docx",
        )
    if kind == "unknown":
        raise UnreadableDocument(
            str(path),
            RefusalKind.CORRUPT,
            f"not a {expected} file: neither an OLE compound file nor an Office zip (damaged or another format)",
        )
    route = _ENCRYPTED_OOXML[expected] if kind == "ooxml_encrypted" else _KIND_SUFFIX[kind]
    document = load_parser(route)(path, password, settings)
    if kind not in (expected, "ooxml_encrypted"):
        document.warnings.append(f"the file holds {kind}, not the {expected} its suffix {suffix} names")
    return document
