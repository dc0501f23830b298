"""Excel (.xlsx/.xlsm) -> blocks: every worksheet, as tables and the text around them.

Why python-calamine and not openpyxl: on a 50,000-row x 5-column sheet calamine reads
the values in 0.41 s against 2.66 s for openpyxl ``read_only=True, values_only=True``
(3.81 s when reading cells for their number formats; the whole parse: 1.5 s against
about 6x that on the streaming path), it reports merged ranges, which
openpyxl's read-only mode cannot, and it builds a sheet's range from the cells that hold
values, so a sheet whose ``<dimension>`` claims a million rows costs nothing. It returns
the cached values of formulas (what Excel last computed) and real date/time objects.
Rows are still consumed lazily and capped: reading stops after
``parsing.xlsx_max_empty_run`` consecutive empty rows and after ``parsing.xlsx_max_rows``
kept rows, each with a warning on the document. Sheets whose XML part is larger than
:data:`STREAM_ABOVE_BYTES` are streamed with openpyxl's read-only reader instead, so that
no sheet is ever held whole in memory; the same reader serves every sheet when
python-calamine is not installed.

Layout rules, per sheet (``sheet`` = the sheet name on every block):

- a heading (level 1) with the sheet name opens the sheet's blocks when it has content;
- rows are cut into bands at empty rows, and a band holding tables side by side (empty
  columns between them, different first/last rows) into one band per table; a band where
  each row holds at most one cell is text (a short line whose wording is a heading
  becomes one, the rest paragraphs; the line just above a table is also its caption);
- other bands are tables. Leading rows holding no numbers are the header (multi-row when
  they are several, or when a merged header cell spans rows); a band of header-only rows
  followed, after a blank row, by a data band is one table, and so is a data band that
  continues after a single blank row;
- merged cells repeat their value over the whole range, columns empty in a whole table
  are dropped, numbers are written without float noise (1.0 -> "1", 0.1+0.2 -> "0.3"),
  dates as ISO strings;
- chart sheets and empty sheets yield nothing.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from indexing.parsing.headings import heading_level
from indexing.parsing.limits import CellLimits
from indexing.parsing.ooxml import corrupt_on_error, main_part, open_ooxml, read_core_title, read_xml, relationships
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

# A sheet part (uncompressed XML) above this size is streamed with openpyxl rather than loaded by calamine.
STREAM_ABOVE_BYTES = 64 * 1024 * 1024
MAX_HEADER_ROWS = 3
# A text band (one cell per row) longer than this is read as a one-column table instead.
MAX_TEXT_BAND_ROWS = 5

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_CELL_REF = re.compile(r"^([A-Z]{1,3})(\d+)$")


# ---------------------------------------------------------------- cell values


def cell_text(value: Any) -> str:
    """A cell value as text: integers without ".0", floats without binary noise, dates in ISO form."""
    kind = type(value)  # exact-type fast paths first: this runs once per cell
    if kind is str:
        if "\n" in value or "\r" in value or "\t" in value or "  " in value:
            return " ".join(value.split())
        return value.strip()
    if kind is float:
        if math.isnan(value) or math.isinf(value):
            return ""
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return f"{value:.15g}"
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return cell_text(float(value))
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        return value.isoformat(timespec="seconds" if not value.microsecond else "auto")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return value.isoformat(timespec="seconds" if not value.microsecond else "auto")
    if isinstance(value, dt.timedelta):
        seconds = int(value.total_seconds())
        sign = "-" if seconds < 0 else ""
        hours, rest = divmod(abs(seconds), 3600)
        return f"{sign}{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return " ".join(str(value).split())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---------------------------------------------------------------- reading rows


@dataclass(slots=True)
class _Row:
    index: int  # 0-based sheet row
    cells: list[str]  # from sheet column 0
    numeric: tuple[int, ...]  # sheet columns holding numbers (not text that looks like one)

    @property
    def has_number(self) -> bool:
        return bool(self.numeric)

    @property
    def filled(self) -> int:
        return sum(1 for cell in self.cells if cell)


@dataclass(slots=True)
class _Sheet:
    name: str
    rows: list[_Row] = field(default_factory=list)
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)  # r0, c0, r1, c1 (0-based, inclusive)
    warnings: list[str] = field(default_factory=list)


RawRows = Iterator[tuple[int, int, list[Any]]]  # (sheet row, first column, values)


def _collect_rows(name: str, raw: RawRows, settings: ParsingSettings, sheet: _Sheet) -> None:
    """Keep the non-empty rows, stopping at a long empty run or at the row cap.

    Columns beyond ``parsing.max_columns`` are dropped and cells are cut to
    ``parsing.max_cell_chars`` before anything else touches them (a 1 MB workbook holding one
    100 MB shared string drove a parse past 14 GB), each with one warning per sheet.
    """
    limits = CellLimits(settings.max_columns, settings.max_cell_chars)
    try:
        _collect_capped_rows(name, raw, settings, sheet, limits)
    finally:
        sheet.warnings.extend(limits.warnings(f"sheet {name!r}"))


def _collect_capped_rows(
    name: str, raw: RawRows, settings: ParsingSettings, sheet: _Sheet, limits: CellLimits
) -> None:
    empty_run = 0
    for index, first_col, values in raw:
        values = limits.apply(values, first_col)
        cells = list(map(cell_text, values))
        if not any(cells):
            empty_run += 1
            if empty_run >= settings.xlsx_max_empty_run:
                sheet.warnings.append(
                    f"sheet {name!r}: stopped after {empty_run} consecutive empty rows at row {index + 1} "
                    "(parsing.xlsx_max_empty_run)"
                )
                return
            continue
        empty_run = 0
        if first_col:
            cells = [""] * first_col + cells
        while cells and not cells[-1]:
            cells.pop()
        numeric = tuple(first_col + i for i, v in enumerate(values) if _is_number(v))
        sheet.rows.append(_Row(index, cells, numeric))
        if len(sheet.rows) >= settings.xlsx_max_rows:
            sheet.warnings.append(
                f"sheet {name!r}: only the first {settings.xlsx_max_rows} non-empty rows were read "
                "(parsing.xlsx_max_rows)"
            )
            return


def _calamine_rows(sheet: Any) -> RawRows:
    """Calamine yields rows from sheet row 0 but columns from the range's first column."""
    start = sheet.start
    first_col = start[1] if start else 0
    for index, values in enumerate(sheet.iter_rows()):
        yield index, first_col, values


