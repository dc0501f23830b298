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
  or it would reach the embedder whole: its "name: value" line is split like an over-long
  sentence (``forced.py``: between cells, at spaces, inside runs) into parts within the
  budget, each after the caption and header when those take at most half the budget (every
  part still names its columns in "name: value" form). The parts carry ``row_part`` = 1, 2, ...
"""

from __future__ import annotations

from dataclasses import dataclass

from indexing.chunking.forced import force_split
from indexing.chunking.sentences import End
from officeqa.domain import Block, ChunkKind
from officeqa.settings import ChunkingSettings
from officeqa.tokens import TokenCounter


@dataclass(slots=True)
class RenderedTable:
    header_line: str
    row_lines: list[str]
    caption: str


@dataclass(slots=True)
class TablePiece:
    text: str
    kind: ChunkKind
    tokens: int
    row_start: int
    row_end: int
    oversize_row: bool = False  # at most one row, yet above the budget (a row or the header too wide; never cut)
    row_part: int = 0  # 1, 2, ... for the parts of a row far above the budget (cut after all); 0 = a whole row


def _cell(value: object) -> str:
    return " ".join(str(value if value is not None else "").split())


def render_table(block: Block) -> RenderedTable:
    """Header line and one "name: value" line per row."""
    header = [_cell(h) for h in block.header]
    rows = [[_cell(c) for c in row] for row in (block.rows or [])]
    width = max([len(header), *(len(r) for r in rows)]) if rows or header else 0
    names = [(header[i] if i < len(header) and header[i] else f"列{i + 1}") for i in range(width)]
    row_lines = [", ".join(f"{names[i]}: {value}" for i, value in enumerate(row) if value) for row in rows]
    return RenderedTable(" | ".join(header), row_lines, _cell(block.caption or ""))


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
    """One row line cut into parts within ``target`` (after caption and header when they take at most half).

    A heading before the table never reaches here: it already got a piece of its own
    (:func:`row_pieces`, "the heading crowds out the first row").
    """
    fixed = line_tokens[0] + line_tokens[1]
    with_header = fixed <= target // 2
    line = rendered.row_lines[row]
    units = force_split(line, 0, len(line), End.BLOCK, target - fixed if with_header else target, counter)
    pieces: list[TablePiece] = []
    for number, unit in enumerate(units, start=1):
        part = line[unit.start : unit.end]
        tokens = counter.count(part) if unit.sealed else unit.tokens
        if with_header:
            part, tokens = _compose(rendered, "", [part]), tokens + fixed
        pieces.append(TablePiece(part, ChunkKind.TABLE, tokens, row, row + 1, row_part=number))
    return pieces


def _compose(rendered: RenderedTable, prefix: str, rows: list[str]) -> str:
    lines = [line for line in (prefix, rendered.caption, rendered.header_line) if line]
    lines.extend(rows)
    return "\n".join(lines)


__all__ = ["RenderedTable", "TablePiece", "is_oversize_table", "render_table", "row_pieces", "table_pieces"]
