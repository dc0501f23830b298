"""One way to write where something is in a document: "p. 3-4", "sheet Sales, row 12", "slide 2".

Why one function: citations under an answer, prompt material labels, handler results and the
CLI's listings all name locations; when each formats its own, users see "p.3", "page 3" and
"p. 3" for the same place, and tests pin three spellings.
"""

from __future__ import annotations


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


__all__ = ["format_location"]