def _openpyxl_rows(stream: BinaryIO, name: str) -> RawRows:
    """Stream one sheet with openpyxl's read-only reader (used for very large sheet parts)."""
    import openpyxl

    stream.seek(0)
    workbook = openpyxl.load_workbook(stream, read_only=True, data_only=True)
    try:
        worksheet = workbook[name]
        worksheet.reset_dimensions()  # do not trust <dimension>: no padding to a claimed million rows
        for index, values in enumerate(worksheet.iter_rows(values_only=True)):
            yield index, 0, list(values)
    finally:
        workbook.close()


# ---------------------------------------------------------------- package facts calamine does not give


def _sheet_parts(archive: zipfile.ZipFile, workbook_part: str) -> dict[str, tuple[str, int]]:
    """Sheet name -> (part name, uncompressed size), in workbook order; only worksheets (not chart sheets)."""
    workbook = read_xml(archive, workbook_part)
    if workbook is None:
        return {}
    targets = {rid: name for kind, name, rid in relationships(archive, workbook_part) if kind == "worksheet"}
    sizes = {info.filename: info.file_size for info in archive.infolist()}
    out: dict[str, tuple[str, int]] = {}
    for sheet in workbook.iter(f"{{{_MAIN_NS}}}sheet"):
        part = targets.get(sheet.get(f"{{{_REL_NS}}}id") or "")
        if part is not None:
            out[sheet.get("name") or ""] = (part, sizes.get(part, 0))
    return out


def _column_number(letters: str) -> int:
    number = 0
    for char in letters:
        number = number * 26 + ord(char) - 64
    return number - 1


