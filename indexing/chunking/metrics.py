"""Quality metrics computed on every chunking run and returned with the chunks.

The checks are independent re-reads of the output, not counters kept while cutting, so a
bug in the cutter shows up here:

* sentence break: a prose chunk (not a table; not a list/code block split between items)
  whose text neither ends at the end of a block nor with sentence-final punctuation
  (。！？；.!?;:：”"』」）)… ), the same test as the independent checker; forced cuts are
  counted apart (``forced_cuts``), and so are cuts at a bare line end in line-structured
  text (``line_cuts``, labelled LIST chunks; also counted in ``split_blocks``).
* oversize: tokens above the target, outside OVERSIZE_TABLE units (``oversize_table_units``;
  not retrieved, their row chunks are) and outside oversize rows: a table chunk flagged
  ``oversize_row`` that holds at most one row (re-checked here from ``meta.rows``), because
  that row next to its header cannot fit the budget and a row is never cut. Those are
  counted in ``oversize_rows``, the table counterpart of ``forced_cuts``; ``oversize_rate``
  = ``oversize_chunks`` / (chunks - oversize-table units), so it is 0 when only the
  documented cases are above the budget. ``non_retrievable``: chunks with
  ``meta.retrievable`` False (the indexer skips them).
* table-header retention: table chunks whose text carries their table's header line before
  any row.
* heading-path coverage: chunks with a non-empty heading path.
* abnormal characters: U+FFFD, C0/C1 control characters (except tab/newline) and private-use
  code points, as a share of all characters (mojibake and broken PDF fonts show up here).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from officeqa.domain import Chunk, ChunkKind

SENTENCE_FINAL = frozenset("。！？；.!?;:：”\"』」）)…")
_ABNORMAL = re.compile("[\ufffd\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000-\uf8ff]")
_TABLE_KINDS = (ChunkKind.TABLE, ChunkKind.OVERSIZE_TABLE)


@dataclass(slots=True)
class ChunkMetrics:
    chunk_count: int = 0
    empty_chunks: int = 0
    total_tokens: int = 0
    max_tokens: int = 0
    mean_tokens: float = 0.0
    oversize_chunks: int = 0
    oversize_rate: float = 0.0
    oversize_table_units: int = 0
    oversize_rows: int = 0
    non_retrievable: int = 0
    forced_cuts: int = 0
    split_blocks: int = 0
    line_cuts: int = 0
    sentence_breaks: int = 0
    sentence_break_rate: float = 0.0
    table_chunks: int = 0
    table_chunks_with_header: int = 0
    table_header_retention: float = 1.0
    heading_path_coverage: float = 0.0
    chunks_with_path: int = 0
    prose_chunks: int = 0
    chars: int = 0
    abnormal_chars: int = 0
    abnormal_char_ratio: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def compute_metrics(
    chunks: list[Chunk],
    target_tokens: int,
    block_ends: set[int],
    table_headers: dict[int, str],
) -> ChunkMetrics:
    """Metrics over one document's chunks.

    ``block_ends``: document-text offsets where a block ends; ``table_headers``: chunk
    position -> the header line of the table it came from.
    """
    m = ChunkMetrics(chunk_count=len(chunks))
    if not chunks:
        return m
    for chunk in chunks:
        text = chunk.text
        stripped = text.strip()
        if not stripped:
            m.empty_chunks += 1
        m.total_tokens += chunk.tokens
        m.max_tokens = max(m.max_tokens, chunk.tokens)
        if chunk.heading_path:
            m.chunks_with_path += 1
        m.chars += len(text)
        m.abnormal_chars += len(_ABNORMAL.findall(text))
        if chunk.meta.get("retrievable") is False:
            m.non_retrievable += 1
        if chunk.kind is ChunkKind.OVERSIZE_TABLE:
            m.oversize_table_units += 1
        elif chunk.tokens > target_tokens:
            if _is_oversize_row(chunk):
                m.oversize_rows += 1
            else:
                m.oversize_chunks += 1
        if chunk.kind in _TABLE_KINDS:
            m.table_chunks += 1
            header = table_headers.get(chunk.position, "")
            if _header_first(text, header):
                m.table_chunks_with_header += 1
            continue
        if chunk.meta.get("split_block"):
            m.split_blocks += 1
        if chunk.meta.get("line_cut"):
            m.line_cuts += 1
        if chunk.forced_cut:
            m.forced_cuts += 1
            continue
        m.prose_chunks += 1
        if chunk.meta.get("split_block") and chunk.kind in (ChunkKind.LIST, ChunkKind.CODE):
            continue
        if stripped and chunk.char_end not in block_ends and stripped[-1] not in SENTENCE_FINAL:
            m.sentence_breaks += 1
    _rates(m)
    return m


def _is_oversize_row(chunk: Chunk) -> bool:
    """A table chunk of at most one row, flagged by the cutter: the documented case of a row too wide to fit."""
    rows = chunk.meta.get("rows")
    one_row = isinstance(rows, list) and len(rows) == 2 and rows[1] - rows[0] <= 1
    return chunk.kind is ChunkKind.TABLE and bool(chunk.meta.get("oversize_row")) and one_row


def _header_first(text: str, header: str) -> bool:
    """The table's header line is one of the chunk's lines (rows follow it by construction of the layout)."""
    return not header or header in text.split("\n")


def merge_metrics(parts: list[ChunkMetrics]) -> ChunkMetrics:
    """Corpus-level metrics from per-document ones (counts summed, rates recomputed)."""
    total = ChunkMetrics()
    for m in parts:
        for name in _COUNTS:
            setattr(total, name, getattr(total, name) + getattr(m, name))
        total.max_tokens = max(total.max_tokens, m.max_tokens)
    _rates(total)
    return total


_COUNTS = (
    "chunk_count", "empty_chunks", "total_tokens", "oversize_chunks", "oversize_table_units", "oversize_rows",
    "non_retrievable", "forced_cuts",
    "split_blocks", "line_cuts", "sentence_breaks", "prose_chunks", "table_chunks", "table_chunks_with_header",
    "chunks_with_path", "chars", "abnormal_chars",
)


def _rates(m: ChunkMetrics) -> None:
    n = m.chunk_count
    sized = n - m.oversize_table_units
    m.mean_tokens = round(m.total_tokens / n, 1) if n else 0.0
    m.oversize_rate = round(m.oversize_chunks / sized, 4) if sized else 0.0
    m.sentence_break_rate = round(m.sentence_breaks / m.prose_chunks, 4) if m.prose_chunks else 0.0
    m.table_header_retention = round(m.table_chunks_with_header / m.table_chunks, 4) if m.table_chunks else 1.0
    m.heading_path_coverage = round(m.chunks_with_path / n, 4) if n else 0.0
    m.abnormal_char_ratio = round(m.abnormal_chars / m.chars, 6) if m.chars else 0.0


__all__ = ["SENTENCE_FINAL", "ChunkMetrics", "compute_metrics", "merge_metrics"]
