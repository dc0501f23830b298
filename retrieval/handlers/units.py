"""Walk parsed documents as cited text units and as tables: what every handler iterates over."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.handlers.results import Citation


def _cite(doc: ParsedDocument, block: Block, index: int, **extra: int | None) -> Citation:
    citation = Citation(file=doc.path, page=block.page, sheet=block.sheet, slide=block.slide, block=index, **extra)
    first_row = block.meta.get("first_row") if block.type is BlockType.TABLE else None
    if citation.row is not None and isinstance(first_row, int):
        # xlsx tables are contiguous bands of rows: header rows first, then the data rows
        citation.sheet_row = first_row + len(block.header_rows or []) + citation.row - 1
    return citation


def text_units(documents: list[ParsedDocument]) -> Iterator[tuple[str, Citation]]:
    """Every piece of text with its citation: paragraphs, headings, list items, table rows (one unit per row)."""
    for doc in documents:
        table_no = 0
        for index, block in enumerate(doc.blocks):
            if block.type is BlockType.PAGE_BREAK:
                continue
            if block.type is BlockType.TABLE:
                table_no += 1
                if block.caption:
                    yield block.caption, _cite(doc, block, index, table=table_no)
                _header_rows, rows = table_shape(block)
                for r, row in enumerate(rows, start=1):
                    yield " | ".join(row), _cite(doc, block, index, table=table_no, row=r)
                continue
            if block.type is BlockType.LIST and block.items:
                for item in block.items:
                    yield item, _cite(doc, block, index)
                continue
            if block.text:
                yield block.text, _cite(doc, block, index)


@dataclass(slots=True)
class Table:
    """One table in scope: its merged header, data rows and where it is."""

    doc: ParsedDocument
    block: Block
    block_index: int
    number: int
    header: list[str]
    rows: list[list[str]]

    def cite(self, row: int | None = None, rows: int | None = None) -> Citation:
        return _cite(self.doc, self.block, self.block_index, table=self.number, row=row, rows=rows)


def table_shape(block: Block) -> tuple[list[list[str]], list[list[str]]]:
    """Header rows and data rows; a table parsed without header rows uses its first row as header."""
    rows = block.rows or []
    if block.header_rows:
        return block.header_rows, rows
    return (rows[:1], rows[1:]) if rows else ([], [])


def tables(documents: list[ParsedDocument]) -> Iterator[Table]:
    """Every table block of every document, in order, with a usable header."""
    for doc in documents:
        number = 0
        for index, block in enumerate(doc.blocks):
            if block.type is not BlockType.TABLE:
                continue
            number += 1
            header_rows, rows = table_shape(block)
            header = block.header if block.header_rows else (list(header_rows[0]) if header_rows else [])
            yield Table(doc=doc, block=block, block_index=index, number=number, header=header, rows=rows)
