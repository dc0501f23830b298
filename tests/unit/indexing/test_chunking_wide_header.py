"""Regression: a PDF table whose header cell alone is far above the budget, over empty cells below it.

The MongoDB 10-K of the Enterprise RAG Challenge (round2/pdfs/7792e23f…, page 35) is laid out as a
two-column grid that the PDF table detector reads as a table: the second column's whole text sits in
the header row and the data rows leave that column empty. Cutting such a row into column windows
handed ``force_split`` an empty cell, which returned no units and raised IndexError, so the whole
file was refused as "corrupt". The PDF here has the same shape, built with reportlab and read by the
real parser; a small budget keeps it one page.
"""

from __future__ import annotations

import io
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

from indexing.chunking import chunk_document
from indexing.chunking.forced import force_split
from indexing.parsing import parse_file
from officeqa.domain import BlockType
from officeqa.sentences import End
from officeqa.settings import ChunkingSettings
from officeqa.tokens import default_token_counter

_CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=5, leading=6)
_WORDS = (
    "Our executive compensation program is designed to attract and retain talented executives, "
    "reward performance against annual goals and align the interests of executives with stockholders. "
)


def _wide_header_pdf(path: Path) -> None:
    """Two columns: a short header on the left, a long paragraph as the right header, data rows empty on the right."""
    left_rows = [f"Row {i}: the compensation committee reviewed base salary, bonus and equity." for i in range(4)]
    rows = [[Paragraph("Compensation overview", _CELL), Paragraph(_WORDS * 14, _CELL)]]
    rows += [[Paragraph(text, _CELL), Paragraph("", _CELL)] for text in left_rows]
    table = Table(rows, colWidths=[150, 360])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4).build([table])
    path.write_bytes(buffer.getvalue())


def test_table_with_a_header_cell_above_the_budget_over_empty_cells_chunks(tmp_path: Path) -> None:
    pdf = tmp_path / "wide_header.pdf"
    _wide_header_pdf(pdf)
    doc = parse_file(pdf)
    tables = [b for b in doc.blocks if b.type is BlockType.TABLE]
    assert tables, "the PDF must parse to a table, or the test does not test the crash"
    settings = ChunkingSettings(target_tokens=64, oversize_table_factor=2.0)
    counter = default_token_counter()
    header_tokens = max(counter.count(h) for h in tables[0].header)
    assert header_tokens > settings.oversize_table_factor * settings.target_tokens  # the crash's shape
    assert any(not cell.strip() for row in tables[0].rows for cell in row)

    result = chunk_document(doc, settings)

    text = "\n".join(c.text for c in result.chunks)
    for i in range(4):
        assert f"Row {i}:" in text  # every data row is still indexed
    assert result.metrics.empty_chunks == 0


def test_force_split_of_an_empty_stretch_gives_no_units() -> None:
    assert force_split("", 0, 0, End.BLOCK, 64, default_token_counter()) == []
    assert force_split("abc", 2, 2, End.BLOCK, 64, default_token_counter()) == []
