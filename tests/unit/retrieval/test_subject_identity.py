"""Scope by company identity over a literal catalog: Traditional and Simplified names alike, stock codes of every
form, former names, and no decision on a word two names share."""

from __future__ import annotations

from indexing.profile import DocumentProfile
from indexing.subjects import KIND_ANNUAL, DocumentSubject
from retrieval.catalog import CatalogEntry
from retrieval.scope import resolve_named
from retrieval.subjects import resolve_subjects


def _report(doc_id: str, subject: DocumentSubject, title: str = "") -> CatalogEntry:
    subject.kind = subject.kind or KIND_ANNUAL
    return CatalogEntry(doc_id, f"/kb/{doc_id}.pdf", DocumentProfile(doc_id=doc_id, title=title, subject=subject))


CATALOG = {
    e.doc_id: e
    for e in [
        _report("tx", DocumentSubject(entity="騰訊控股有限公司", short_names=["騰訊控股"], codes=["00700.HK"],
                                      english_name="Tencent Holdings Limited", fiscal_year=2023)),
        _report("hx", DocumentSubject(entity="华熙生物科技股份有限公司", short_names=["华熙生物"], codes=["688363"],
                                      former_names=["山东华熙生物医药有限公司"], fiscal_year=2023)),
        _report("ht", DocumentSubject(entity="贵州航天电器股份有限公司", short_names=["航天电器"], codes=["002025"],
                                      fiscal_year=2019)),
        _report("sw", DocumentSubject(entity="上海生物科技股份有限公司", short_names=["生物科技"], fiscal_year=2023)),
        _report("ap", DocumentSubject(entity="Aptevo Therapeutics Inc.", short_names=["Aptevo Therapeutics"],
                                      codes=["APVO"], fiscal_year=2022)),
    ]
}


def _scoped(question: str) -> list[str]:
    scope = resolve_subjects(question, CATALOG)
    return scope.doc_ids if scope is not None else []


def test_simplified_question_finds_traditional_report_and_back() -> None:
    assert _scoped("腾讯控股2023年的收入是多少？") == ["tx"]
    assert _scoped("華熙生物2023年的營業收入是多少？") == ["hx"]


def test_codes_of_every_form_scope() -> None:
    for question in ("00700.HK的收入", "0700.HK revenue", "港股00700的收入", "HK700 revenue"):
        assert _scoped(question) == ["tx"], question
    assert _scoped("688363.SH的营业收入") == ["hx"]
    assert _scoped("002025 2019年营业收入") == ["ht"]
    assert _scoped("What was APVO's net loss?") == ["ap"]


def test_english_and_former_names_scope() -> None:
    assert _scoped("What was Tencent Holdings' revenue in 2023?") == ["tx"]
    assert _scoped("山东华熙生物医药有限公司的营业收入") == ["hx"]


def test_a_shared_word_never_decides() -> None:
    # "生物科技" is the whole short name of one report and a word of another company's name: it names neither
    assert "sw" not in _scoped("华熙生物科技的营业收入")
    scope = resolve_named("贝达生物股份有限公司2023年的营业收入是多少？", CATALOG)
    assert scope is not None and scope.doc_ids == [] and scope.missing == ["贝达生物股份有限公司"]
