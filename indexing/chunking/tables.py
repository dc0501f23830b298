"""Table chunks: the header repeated in every chunk, each row readable on its own.

Text layout of a table chunk (one line each)::

    <heading text>                 (only in the first chunk, when a heading directly precedes the table)
    <caption>                      (when the table has one; repeated in every chunk)
    列名1 | 列名2 | 列名3            (the header, exactly as parsed: stacked header rows merged)
    列名1: 值, 列名2: 值, 列名3: 值   (one line per row; empty cells left out)

The grid rows themselves stay on the block (``rows``) for the table handlers; the
"name: value" form is what a retriever and a small model read best, since a row alone still
says what each number means. Only tables with a header row come here; a headerless grid (a
layout table, a cover-page checkbox row) is chunked between rows as text by ``document.py``.

Rows are packed up to ``target_tokens`` (and at most ``table_rows_per_chunk`` rows when that
is set); a row is never cut.

Two cases above the budget:

* Oversize table: a table whose rendered size is above ``oversize_table_factor x
  target_tokens`` gives ONE OVERSIZE_TABLE unit, kept whole for the table handlers (never cut
  mid-row; summarised downstream), FOLLOWED BY the ordinary row pieces of the same table.
  The unit alone is useless to retrieval (an embedder truncates a 78k-token text and BM25
  length normalisation buries it), so ``document.py`` marks it ``retrievable: False`` and
  the row pieces point back at it; the indexer embeds/indexes the row pieces only.
* Oversize row: a single row that cannot fit the budget next to its header (very long
  cells) becomes a piece of its own, header + that one row, flagged ``oversize_row`` (so is
  any piece of at most one row that is above the budget because the header itself is). It is
  the table counterpart of a forced sentence cut, except that nothing is cut: a row read in
  halves would lose the column names of its second half. The metrics count it apart
  (``oversize_rows``), not as an oversize chunk.
* Row far above the budget: a row that would make a piece above ``oversize_table_factor x
  target_tokens`` (a 10 MB cell in a Word table, hundreds of wide columns) is cut after all,
  or it would reach the embedder whole. It is cut into column windows: each part holds the
  caption, the header cells of its columns (its own header line) and the row's cells in
  those columns, within the budget; a single cell above the budget is split like an
  over-long sentence (``forced.py``), each piece under its column's header. The parts carry
  ``row_part`` = 1, 2, ... and ``columns`` = [first, end).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from indexing.chunking.forced import force_split
from officeqa.domain import Block, ChunkKind
from officeqa.sentences import End
from officeqa.settings import ChunkingSettings
from officeqa.tokens import TokenCounter


@dataclass(slots=True)
class RenderedTable:
    header_line: str
    row_lines: list[str]
    caption: str
    block: Block | None = None  # the table itself, for cutting a row into column windows


@dataclass(slots=True)
class TablePiece:
    text: str
    kind: ChunkKind
    tokens: int
    row_start: int
    row_end: int
    oversize_row: bool = False  # at most one row, yet above the budget (a row or the header too wide; never cut)
    row_part: int = 0  # 1, 2, ... for the parts of a row far above the budget (cut after all); 0 = a whole row
    columns: tuple[int, int] | None = None  # a row part's column window [first, end)
    header: str | None = None  # a row part's own header line (the header cells of its columns)


def _cell(value: object) -> str:
    return " ".join(str(value if value is not None else "").split())


def _names(header: list[str], width: int) -> list[str]:
    return [(header[i] if i < len(header) and header[i] else f"列{i + 1}") for i in range(width)]


def render_table(block: Block) -> RenderedTable:
    """Header line and one "name: value" line per row."""
    header = [_cell(h) for h in block.header]
    rows = [[_cell(c) for c in row] for row in (block.rows or [])]
    width = max([len(header), *(len(r) for r in rows)]) if rows or header else 0
    names = _names(header, width)
    row_lines = [", ".join(f"{names[i]}: {value}" for i, value in enumerate(row) if value) for row in rows]
    return RenderedTable(" | ".join(header), row_lines, _cell(block.caption or ""), block)


def table_pieces(
    rendered: RenderedTable,
    line_tokens: list[int],
    settings: ChunkingSettings,
    prefix: str = "",
    prefix_tokens: int = 0,
    counter: TokenCounter | None = None,
) -> list[TablePiece]:
    """Split a rendered table into chunks (see the module docstring); ``line_tokens`` = [caption, header, *rows].

    ``counter`` cuts rows far above the budget; without one such a row stays whole.
    """
    caption_tokens, header_tokens, *row_tokens = line_tokens
    total = caption_tokens + header_tokens + prefix_tokens + sum(row_tokens)
    rows = row_pieces(rendered, line_tokens, settings, prefix, prefix_tokens, counter)
    if is_oversize_table(total, settings):
        text = _compose(rendered, prefix, rendered.row_lines)
        return [TablePiece(text, ChunkKind.OVERSIZE_TABLE, total, 0, len(row_tokens)), *rows]
    return rows


def is_oversize_table(total_tokens: int, settings: ChunkingSettings) -> bool:
    """Far above the budget: the table also goes whole to the table handlers as an OVERSIZE_TABLE unit."""
    return total_tokens > settings.oversize_table_factor * settings.target_tokens


def row_pieces(
    rendered: RenderedTable,
    line_tokens: list[int],
    settings: ChunkingSettings,
    prefix: str = "",
    prefix_tokens: int = 0,
    counter: TokenCounter | None = None,
) -> list[TablePiece]:
    """The TABLE pieces: header (+ caption) and as many whole rows as fit, the header repeated in each."""
    caption_tokens, header_tokens, *row_tokens = line_tokens
    target = settings.target_tokens
    fixed = caption_tokens + header_tokens
    max_rows = settings.table_rows_per_chunk if settings.table_rows_per_chunk > 0 else len(row_tokens) or 1
    pieces: list[TablePiece] = []
    start = 0
    extra = prefix_tokens
    while True:
        size = fixed + extra
        end = start
        while end < len(row_tokens) and end - start < max_rows and size + row_tokens[end] <= target:
            size += row_tokens[end]
            end += 1
        if end == start and end < len(row_tokens) and extra:
            # The heading crowds out the first row: it gets a header-only piece of its own (never dropped).
            text = _compose(rendered, prefix, [])
            pieces.append(TablePiece(text, ChunkKind.TABLE, size, start, start, oversize_row=size > target))
            prefix, extra = "", 0
            continue
        if end == start and end < len(row_tokens):
            if counter is not None and size + row_tokens[end] > settings.oversize_table_factor * target:
                # Far above the budget: cut the row into parts after all (module docstring).
                pieces.extend(_row_parts(rendered, start, line_tokens, target, counter))  # no heading left here
                prefix, extra, start = "", 0, start + 1
                if start >= len(row_tokens):
                    return pieces
                continue
            # One row above the budget next to its header: it gets a piece of its own, never cut mid-row.
            size += row_tokens[end]
            end += 1
        text = _compose(rendered, prefix, rendered.row_lines[start:end])
        # Above the budget only when even the header and one row cannot fit (a row, or the header, too wide).
        pieces.append(TablePiece(text, ChunkKind.TABLE, size, start, end, oversize_row=size > target))
        prefix, extra, start = "", 0, end
        if start >= len(row_tokens):
            return pieces


def _row_parts(
    rendered: RenderedTable, row: int, line_tokens: list[int], target: int, counter: TokenCounter
) -> list[TablePiece]:
    """One row cut into column windows within ``target`` (see the module docstring).

    Token counts add up exactly: " | " and ", " join the pieces, and WordPiece counts are
    additive at punctuation and spaces, so a window costs the sum of its cells plus one token
    per separator. A heading before the table never reaches here: it already got a piece of
    its own (:func:`row_pieces`, "the heading crowds out the first row").
    """
    block = rendered.block
    if block is None:
        return []
    header = [_cell(h) for h in block.header]
    cells = [_cell(c) for c in (block.rows or [])[row]]
    width = max(len(header), len(cells))
    header += [""] * (width - len(header))
    names = _names(header, width)
    entries = [f"{names[i]}: {cells[i]}" if i < len(cells) and cells[i] else "" for i in range(width)]
    head_counts = counter.count_many(header)
    entry_counts = counter.count_many(entries)
    caption, caption_tokens = rendered.caption, line_tokens[0]
    pieces: list[TablePiece] = []

    def emit(first: int, end: int, line: str, tokens: int, bare: bool = False) -> None:
        head_line = " | ".join(header[first:end])
        head_tokens = sum(head_counts[first:end]) + (end - first - 1)
        if bare:  # caption + header cell would fill half the budget: the part goes without them (said by metrics)
            text = line
        else:
            text, tokens = "\n".join(x for x in (caption, head_line, line) if x), caption_tokens + head_tokens + tokens
        piece = TablePiece(text, ChunkKind.TABLE, tokens, row, row + 1)
        piece.row_part, piece.columns, piece.header = len(pieces) + 1, (first, end), head_line
        pieces.append(piece)

    first, used, filled = 0, 0, 0  # window start, tokens of its header cells + entries + separators, entries
    for column in range(width):
        cost = head_counts[column] + (1 if column > first else 0)
        entry = entry_counts[column] + (1 if filled and entries[column] else 0)
        if column > first and caption_tokens + used + cost + entry > target:
            _emit_window(emit, entries, entry_counts, first, column)
            first, used, filled = column, 0, 0
            cost, entry = head_counts[column], entry_counts[column]
        if caption_tokens + cost + entry > target and column == first:
            if not entries[column]:
                # A header cell above the budget over an empty value: the row has nothing to say here.
                first, used, filled = column + 1, 0, 0
                continue
            # One cell above the budget on its own: its pieces go under its column's header.
            bare = caption_tokens + head_counts[column] > target // 2
            room = target if bare else target - caption_tokens - head_counts[column]
            text = entries[column]
            for unit in force_split(text, 0, len(text), End.BLOCK, room, counter):
                part = text[unit.start : unit.end]
                emit(column, column + 1, part, counter.count(part) if unit.sealed else unit.tokens, bare)
            first, used, filled = column + 1, 0, 0
            continue
        used += cost + entry
        filled += 1 if entries[column] else 0
    if first < width:
        _emit_window(emit, entries, entry_counts, first, width)
    return pieces


def _emit_window(emit: Any, entries: list[str], counts: list[int], first: int, end: int) -> None:
    window = [i for i in range(first, end) if entries[i]]
    line = ", ".join(entries[i] for i in window)
    emit(first, end, line, sum(counts[i] for i in window) + max(0, len(window) - 1))


def _compose(rendered: RenderedTable, prefix: str, rows: list[str]) -> str:
    lines = [line for line in (prefix, rendered.caption, rendered.header_line) if line]
    lines.extend(rows)
    return "\n".join(lines)


__all__ = ["RenderedTable", "TablePiece", "is_oversize_table", "render_table", "row_pieces", "table_pieces"]
