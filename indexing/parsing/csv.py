"""CSV/TSV files: one table block with its header row.

Why one block: the chunker splits tables by rows and repeats the header, so the parser
keeps the whole table together and exact. Decoding goes through :func:`read_text`
(UTF-16 with BOM, GBK ... ); the delimiter is sniffed among ``,`` ``;`` tab and ``|``.
``csv.Sniffer`` alone guesses wrongly on cells that contain the other candidates
("Lorem, ipsum; dolor"), so every candidate is scored by how consistently it splits the
sample into the same number of columns, and Sniffer's guess only breaks ties.

Limits: at most ``parsing.csv_max_rows`` rows and ``parsing.max_columns`` columns are read and
cells are cut to ``parsing.max_cell_chars`` (each with a warning), before the rows are padded
to one width: a CSV holding one 50 MB line of cells once asked for 79.5 GiB there.

Header: the first row, except a title row above it (one filled cell in a wider table,
e.g. "Stanley Cups,,"), which becomes the table caption. A pandas index column (empty
header, values 0..n-1) is dropped: it carries no information and pollutes BM25.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from indexing.parsing.encoding import read_text
from indexing.parsing.limits import CellLimits
from officeqa.domain import Block, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["parse_csv", "sniff_delimiter", "table_from_rows"]

DELIMITERS = (",", ";", "\t", "|")
_SAMPLE_CHARS = 64 * 1024
_SAMPLE_ROWS = 200
# Cells longer than the csv module's 128 KiB default occur (long free-text columns): the reader accepts a field
# as long as the largest file allowed (it is cut to parsing.max_cell_chars right after), so a long field never
# turns a readable file into a "malformed CSV" refusal.
_MB = 1024 * 1024
_LONG_LINE = 64 * 1024  # lines above this many characters are checked for their number of fields


def _consistency(sample: str, delimiter: str) -> float:
    """How well ``delimiter`` splits the sample: share of rows with the modal width, times that width (>1)."""
    try:
        rows = list(islice(csv.reader(io.StringIO(sample), delimiter=delimiter), _SAMPLE_ROWS))
    except csv.Error:
        return 0.0
    widths = [len(row) for row in rows if row]
    if len(widths) > 1:
        widths = widths[:-1]  # the sample may cut the last row short
    if not widths:
        return 0.0
    width, count = Counter(widths).most_common(1)[0]
    if width < 2:
        return 0.0
    return count / len(widths) * (1.0 + min(width, 50) / 1000)  # consistency first, wider tables break ties


def sniff_delimiter(text: str) -> str:
    """The delimiter among , ; tab | that splits the text's first rows most consistently (',' if none does)."""
    sample = text[:_SAMPLE_CHARS]
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        sniffed = ","
    scores = {d: _consistency(sample, d) for d in DELIMITERS}
    best = max(scores.values())
    if best == 0.0:
        return sniffed if sniffed in DELIMITERS else ","
    if scores.get(sniffed, 0.0) >= best:
        return sniffed
    return max(DELIMITERS, key=lambda d: scores[d])


def _is_index_column(header: list[str], rows: list[list[str]]) -> bool:
    if not rows or not header or header[0].strip() or len(header) < 2:
        return False
    values = [row[0].strip() for row in rows]
    if not all(v.isdigit() for v in values):
        return False
    start = int(values[0])
    return start in (0, 1) and all(int(v) == start + i for i, v in enumerate(values))


def table_from_rows(rows: list[list[str]]) -> tuple[list[list[str]], list[list[str]], str | None]:
    """(header_rows, body_rows, caption) from raw rows: padded, empty rows dropped, title row and index column out."""
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return [], [], None
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    caption = None
    filled = [cell for cell in rows[0] if cell.strip()]
    if width > 1 and len(rows) > 2 and len(filled) == 1 and sum(1 for c in rows[1] if c.strip()) > 1:
        caption = filled[0].strip()
        rows = rows[1:]
    header, body = rows[:1], rows[1:]
    if _is_index_column(header[0], body):
        header = [row[1:] for row in header]
        body = [row[1:] for row in body]
    return header, body, caption


def _bounded_lines(text: str, delimiter: str, limits: CellLimits) -> Iterator[str]:
    """The text's lines for csv.reader; a long quote-free line is cut after its ``max_columns``-th field.

    The reader builds a whole row before anything can cap it, so a 50 MB line of short cells
    would be 12 million string objects (1.3 GB) first. A line without quotes cannot continue
    on the next line, so cutting it at a delimiter is exact; a quoted one is left to the reader.
    """
    width = limits.max_columns
    for line in io.StringIO(text, newline=""):
        if len(line) > _LONG_LINE and '"' not in line and line.count(delimiter) >= width:
            limits.widest = max(limits.widest, line.count(delimiter) + 1)
            at = -1
            for _ in range(width):
                at = line.find(delimiter, at + 1)
            line = line[:at] + "\n"
        yield line


def parse_csv(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a .csv/.tsv file into one table block (header row + data rows, at most ``csv_max_rows``)."""
    del password  # CSV has no encryption
    decoded = read_text(path)
    text = decoded.text
    delimiter = "\t" if path.suffix.lower() == ".tsv" else sniff_delimiter(text)
    field_limit = max(64 * _MB, int(settings.max_file_mb * _MB) + 1)
    if csv.field_size_limit() < field_limit:
        csv.field_size_limit(field_limit)
    limit = settings.csv_max_rows + 1  # the header row does not count
    limits = CellLimits(settings.max_columns, settings.max_cell_chars)
    reader = csv.reader(_bounded_lines(text, delimiter, limits), delimiter=delimiter)
    try:
        raw = [limits.apply(row) for row in islice(reader, limit)]
        cut = next(reader, None) is not None
    except csv.Error as exc:
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"malformed CSV: {exc}") from exc
    warnings = [f"only the first {settings.csv_max_rows} rows were read (parsing.csv_max_rows)"] if cut else []
    warnings.extend(limits.warnings(path.name))
    header, body, caption = table_from_rows(raw)
    blocks: list[Block] = []
    if header or body:
        blocks.append(
            Block.table(
                header,
                body,
                caption=caption,
                meta={"delimiter": delimiter, "encoding": decoded.encoding},
            )
        )
    return ParsedDocument(path=str(path), file_type="csv", blocks=blocks, title=caption, warnings=warnings)
