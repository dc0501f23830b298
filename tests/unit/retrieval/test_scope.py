"""Scope resolution on literal catalogs: names, type words, versions, explicit references."""

from __future__ import annotations

from indexing.profile import DocumentProfile, name_key
from retrieval.catalog import CatalogEntry
from retrieval.scope import newest_versions, resolve_explicit, resolve_named


def entry(doc_id: str, path: str, title: str, version: str | None = None, date: str | None = None,
          number: list[int] | None = None, mtime: float = 0.0) -> CatalogEntry:
    profile = DocumentProfile(doc_id=doc_id, title=title, family=name_key(title), version=version,
                              effective_date=date, version_number=number)
    return CatalogEntry(doc_id, path, profile, mtime)


CATALOG = {e.doc_id: e for e in [
    entry("h" * 64, "/kb/人事/员工手册.pdf", "星河智能员工手册（2024版）"),
    entry("c" * 64, "/kb/合同/技术服务合同.docx", "技术服务合同"),
    entry("n" * 64, "/kb/通知/关于国庆节放假安排的通知.txt", "关于2024年国庆节放假安排的通知"),
    entry("p1" + "0" * 62, "/kb/制度/归档/信息安全管理制度.docx", "信息安全管理制度", "版本号: V2.0", "2022-01-01",
          [2, 0]),
    entry("p2" + "0" * 62, "/kb/制度/信息安全管理制度.docx", "信息安全管理制度", "版本号: V3.0", "2024-09-01",
          [3, 0]),
    entry("m1" + "0" * 62, "/kb/纪要/3月例会纪要.docx", "会议纪要", mtime=1.0),
    entry("m2" + "0" * 62, "/kb/纪要/4月例会纪要.docx", "会议纪要", mtime=2.0),
]}


def test_a_title_named_in_the_question_scopes_it() -> None:
    scope = resolve_named("员工手册里年假怎么规定？", CATALOG)
    assert scope is not None and scope.method == "named" and scope.doc_ids == ["h" * 64]


def test_type_words_name_documents_in_either_language() -> None:
    assert resolve_named("这份合同的付款方式是什么？", CATALOG).doc_ids == ["c" * 64]
    assert resolve_named("What does the notice say about duty phones?", CATALOG).doc_ids == ["n" * 64]


def test_no_name_means_retrieval_decides() -> None:
    assert resolve_named("年假有几天？", CATALOG) is None


def test_the_newest_stated_version_wins_and_the_older_is_reported() -> None:
    scope = resolve_named("信息安全管理制度对密码有什么要求？", CATALOG)
    assert scope.doc_ids == ["p2" + "0" * 62]
    assert scope.superseded == {"p1" + "0" * 62: "p2" + "0" * 62}


def test_a_comparison_of_versions_keeps_both() -> None:
    scope = resolve_named("对比新旧两版信息安全管理制度的密码要求", CATALOG)
    assert sorted(scope.doc_ids) == sorted(["p1" + "0" * 62, "p2" + "0" * 62]) and not scope.superseded


def test_same_title_without_stated_versions_is_two_documents() -> None:
    kept, superseded = newest_versions(["m1" + "0" * 62, "m2" + "0" * 62], CATALOG)
    assert len(kept) == 2 and superseded == {}


def test_explicit_references_by_file_name_id_prefix_and_unknown() -> None:
    scope = resolve_explicit(["技术服务合同.docx", "h" * 10, "nope.pdf"], CATALOG)
    assert scope.doc_ids == ["c" * 64, "h" * 64] and scope.unknown == ["nope.pdf"]


def test_a_generic_english_word_shared_with_a_long_title_names_nothing() -> None:
    catalog = {e.doc_id: e for e in [
        entry("d" * 64, "/kb/pdf/en_DA-619p.pdf", "en_DA-619p"),
        entry("m" * 64, "/kb/docx/zh_en_mineru_docx_01.docx", "MinerU supports DOCX document parsing now"),
    ]}
    scope = resolve_named("How many pages does the DA-619p document have?", catalog)
    assert scope is not None and scope.doc_ids == ["d" * 64]
    assert resolve_named("Which document mentions the budget?", catalog) is None


def test_a_whole_file_name_names_its_document_however_short_its_stem() -> None:
    files = {e.doc_id: e for e in [entry("s" * 64, "/kb/sales.csv", "sales"),
                                   entry("o" * 64, "/kb/orders.csv", "orders"),
                                   entry("x" * 64, "/kb/sales-2023.csv", "sales-2023")]}
    scope = resolve_named("sales.csv中amount的合计是多少？", files)
    assert scope is not None and scope.doc_ids == ["s" * 64] and scope.matched == {"s" * 64: "sales.csv"}
    both = resolve_named("sales.csv和orders.csv中amount的合计", files)
    assert both is not None and sorted(both.doc_ids) == ["o" * 64, "s" * 64]  # two files named: both kept
    assert resolve_named("what were the sales in 2023?", files) is None  # a word of a name is no file name
    assert resolve_named("mysales.csv 的合计", files) is None


def test_a_named_file_is_cut_from_the_question_with_its_ascii_extension_only() -> None:
    from retrieval.answer_texts import strip_names

    assert strip_names("orders.csv中qty的合计是多少？", ["orders"]) == "qty的合计是多少？"
    cut = strip_names("What is the total amount in sales.csv?", ["sales.csv", "sales"])
    assert cut == "What is the total amount in ?"
