"""What a file really is, read from its first bytes and its container's directory.

Why content and not the suffix: WPS Office saves Writer, Spreadsheets and Presentation
files as ``.wps``/``.et``/``.dps`` in the Word/Excel/PowerPoint 97 binary formats (OLE
compound files) or, in newer versions, as Office Open XML zips; users rename ``.docx`` to
``.doc``; mail clients save attachments under whatever name the sender chose; and
Microsoft Works also wrote ``.wps`` files (a different format). The legacy suffixes are
therefore routed by what the file holds:

- an OLE compound file (``D0 CF 11 E0``) by its streams: ``WordDocument`` -> doc,
  ``Workbook``/``Book`` -> xls, ``PowerPoint Document`` -> ppt, ``__substg1.0_*`` ->
  msg, ``EncryptedPackage`` -> a password-protected OOXML package, ``CONTENTS`` (Works
  2000 and later) or ``MM`` + ``MN0`` (Works 3 and 4 word processor) -> Microsoft Works,
  ``PP40`` -> PowerPoint 4.0 (stream names compared without case, as the format says);
- a Word 1.x/2.0 FIB ident at offset 0 (not OLE) -> word2; ``<?xml`` naming ``Word.Document``
  -> wordml (Word 2003 XML saved as .doc);
- a zip by its parts: ``[Content_Types].xml`` with ``word/``/``xl/``/``ppt/`` ->
  docx/xlsx/pptx, a ``mimetype`` member -> odt/ods/odp;
- ``{\\rtf`` -> rtf; ``%PDF`` -> pdf; a leading ``<html``/``<table`` -> html (Excel's
  "save as web page" .xls).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from officeqa.errors import RefusalKind, UnreadableDocument

__all__ = ["CFB_MAGIC", "ODF_MIMETYPES", "sniff"]

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ODF_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
    "application/vnd.oasis.opendocument.text-template": "odt",
    "application/vnd.oasis.opendocument.spreadsheet-template": "ods",
    "application/vnd.oasis.opendocument.presentation-template": "odp",
}
_HEAD_BYTES = 1024
# Word for Windows 1.x/2.0 files are not OLE: they open with the FIB ident itself (antiword reads them).
_WORD2_IDENTS = (b"\x9b\xa5", b"\xdb\xa5")


def sniff(path: Path) -> str:
    """The format of ``path``: doc, word2, xls, ppt, msg, ooxml_encrypted, works, ppt4, wordml, docx, xlsx, pptx,
    odt, ods, odp, rtf, pdf, html, or "unknown".

    Raises UnreadableDocument (corrupt) for an OLE file whose directory cannot be read.
    """
    with path.open("rb") as fh:
        head = fh.read(_HEAD_BYTES)
    if head.startswith(CFB_MAGIC):
        return _ole_kind(path)
    if head.startswith(b"PK\x03\x04") or zipfile.is_zipfile(path):
        return _zip_kind(path)
    if head[:2] in _WORD2_IDENTS:
        return "word2"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"<?xml") and b"Word.Document" in head:
        return "wordml"
    if stripped.startswith(b"{\\rtf"):
        return "rtf"
    if stripped.startswith(b"%PDF"):
        return "pdf"
    lowered = stripped[:200].lower()
    if lowered.startswith((b"<html", b"<!doctype html", b"<table", b"<meta")):
        return "html"
    return "unknown"


def _ole_kind(path: Path) -> str:
    import olefile

    try:
        with olefile.OleFileIO(str(path)) as ole:
            # stream names are case-insensitive ([MS-CFB] 2.6.4); some writers save "worddocument"
            top = {entry[0].lower() for entry in ole.listdir(streams=True, storages=True)}
    except (OSError, ValueError, IndexError, KeyError) as exc:  # olefile raises OSError for a damaged directory
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged OLE container: {exc}") from exc
    if "encryptedpackage" in top:
        return "ooxml_encrypted"
    if "worddocument" in top:
        return "doc"
    if "workbook" in top or "book" in top:
        return "xls"
    if "powerpoint document" in top:
        return "ppt"
    if any(name.startswith("__substg1.0_") for name in top):
        return "msg"
    if "contents" in top or {"mm", "mn0"} <= top:  # Works 2000+ and Works 3/4 word processor files
        return "works"
    if "pp40" in top:
        return "ppt4"
    return "unknown"


def _zip_kind(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "mimetype" in names:
                mimetype = archive.read("mimetype").decode("ascii", "replace").strip()
                return ODF_MIMETYPES.get(mimetype, "unknown")
    except (zipfile.BadZipFile, OSError, EOFError, KeyError):
        return "unknown"
    if "[Content_Types].xml" in names:
        for prefix, kind in (("word/", "docx"), ("xl/", "xlsx"), ("ppt/", "pptx")):
            if any(name.startswith(prefix) for name in names):
                return kind
    return "unknown"
