"""What a deterministic handler returns: an answer text and items, each citing where it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from officeqa.locations import format_location


@dataclass(slots=True)
class Citation:
    """A place in a parsed document: file plus page / sheet / slide / table row where known.

    ``row`` is the 1-based data row inside the table (header rows not counted);
    ``sheet_row`` is the spreadsheet's own row number when the parser recorded where the
    table starts (xlsx ``meta["first_row"]``); ``rows`` is set instead of ``row`` for an
    aggregate over many rows of one table, with ``row_list`` naming the first of them
    (spreadsheet rows when known, else data rows).
    """

    file: str
    page: int | None = None
    sheet: str | None = None
    slide: int | None = None
    table: int | None = None
    row: int | None = None
    sheet_row: int | None = None
    rows: int | None = None
    block: int | None = None
    row_list: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__ if getattr(self, k) is not None}

    def label(self) -> str:
        """"file, p. 3, sheet S, row 12" (the product's one location format, ``officeqa.locations``)."""
        parts = [self.file]
        location = format_location(page=self.page, sheet=self.sheet, slide=self.slide, row=self.sheet_row)
        if location:
            parts.append(location)
        if self.sheet_row is None and self.row is not None:
            parts.append(f"table {self.table} row {self.row}")
        if self.row_list:
            shown = ", ".join(str(r) for r in self.row_list[:10])
            more = " …" if self.rows is not None and self.rows > min(len(self.row_list), 10) else ""
            parts.append(f"rows {shown}{more}")
        if self.rows is not None:
            parts.append(f"{self.rows} rows")
        return ", ".join(parts)


@dataclass(slots=True)
class HandlerItem:
    """One answer element (a phone number, a group's sum, a heading) with every place it was found."""

    value: str
    normalized: Any = None
    kind: str | None = None
    citations: list[Citation] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value}
        if self.normalized is not None:
            out["normalized"] = self.normalized
        if self.kind is not None:
            out["kind"] = self.kind
        out["citations"] = [c.to_json() for c in self.citations]
        if self.extra:
            out["extra"] = self.extra
        return out


@dataclass(slots=True)
class HandlerResult:
    """A handler's answer: the text shown to the user and the cited items behind it."""

    route: str
    answer_text: str
    items: list[HandlerItem] = field(default_factory=list)
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    # Table queries: "exact" (the value was computed by the stated query) or "refused" (what is ambiguous is said,
    # the candidates are in data["candidates"]); None for the other handlers.
    outcome: str | None = None
    query: str | None = None  # the query in words, in the question's language

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"route": self.route, "answer": self.answer_text,
                               "items": [i.to_json() for i in self.items]}
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.query is not None:
            out["query"] = self.query
        if self.skipped:
            out["skipped"] = self.skipped
        if self.warnings:
            out["warnings"] = self.warnings
        if self.data:
            out["data"] = self.data
        return out
