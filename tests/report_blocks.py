"""Shared by the report unit tests: builders of literal report blocks, and a report read from them the way indexing
and the report answerer read a stored one (real fact extraction, the page text, and on request the prose by page)."""

from __future__ import annotations

from indexing.reports.extract import extract_report
from officeqa.domain import Block, BlockType, ParsedDocument
from retrieval.reports.answerer import prose_pages
from retrieval.reports.facts import Report, load_report

#: The dot leader a statement prints between a row's label and its figures ("Net income ...... $ 20,445").
LEADER = " " + "." * 60 + " "


def para(text: str, page: int) -> Block:
    """A paragraph on ``page``."""
    return Block(BlockType.PARAGRAPH, text=text, page=page)


def heading(text: str, page: int, level: int = 2) -> Block:
    """A heading on ``page`` (a section's, level 2, unless told)."""
    return Block(BlockType.HEADING, text=text, level=level, page=page)


def report_of(document: ParsedDocument, name: str, *, prose: bool = False) -> Report:
    """The report read from ``document``'s facts as ``name``, with the text of every block; its prose by page too
    when ``prose``. A document that yields no facts fails the test."""
    data = extract_report(document)
    assert data is not None, name
    text = "\n".join(b.text for b in document.blocks)
    return load_report(document.path, name, data, text, prose_pages(document.blocks) if prose else ())
