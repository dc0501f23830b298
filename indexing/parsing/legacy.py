"""Route the legacy and WPS suffixes (.doc .xls .ppt .wps .et .dps) to a parser by content.

Why: these names say less than the bytes do (see :mod:`indexing.parsing.sniff`). A WPS
``.et`` may be a BIFF8 workbook or an xlsx zip, a ``.doc`` may be RTF or a renamed docx, and
an encrypted OOXML package is an OLE file whatever its suffix; each goes to the parser of
what it is, with a warning when that is not what the suffix says. A Microsoft Works
``.wps`` and files that are neither OLE nor zip are refused with the reason. A ``.wps`` in
Kingsoft's own older format (WPS 2000 to WPS Office 2003: neither OOXML nor a Word file
antiword reads -- antiword answers "is not a Word Document", see :mod:`indexing.parsing.doc`)
is refused as ``unsupported`` naming that format, never as ``corrupt``: the file is sound,
only no reader here knows it.
"""

from __future__ import annotations

from pathlib import Path

from indexing.parsing.sniff import sniff
from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["EXPECTED_KIND", "WPS_NATIVE", "parse_by_content"]

# Kingsoft's own word-processor format (WPS 2000 to WPS Office 2003): .wps files that are neither Word 97-2003
# binary (what WPS Office 2005 and later write) nor OOXML; no reader outside WPS Office opens them.
WPS_NATIVE = "a WPS Office 2003-era document (Kingsoft's own format, not Word 97-2003); save it as .docx in WPS Office"

# suffix -> the format it normally holds
EXPECTED_KIND = {".doc": "doc", ".wps": "doc", ".xls": "xls", ".et": "xls", ".ppt": "ppt", ".dps": "ppt"}
# A password-protected OOXML package is an OLE file: its suffix says which OOXML parser decrypts it.
_ENCRYPTED_OOXML = {"doc": ".docx", "xls": ".xlsx", "ppt": ".pptx"}
# Formats that a legacy suffix may hold and no reader here knows: the refusal names them and the fix.
_OTHER_FORMATS = {
    "ppt4": "a PowerPoint 4.0 presentation (1994 format, not PowerPoint 97-2003); save it as .pptx",
    "wordml": "a Word 2003 XML document under a binary suffix; open it in Word or LibreOffice, save it as .docx",
}
_KIND_SUFFIX = {
    "doc": "binary:doc",
    "word2": "binary:doc",
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
    if kind in _OTHER_FORMATS:
        raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, _OTHER_FORMATS[kind])
    if kind == "works":
        raise UnreadableDocument(
            str(path),
            RefusalKind.UNSUPPORTED,
            "a Microsoft Works document, not a WPS Office file; open it in LibreOffice and save it as .docx",
        )
    if kind == "unknown" and suffix == ".wps":
        raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, WPS_NATIVE)
    if kind == "unknown":
        raise UnreadableDocument(
            str(path),
            RefusalKind.CORRUPT,
            f"not a {expected} file: neither an OLE compound file nor an Office zip (damaged or another format)",
        )
    route = _ENCRYPTED_OOXML[expected] if kind == "ooxml_encrypted" else _KIND_SUFFIX[kind]
    document = load_parser(route)(path, password, settings)
    if kind not in (expected, "ooxml_encrypted", "word2"):
        document.warnings.append(f"the file holds {kind}, not the {expected} its suffix {suffix} names")
    return document
