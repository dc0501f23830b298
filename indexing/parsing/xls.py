"""Excel 97-2003 (.xls, WPS Spreadsheets' .et) and OpenDocument spreadsheets (.ods) -> blocks.

Why python-calamine: it already reads .xlsx here, and the same Rust reader handles BIFF8
workbooks and ODF spreadsheets (values, cached formula results, real dates), so every
workbook format goes through the one layout of :mod:`indexing.parsing.xlsx` (sheet
headings, bands, header rows, side-by-side tables). Measured against the alternatives
(``bench/bench_formats.py``): xlrd is unmaintained for .xls, and odfpy builds a Python DOM
of the whole ``content.xml`` -- on the 50k-row ODS it is tens of times slower than calamine.

Doors: an .xls is first checked and, when password-protected, decrypted in memory by
:func:`indexing.parsing.legacy_ole.open_legacy` (calamine itself only says "password
protected"); an .ods is a zip that calamine opens directly, and an encrypted .ods (ODF
encryption, which no library here reads) is refused as ``encrypted`` by its manifest.
Chart sheets and macro sheets are skipped; hidden sheets are read like visible ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexing.parsing.legacy_ole import open_legacy
from indexing.parsing.xlsx import calamine_sheets_to_blocks
from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_ods", "parse_xls"]


def _open(path: Path, source: Any) -> Any:
    from python_calamine import CalamineError, CalamineWorkbook, PasswordError

    try:
        if isinstance(source, str):
            return CalamineWorkbook.from_path(source)
        return CalamineWorkbook.from_filelike(source)
    except PasswordError as exc:
        raise UnreadableDocument(str(path), RefusalKind.ENCRYPTED, f"password-protected: {exc}") from exc
    except (CalamineError, OSError, ValueError) as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the workbook: {exc}") from exc


def _worksheets(workbook: Any) -> list[str]:
    from python_calamine import SheetTypeEnum

    return [meta.name for meta in workbook.sheets_metadata if meta.typ == SheetTypeEnum.WorkSheet]


def _document(path: Path, workbook: Any, file_type: str, settings: ParsingSettings) -> ParsedDocument:
    blocks, warnings = calamine_sheets_to_blocks(path, workbook, _worksheets(workbook), settings)
    return ParsedDocument(
        path=str(path),
        file_type=file_type,
        blocks=blocks,
        title=blocks[0].text if blocks else None,
        warnings=warnings,
    )


def parse_xls(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a BIFF8 workbook (decrypted in memory when a password is given) into blocks."""
    import io

    data, _decrypted = open_legacy(path, password, "xls")
    return _document(path, _open(path, io.BytesIO(data)), "xls", settings)


def parse_ods(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse an OpenDocument spreadsheet into blocks."""
    from indexing.parsing.odf import check_odf

    del password  # ODF encryption is refused in check_odf: no library here decrypts it
    check_odf(path, "ods")
    return _document(path, _open(path, str(path)), "ods", settings)
