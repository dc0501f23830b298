"""Scope by what documents are about, over a literal catalog of many similar reports.

The catalog mirrors the Enterprise RAG Challenge: titles are empty or generic ("Annual Report",
"Microsoft Word - R1"), so only the subjects read from the reports' pages tell them apart.
"""

from __future__ import annotations

from indexing.profile import DocumentProfile, family_key, text_signature
from indexing.subjects import KIND_ANNUAL, DocumentSubject
from retrieval.catalog import CatalogEntry
from retrieval.scope import resolve_named, versions_of
from retrieval.subjects import resolve_subjects


def report(
    doc_id: str,
    title: str,
    entity: str,
    short: list[str],
    year: int,
    codes: list[str] | None = None,
    version: str | None = None,
    text: str = "",
) -> CatalogEntry:
    subject = DocumentSubject(entity=entity, short_names=short, codes=codes or [], kind=KIND_ANNUAL, fiscal_year=year)
    profile = DocumentProfile(
        doc_id=doc_id,
        title=title,
        family=family_key(title, ""),
        subject=subject,
        version=version,
        signature=text_signature([text or f"{entity} report {year}" * 50]),
    )
    return CatalogEntry(doc_id, f"/kb/{doc_id}.pdf", profile)


CATALOG = {
    e.doc_id: e
    for e in [
        report("zd", "0001084048-23-000010", "Ziff Davis, Inc.", ["Ziff Davis"], 2022, ["ZD"]),
        report("bb", "", "Brave Bison Group plc", ["Brave Bison Group", "brave bison"], 2022),
        report("dw", "", "Downer EDI Limited", ["Downer EDI"], 2022, version="Effective date: 2022-06-30"),
        report("se", "", "Seiko Epson Corporation", ["Seiko Epson"], 2022, version="Effective date: 2022-03-31"),
        report("ar1", "Annual Report", "Odyssey Gold Limited", ["Odyssey Gold"], 2022, ["ODY"]),
        report("ar2", "Annual Report", "Odyssey Group Holdings, Inc.", ["Odyssey Group Holdings", "odyssey"], 2022),
        report("sv", "Microsoft Word - SVE Annual Report 2022 v17", "Starvest plc", ["Starvest"], 2022),
        report("ht19", "", "贵州航天电器股份有限公司", ["航天电器", "贵州航天电器"], 2019, ["002025"]),
        report("ht18", "", "贵州航天电器股份有限公司", ["航天电器", "贵州航天电器"], 2018, ["002025"]),
        report("cc", "", "常柴股份有限公司", ["苏常柴", "常柴"], 2019, ["000570"]),
    ]
}


def test_the_company_named_picks_its_report_whatever_the_titles_say() -> None:
    scope = resolve_named(
        "For Ziff Davis, Inc., what was the value of Cloud storage capacity in the annual report?", CATALOG
    )
    assert scope is not None and scope.doc_ids == ["zd"] and scope.method == "named"
    assert resolve_named("Did Brave Bison Group plc mention any mergers or acquisitions?", CATALOG).doc_ids == ["bb"]


def test_the_longer_name_wins_over_a_name_it_contains() -> None:
    assert resolve_named("How many employees did Odyssey Gold Limited have?", CATALOG).doc_ids == ["ar1"]
    assert resolve_named("What is the revenue of Odyssey Group Holdings, Inc.?", CATALOG).doc_ids == ["ar2"]


def test_two_companies_named_keep_both() -> None:
    scope = resolve_named(
        'Which of the companies had the highest total assets: "Downer EDI Limited", "Starvest plc"?', CATALOG
    )
    assert sorted(scope.doc_ids) == ["dw", "sv"]


def test_generic_words_never_scope() -> None:
    for question in (
        "What does the annual report say about risks?",
        "Which document mentions the budget?",
        "Microsoft Word 文档里写了什么？",
        "年度报告里的风险有哪些？",
    ):
        scope = resolve_named(question, CATALOG)
        assert scope is None or sorted(scope.doc_ids) == sorted(CATALOG), question  # never a title's pick


def test_a_company_not_in_the_knowledge_base_is_said_not_answered_from_another() -> None:
    scope = resolve_named("What was the net income of Medallion Financial Corp. in the annual report?", CATALOG)
    assert scope is not None and scope.doc_ids == [] and scope.missing == ["Medallion Financial Corp."]
    assert scope.to_json(CATALOG)["missing"] == ["Medallion Financial Corp."]


def test_short_names_codes_and_years_of_chinese_reports() -> None:
    assert resolve_named("航天电器2018年的营业收入是多少？", CATALOG).doc_ids == ["ht18"]
    newest = resolve_named("航天电器的营业收入是多少？", CATALOG)
    assert newest.doc_ids == ["ht19"] and "2019" in newest.reasons["ht18"]
    assert newest.superseded == {}  # another year's report is set aside, not called a version
    assert newest.to_json(CATALOG)["set_aside"][0]["doc_id"] == "ht18"
    assert resolve_named("常柴2019年的净利润？", CATALOG).doc_ids == ["cc"]
    assert resolve_subjects("002025 的法定代表人是谁？", CATALOG).doc_ids == ["ht19"]
    assert resolve_subjects("年假有几天？", CATALOG) is None


def test_reports_of_different_companies_are_never_versions() -> None:
    # Empty titles, both state an effective date: before, one family "" grouped them as versions.
    kept, superseded, _ = versions_of(["dw", "se", "bb"], CATALOG)
    assert sorted(kept) == ["bb", "dw", "se"] and superseded == {}


def test_versions_need_one_title_one_subject_and_shared_text_and_say_why() -> None:
    body = "第一条 密码长度不少于12位。第二条 每180天更换。" * 40
    old = report("p1", "信息安全管理制度", "", [], 2022, version="版本号: V2.0", text=body)
    new = report(
        "p2", "信息安全管理制度（2024年修订）", "", [], 2024, version="版本号: V3.0", text=body + "第三条 新增。"
    )
    other = report(
        "p3", "信息安全管理制度", "", [], 2024, version="版本号: V1.0", text="完全不同的内容，关于差旅报销。" * 60
    )
    catalog = {e.doc_id: e for e in (old, new, other)}
    for e, number in zip(catalog.values(), ([2, 0], [3, 0], [1, 0]), strict=True):
        e.profile.subject.kind = ""  # policies, not reports
        e.profile.version_number = number
    kept, superseded, reasons = versions_of(["p1", "p2", "p3"], catalog)
    assert superseded == {"p1": "p2"} and "p3" in kept
    assert "V3.0" in reasons["p1"] and "in common" in reasons["p1"]


def _contract(doc_id: str, title: str) -> CatalogEntry:
    profile = DocumentProfile(doc_id=doc_id, title=title, family=family_key(title, ""),
                              signature=text_signature([f"{title} 合同条款" * 50]))
    return CatalogEntry(doc_id, f"/kb/合同/{title}.docx", profile)


def test_a_document_named_by_title_beside_a_party_company_is_the_scope() -> None:
    """The company a contract names is a party to it: its annual report joins the scope only when asked for."""
    catalog = {**CATALOG, "ct": _contract("ct", "航天电器-蓝海物流技术服务合同")}
    scope = resolve_named("航天电器和蓝海物流签的技术服务合同，第二期款什么时候付？", catalog)
    assert scope is not None and scope.doc_ids == ["ct"]
    both = resolve_named("航天电器年报里提到的技术服务合同，第二期款什么时候付？", catalog)
    assert both is not None and set(both.doc_ids) == {"ct", "ht19"}