def _merged_from_xml(archive: zipfile.ZipFile, part: str) -> list[tuple[int, int, int, int]]:
    """``<mergeCell ref="A1:C2"/>`` ranges of a sheet part, scanned in chunks (they sit after the data)."""
    pattern = re.compile(rb'<(?:\w+:)?mergeCell\s+ref="([A-Z]+\d+):([A-Z]+\d+)"')
    out: list[tuple[int, int, int, int]] = []
    tail = b""
    with archive.open(part) as fh:
        while chunk := fh.read(1 << 20):
            data = tail + chunk
            for match in pattern.finditer(data):
                first, last = _CELL_REF.match(match.group(1).decode()), _CELL_REF.match(match.group(2).decode())
                if first and last:
                    out.append(
                        (
                            int(first.group(2)) - 1,
                            _column_number(first.group(1)),
                            int(last.group(2)) - 1,
                            _column_number(last.group(1)),
                        )
                    )
            tail = data[-200:]
    return sorted(set(out))


# ---------------------------------------------------------------- layout


@dataclass(slots=True)
class _Table:
    header: list[_Row]
    body: list[_Row]
    caption: str | None = None

    @property
    def last_index(self) -> int:
        return (self.body or self.header)[-1].index


def _bands(rows: list[_Row]) -> list[list[_Row]]:
    bands: list[list[_Row]] = []
    for row in rows:
        if bands and row.index == bands[-1][-1].index + 1:
            bands[-1].append(row)
        else:
            bands.append([row])
    return bands


def _filled_columns(rows: list[_Row]) -> set[int]:
    return {c for row in rows for c, cell in enumerate(row.cells) if cell}


def _overlap(upper: list[_Row], lower: list[_Row]) -> bool:
    return bool(_filled_columns(upper) & _filled_columns(lower))


def _column_groups(columns: set[int]) -> list[tuple[int, int]]:
    """Runs of adjacent filled columns, as (first, last)."""
    groups: list[tuple[int, int]] = []
    for c in sorted(columns):
        if groups and c == groups[-1][1] + 1:
            groups[-1] = (groups[-1][0], c)
        else:
            groups.append((c, c))
    return groups


def _side_by_side(bands: list[list[_Row]]) -> list[list[_Row]]:
    """Split a band holding tables side by side (empty columns between, different row extents).

    A spacer column inside one table (a frequent layout in financial sheets) also leaves an
    empty column, so a band is split only when every column group is at least 2x2 and the
    groups start or end on different rows, which a single table with spacers never does.
    """
    out: list[list[_Row]] = []
    for band in bands:
        groups = _column_groups(_filled_columns(band))
        if len(groups) < 2:
            out.append(band)
            continue
        pieces: list[list[_Row]] = []
        for first, last in groups:
            rows = []
            for row in band:
                cells = [cell if first <= c <= last else "" for c, cell in enumerate(row.cells)]
                if any(cells):
                    rows.append(_Row(row.index, cells, tuple(c for c in row.numeric if first <= c <= last)))
            pieces.append(rows)
        extents = {(rows[0].index, rows[-1].index) for rows in pieces}
        standalone = all(len(rows) >= 2 and last > first for rows, (first, last) in zip(pieces, groups, strict=True))
        if standalone and len(extents) > 1:
            for rows in pieces:
                out.extend(_bands(rows))
        else:
            out.append(band)
    return out


def _is_text_band(band: list[_Row]) -> bool:
    return len(band) <= MAX_TEXT_BAND_ROWS and all(row.filled <= 1 for row in band)


def _header_count(band: list[_Row], merged: list[tuple[int, int, int, int]]) -> int:
    """Leading rows without numbers (at most MAX_HEADER_ROWS, else just the first), extended by row-spanning merges."""
    count = 0
    while count < len(band) and not band[count].has_number:
        count += 1
    if count == len(band) or count > MAX_HEADER_ROWS:
        count = 1
    count = max(count, 1)
    first = band[0].index
    for r0, _c0, r1, _c1 in merged:
        if r0 == first and r1 > r0:
            count = max(count, min(r1 - first + 1, MAX_HEADER_ROWS, len(band)))
    return count


