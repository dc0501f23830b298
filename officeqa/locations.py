"""Where something is in a document, and the one way to write it: "p. 3-4", "sheet Sales, row 12", "slide 2".

Why one model: chunk citations under an answer, a handler's or a table query's cited places, the
prompt's material labels and the summary tree's nodes all name a file, a page range, a sheet and
rows, a slide, a heading path. :class:`Location` holds them; it has one formatter per output —
:meth:`Location.where` and :meth:`Location.label` for text (answers, CLI, prompts) and
:meth:`Location.to_json` for JSON (``ask --json``, the eval report, and the HTTP API, which sends
the same objects). When each place formatted its own, users saw "p.3", "page 3" and "p. 3" for one
place and two label separators, and tests pinned them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Rows named one by one in a location; more are shown as " …".
SHOWN_ROWS = 10


def format_location(
    *,
    page: int | None = None,
    page_end: int | None = None,
    sheet: str | None = None,
    slide: int | None = None,
    row: int | None = None,
    rows: int | None = None,
) -> str:
    """The parts that exist, joined by ", " (empty when nothing is known)."""
    parts: list[str] = []
    if page is not None:
        parts.append(f"p. {page}" if page_end in (None, page) else f"p. {page}-{page_end}")
    if sheet is not None:
        parts.append(f"sheet {sheet}")
    if slide is not None:
        parts.append(f"slide {slide}")
    if row is not None:
        parts.append(f"row {row}")
    if rows is not None:
        parts.append(f"{rows} rows")
    return ", ".join(parts)


@dataclass(slots=True)
class Location:
    """A place in a document: the file, then what is known of page, sheet and rows, slide, section.

    ``table`` is the document's table number (1-based, document order); ``row`` the 1-based data row
    inside it (header rows not counted), or the spreadsheet row when nothing finer is known;
    ``sheet_row`` the spreadsheet's own row number when the parser recorded where the table starts;
    ``rows`` (with ``row_list`` naming the first of them) is set for an aggregate over many rows;
    ``block`` is the parsed document's block index, so the quote around a value can be found again.
    """

    file: str = ""
    page: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    slide: int | None = None
    table: int | None = None
    row: int | None = None
    sheet_row: int | None = None
    rows: int | None = None
    row_list: list[int] | None = None
    block: int | None = None
    heading_path: list[str] = field(default_factory=list)

    def where(self) -> str:
        """"p. 3, sheet S, row 12", "table 2 row 3", "rows 4, 9 …, 12 rows" (empty when nothing is known)."""
        row = self.sheet_row if self.sheet_row is not None else (self.row if self.table is None else None)
        parts = [format_location(page=self.page, page_end=self.page_end, sheet=self.sheet, slide=self.slide,
                                 row=row)]
        if self.sheet_row is None and self.table is not None and self.row is not None:
            parts.append(f"table {self.table} row {self.row}")
        if self.row_list:
            shown = ", ".join(str(r) for r in self.row_list[:SHOWN_ROWS])
            more = " …" if self.rows is not None and self.rows > min(len(self.row_list), SHOWN_ROWS) else ""
            parts.append(f"rows {shown}{more}")
        if self.rows is not None:
            parts.append(f"{self.rows} rows")
        return ", ".join(p for p in parts if p)

    def label(self, name: str | None = None) -> str:
        """"file · p. 3-4, sheet S · heading > path" (``name`` stands for the file when given)."""
        where = self.where()
        parts = [name if name is not None else self.file, *([where] if where else [])]
        if self.heading_path:
            parts.append(" > ".join(self.heading_path))
        return " · ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The fields that are known (a heading path only when there is one)."""
        out: dict[str, Any] = {}
        for key in Location.__slots__:
            value = getattr(self, key)
            if value is not None and (key != "heading_path" or value):
                out[key] = list(value) if isinstance(value, list) else value
        return out


__all__ = ["SHOWN_ROWS", "Location", "format_location"]
