"""Open an Office Open XML file (docx/xlsx/pptx), decrypting it in memory when needed.

Why one module: the three Office parsers meet the same three cases at the door and must
refuse them the same way.

- A password-protected OOXML file is not a zip at all: Office wraps the encrypted package
  in an OLE/CFB container. With the right password msoffcrypto-tool decrypts it into an
  in-memory zip (nothing decrypted ever touches the disk); without one, or with a wrong
  one, the file is refused as ``encrypted``.
- A truncated or otherwise broken file is refused as ``corrupt`` before any library gets
  to raise its own exception type.
- A legacy binary file (.doc/.xls/.ppt renamed to an OOXML suffix) is a CFB container
  without encryption: refused as ``unsupported``.
- A zip bomb (a 4.6 MB docx whose document.xml inflates to 1.2 GB took 7-8 GB to parse) is
  refused as ``too_large`` from the zip's central directory, BEFORE any member is inflated:
  no member may inflate beyond ``parsing.max_inflated_member_mb`` and all of them together
  beyond ``parsing.max_inflated_total_mb`` (:func:`check_archive_limits`, also for ODF). The
  declared sizes are binding for Python's zipfile (it stops at the declared size and then
  fails the CRC check), and the worker's memory cap (``guard.py``) backs up the libraries
  that inflate on their own.

Errors raised later by python-docx/openpyxl/python-pptx/lxml while reading a package that
opened fine are wrapped by :func:`corrupt_on_error`.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from lxml import etree

from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

# No network, no entity expansion, big text nodes allowed (long cells, 800-page bodies).
SAFE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

# Foreign exceptions that mean "this package is damaged" once the zip itself opened.
PACKAGE_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    KeyError,
    EOFError,
    etree.XMLSyntaxError,
    ValueError,
    OSError,
)


_MB = 1024 * 1024


def open_ooxml(path: Path, password: str | None, settings: ParsingSettings | None = None) -> BinaryIO:
    """A readable, seekable zip stream of the package at ``path``.

    Returns the opened file itself for a plain package and a BytesIO holding the
    decrypted package for an encrypted one; the caller closes it.
    Raises UnreadableDocument with kind encrypted, corrupt, unsupported or too_large
    (inflated sizes above ``settings``' limits).
    """
    settings = settings or ParsingSettings()
    with path.open("rb") as fh:
        magic = fh.read(len(CFB_MAGIC))
    if magic == CFB_MAGIC:
        return _decrypt(path, password, settings)
    if not zipfile.is_zipfile(path):
        raise UnreadableDocument(
            str(path), RefusalKind.CORRUPT, "not a valid Office file (not a zip; truncated or damaged)"
        )
    stream = path.open("rb")
    try:
        _check_zip(path, stream, settings)
    except UnreadableDocument:
        stream.close()
        raise
    return stream


def _check_zip(path: Path, stream: BinaryIO, settings: ParsingSettings) -> None:
    """Fail early on a zip whose directory is readable but whose members are not, or would inflate too far."""
    try:
        with zipfile.ZipFile(stream) as archive:
            names = archive.namelist()
            check_archive_limits(path, archive, settings)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged zip container: {exc}") from exc
    finally:
        stream.seek(0)
    if "[Content_Types].xml" not in names:
        raise UnreadableDocument(
            str(path), RefusalKind.CORRUPT, "zip without [Content_Types].xml: not an Office package"
        )


def check_archive_limits(path: Path, archive: zipfile.ZipFile, settings: ParsingSettings) -> None:
    """Refuse a zip (OOXML, ODF) whose members would inflate beyond the limits, from its directory alone."""
    infos = archive.infolist()
    if not infos:
        return
    member_cap = settings.max_inflated_member_mb * _MB
    biggest = max(infos, key=lambda info: info.file_size)
    if biggest.file_size > member_cap:
        raise UnreadableDocument(
            str(path),
            RefusalKind.TOO_LARGE,
            f"zip member {biggest.filename} inflates to {biggest.file_size / _MB:.0f} MB, above the "
            f"{settings.max_inflated_member_mb:g} MB limit (raise parsing.max_inflated_member_mb to allow it)",
        )
    total = sum(info.file_size for info in infos)
    if total > settings.max_inflated_total_mb * _MB:
        raise UnreadableDocument(
            str(path),
            RefusalKind.TOO_LARGE,
            f"the package inflates to {total / _MB:.0f} MB, above the {settings.max_inflated_total_mb:g} MB limit "
            "(raise parsing.max_inflated_total_mb to allow it)",
        )


def _decrypt(path: Path, password: str | None, settings: ParsingSettings) -> BinaryIO:
    import msoffcrypto
    from msoffcrypto import exceptions as mso_errors

    with path.open("rb") as fh:
        try:
            office = msoffcrypto.OfficeFile(fh)
            encrypted = office.is_encrypted()
        except (mso_errors.FileFormatError, mso_errors.ParseError, OSError, ValueError, KeyError) as exc:
            raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged OLE container: {exc}") from exc
        if not encrypted:
            raise UnreadableDocument(
                str(path), RefusalKind.UNSUPPORTED, "legacy binary Office file (OLE), not Office Open XML"
            )
        if not password:
            raise UnreadableDocument(
                str(path), RefusalKind.ENCRYPTED, "password-protected; give the password to read it"
            )
        out = io.BytesIO()
        try:
            office.load_key(password=password, verify_password=True)
            office.decrypt(out)
        except mso_errors.InvalidKeyError as exc:
            raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, "wrong password") from exc
        except (mso_errors.DecryptionError, mso_errors.ParseError, mso_errors.FileFormatError) as exc:
            raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, f"cannot decrypt: {exc}") from exc
        except (ValueError, KeyError, OSError) as exc:
            raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"damaged encrypted package: {exc}") from exc
    out.seek(0)
    _check_zip(path, out, settings)
    return out


@contextmanager
def corrupt_on_error(path: Path, what: str) -> Iterator[None]:
    """Turn a library's exception while reading a package into a ``corrupt`` refusal."""
    try:
        yield
    except UnreadableDocument:
        raise
    except PACKAGE_ERRORS as exc:
        raise UnreadableDocument(
            str(path), RefusalKind.CORRUPT, f"cannot read {what}: {type(exc).__name__}: {exc}"
        ) from exc


def read_core_title(archive: zipfile.ZipFile) -> str | None:
    """dc:title from docProps/core.xml, or None when absent or blank."""
    try:
        data = archive.read("docProps/core.xml")
    except KeyError:
        return None
    try:
        root = etree.fromstring(data, parser=SAFE_PARSER)
    except etree.XMLSyntaxError:
        return None
    node = root.find("{http://purl.org/dc/elements/1.1/}title")
    title = (node.text or "").strip() if node is not None else ""
    return title or None


REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"


def read_xml(archive: zipfile.ZipFile, name: str) -> etree._Element | None:
    """A package part parsed with the safe parser, or None when the part is missing."""
    try:
        data = archive.read(name)
    except KeyError:
        return None
    return etree.fromstring(data, parser=SAFE_PARSER)


def relationships(archive: zipfile.ZipFile, part: str) -> list[tuple[str, str, str]]:
    """(type suffix such as "styles", target part name, relationship id) of a part ("" = the package), in order."""
    source = PurePosixPath(part)
    folder = source.parent
    root = read_xml(archive, str(folder / "_rels" / (source.name + ".rels")))
    if root is None:
        return []
    out: list[tuple[str, str, str]] = []
    for rel in root.iter(f"{{{REL_NS}}}Relationship"):
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target") or ""
        kind = (rel.get("Type") or "").rsplit("/", 1)[-1]
        name = target.lstrip("/") if target.startswith("/") else _normalize(folder / target)
        out.append((kind, name, rel.get("Id") or ""))
    return out


def main_part(archive: zipfile.ZipFile, default: str) -> str:
    """The package's main part (word/document.xml, xl/workbook.xml, ...) as its root relationship names it."""
    for kind, name, _rid in relationships(archive, ""):
        if kind == "officeDocument":
            return name
    return default


def _normalize(path: PurePosixPath) -> str:
    parts: list[str] = []
    for piece in path.parts:
        if piece == "..":
            if parts:
                parts.pop()
        elif piece not in (".", ""):
            parts.append(piece)
    return "/".join(parts)
