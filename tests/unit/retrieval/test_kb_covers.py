"""The "not found" line that says what the knowledge base covers: reports by company and year, every document
counted (two PDFs titled alike by their producer are still two documents), other files by their title."""

from __future__ import annotations

from indexing.profile import DocumentProfile
from indexing.subjects import KIND_ANNUAL, DocumentSubject
from retrieval.answerers.extractive import covers_lines, document_label
from retrieval.catalog import CatalogEntry


def entry(doc_id: str, title: str, subject: DocumentSubject | None = None) -> CatalogEntry:
    return CatalogEntry(doc_id=doc_id, path=f"/kb/{doc_id}.pdf", profile=DocumentProfile(doc_id, title,
                                                                                         subject=subject))


def test_a_report_is_named_by_its_company_and_year_not_its_pdf_title() -> None:
    report = entry("elixir", "EDGAR PDF", DocumentSubject(entity="Elixir Energy Limited", kind=KIND_ANNUAL,
                                                          fiscal_year=2022))
    assert document_label(report) == "Elixir Energy Limited, annual report 2022"
    assert document_label(entry("notice", "年会通知")) == "年会通知"


def test_every_document_is_counted_even_when_two_share_a_title() -> None:
    catalog = {d: entry(d, "EDGAR PDF") for d in ("a", "b")} | {"c": entry("c", "员工手册")}
    (line,) = covers_lines(catalog, "en")
    assert line == "The knowledge base's 3 documents cover: EDGAR PDF; 员工手册"
    (zh,) = covers_lines(catalog, "zh")
    assert zh.startswith("知识库中的 3 份文档涉及：")
    assert covers_lines({}, "en") == []