def _layout(sheet: _Sheet) -> list[Block]:
    """Bands of rows -> text blocks and tables, in sheet order."""
    blocks: list[Block] = []
    current: _Table | None = None
    pending_header: list[_Row] | None = None
    last_text: Block | None = None

    def close() -> None:
        nonlocal current, pending_header
        if current is not None:
            blocks.extend(_table_blocks(current, sheet))
        if pending_header is not None:
            blocks.extend(_table_blocks(_Table(header=pending_header[:1], body=pending_header[1:]), sheet))
        current, pending_header = None, None

    for band in _side_by_side(_bands(sheet.rows)):
        if _is_text_band(band):
            close()
            for row in band:
                text = next(cell for cell in row.cells if cell)
                level = heading_level(text)
                if level is not None:
                    block = Block(type=BlockType.HEADING, text=text, level=max(2, level), sheet=sheet.name)
                else:
                    block = Block(type=BlockType.PARAGRAPH, text=text, sheet=sheet.name)
                block.meta["row"] = row.index + 1
                blocks.append(block)
                last_text = block
            continue
        gap = band[0].index - (pending_header[-1].index if pending_header else current.last_index if current else -9)
        headerless = not any(row.has_number for row in band)
        if pending_header is not None and 0 < gap <= 3 and band[0].has_number and _overlap(pending_header, band):
            current = _Table(header=pending_header, body=list(band), caption=_caption(last_text, pending_header))
            pending_header = None
            continue
        if current is not None and not current.body and 0 < gap <= 3 and _overlap(current.header, band):
            current.body.extend(band)  # a header row standing alone above its data
            continue
        if current is not None and current.body and gap == 2 and band[0].has_number and _overlap(current.body, band):
            current.body.extend(band)
            continue
        close()
        if headerless and len(band) <= MAX_HEADER_ROWS:
            pending_header = list(band)
            continue
        count = _header_count(band, sheet.merged)
        current = _Table(header=band[:count], body=band[count:], caption=_caption(last_text, band))
    close()
    return blocks


def _caption(last_text: Block | None, band: list[_Row]) -> str | None:
    """The text line just above a table (at most one blank row between) names it."""
    if last_text is None:
        return None
    row = last_text.meta.get("row")
    if isinstance(row, int) and band[0].index + 1 - row <= 2 and len(last_text.text) <= 80:
        return last_text.text
    return None


def _fill_merged(rows: list[_Row], merged: list[tuple[int, int, int, int]]) -> list[list[str]]:
    """Cells of ``rows`` with every merged range showing its top-left value."""
    first, last = rows[0].index, rows[-1].index
    merged = [m for m in merged if m[0] <= last and m[2] >= first]
    if not merged:
        return [row.cells for row in rows]
    by_index = {row.index: row for row in rows}
    grid = {row.index: list(row.cells) for row in rows}
    for r0, c0, r1, c1 in merged:
        source = by_index.get(r0)
        if source is None or c0 >= len(source.cells) or not source.cells[c0]:
            continue
        value = source.cells[c0]
        for r in range(r0, r1 + 1):
            cells = grid.get(r)
            if cells is None:
                continue
            if len(cells) <= c1:
                cells.extend([""] * (c1 + 1 - len(cells)))
            for c in range(c0, c1 + 1):
                if not cells[c]:
                    cells[c] = value
    return [grid[row.index] for row in rows]


def _table_blocks(table: _Table, sheet: _Sheet) -> list[Block]:
    rows = table.header + table.body
    grid = _fill_merged(rows, sheet.merged)
    width = max(len(cells) for cells in grid)
    grid = [cells + [""] * (width - len(cells)) for cells in grid]
    keep = [c for c in range(width) if any(cells[c] for cells in grid)]
    grid = [[cells[c] for c in keep] for cells in grid]
    n_header = len(table.header)
    header, body = grid[:n_header], [cells for cells in grid[n_header:] if any(cells)]
    if len(keep) == 1 and len(grid) <= 1:
        return [Block(type=BlockType.PARAGRAPH, text=grid[0][0], sheet=sheet.name)] if grid and grid[0][0] else []
    block = Block.table(
        header,
        body,
        caption=table.caption,
        sheet=sheet.name,
        meta={"first_row": rows[0].index + 1, "last_row": rows[-1].index + 1},
    )
    return [block]


