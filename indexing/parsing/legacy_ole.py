"""Open a Word/Excel/PowerPoint 97-2003 file: check the OLE container, decrypt it in memory when needed.

Why one module: the three legacy readers meet the same cases at the door and must refuse
them the same way, as :mod:`indexing.parsing.ooxml` does for the zip formats.

- A password-protected legacy file keeps its OLE container but encrypts the document
  stream (RC4 or RC4 CryptoAPI). msoffcrypto-tool recognises all three (doc97, xls97,
  ppt97) and, with the right password, decrypts into bytes held in memory; without one,
  or with a wrong one, the file is refused as ``encrypted``.
- A container whose directory or main stream cannot be read is refused as ``corrupt``
  before a reader meets it (a truncated file otherwise fails deep inside a parser).
"""

from __future__ import annotations

import io
from pathlib import Path

from officeqa.errors import RefusalKind, UnreadableDocument

__all__ = ["MAIN_STREAMS", "check_container", "open_legacy"]

# The stream that holds each format's document; its absence or damage makes the file unreadable.
MAIN_STREAMS = {"doc": ("WordDocument",), "xls": ("Workbook", "Book"), "ppt": ("PowerPoint Document",)}


def check_container(path: Path, data: bytes, kind: str) -> None:
    """Refuse (corrupt) an OLE file whose directory or main stream cannot be read in full."""
    import olefile

    try:
        with olefile.OleFileIO(data) as ole:
            names = [name for name in MAIN_STREAMS[kind] if ole.exists(name)]
            if not names:
                raise UnreadableDocument(
                    str(path), RefusalKind.CORRUPT, f"no {MAIN_STREAMS[kind][0]} stream: not a {kind} file"
                )
            size = ole.get_size(names[0])
            stream = ole.openstream(names[0]).read()
            if len(stream) < size:
                raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"the {names[0]} stream is truncated")
    except UnreadableDocument:
        raise
    except (OSError, ValueError, IndexError, KeyError, EOFError) as exc:  # olefile's errors for damaged sectors
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged OLE container: {exc}") from exc


def open_legacy(path: Path, password: str | None, kind: str) -> tuple[bytes, bool]:
    """(bytes of a readable legacy file, whether they were decrypted with ``password``).

    Raises UnreadableDocument with kind encrypted (no or wrong password) or corrupt.
    """
    import msoffcrypto
    from msoffcrypto import exceptions as mso_errors

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the file: {exc}") from exc
    check_container(path, data, kind)
    try:
        office = msoffcrypto.OfficeFile(io.BytesIO(data))
        encrypted = office.is_encrypted()
    except (mso_errors.FileFormatError, mso_errors.ParseError, OSError, ValueError, KeyError, IndexError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged {kind} file: {exc}") from exc
    if not encrypted:
        return data, False
    if not password:
        raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, "password-protected; give the password to read it")
    out = io.BytesIO()
    try:
        office.load_key(password=password)
        office.decrypt(out)
    except mso_errors.InvalidKeyError as exc:
        raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, "wrong password") from exc
    except (mso_errors.DecryptionError, mso_errors.ParseError, mso_errors.FileFormatError, AssertionError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, f"cannot decrypt: {exc}") from exc
    except (ValueError, KeyError, OSError, IndexError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged encrypted {kind} file: {exc}") from exc
    return out.getvalue(), True