# ---------------------------------------------------------------- entry point


def _calamine_workbook(path: Path, stream: BinaryIO) -> Any | None:
    """The workbook opened by python-calamine, or None when it is not installed (openpyxl streams every sheet)."""
    try:
        from python_calamine import CalamineError, CalamineWorkbook
    except ImportError:  # an accelerator, not a requirement: the streaming reader gives the same blocks
        return None
    stream.seek(0)
    try:
        return CalamineWorkbook.from_filelike(stream)
    except CalamineError as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read the workbook: {exc}") from exc


def _read_calamine_sheet(path: Path, workbook: Any, sheet: _Sheet, settings: ParsingSettings) -> None:
    from python_calamine import CalamineError

    try:
        data = workbook.get_sheet_by_name(sheet.name)
        sheet.merged = sorted((r0, c0, r1, c1) for (r0, c0), (r1, c1) in (data.merged_cell_ranges or []))
        _collect_rows(sheet.name, _calamine_rows(data), settings, sheet)
    except CalamineError as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"cannot read sheet {sheet.name!r}: {exc}") from exc


def _read_streamed_sheet(stream: BinaryIO, sheet: _Sheet, settings: ParsingSettings) -> None:
    raw = _openpyxl_rows(stream, sheet.name)
    try:
        _collect_rows(sheet.name, raw, settings, sheet)
    finally:
        raw.close()


def calamine_sheets_to_blocks(
    path: Path, workbook: Any, names: list[str], settings: ParsingSettings
) -> tuple[list[Block], list[str]]:
    """(blocks, warnings) of the named worksheets of a workbook python-calamine opened.

    The legacy and open spreadsheet formats (.xls, .et, .ods) are read by calamine too and
    laid out by the same rules as .xlsx, so a table reads the same whatever saved it.
    """
    blocks: list[Block] = []
    warnings: list[str] = []
    for name in names:
        sheet = _Sheet(name)
        _read_calamine_sheet(path, workbook, sheet, settings)
        warnings.extend(sheet.warnings)
        sheet_blocks = _layout(sheet)
        if sheet_blocks:
            blocks.append(Block(type=BlockType.HEADING, text=name, level=1, sheet=name))
            blocks.extend(sheet_blocks)
    return blocks, warnings


def parse_xlsx(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a workbook (decrypting it in memory when a password is given) into blocks."""
    stream = open_ooxml(path, password, settings)
    blocks: list[Block] = []
    warnings: list[str] = []
    with stream, corrupt_on_error(path, "the workbook"):
        with zipfile.ZipFile(stream) as archive:
            workbook_part = main_part(archive, "xl/workbook.xml")
            if workbook_part not in archive.namelist():
                raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"no {workbook_part}: not an Excel workbook")
            parts = _sheet_parts(archive, workbook_part)  # worksheets in workbook order; chart sheets are not listed
            title = read_core_title(archive)
            workbook = _calamine_workbook(path, stream)
            streamed = {
                name: _merged_from_xml(archive, part)
                for name, (part, size) in parts.items()
                if workbook is None or size > STREAM_ABOVE_BYTES
            }
        for name in parts:
            sheet = _Sheet(name)
            if name in streamed:
                sheet.merged = streamed[name]
                _read_streamed_sheet(stream, sheet, settings)
            else:
                _read_calamine_sheet(path, workbook, sheet, settings)
            warnings.extend(sheet.warnings)
            sheet_blocks = _layout(sheet)
            if sheet_blocks:
                blocks.append(Block(type=BlockType.HEADING, text=name, level=1, sheet=name))
                blocks.extend(sheet_blocks)
    return ParsedDocument(
        path=str(path),
        file_type="xlsx",
        blocks=blocks,
        title=title or (blocks[0].text if blocks else None),
        warnings=warnings,
    )
