"""The retrieval query of a scoped question drops the words that chose the scope (pure function, literals)."""

from __future__ import annotations

from retrieval.answer_texts import COMPARE_WORDS
from retrieval.search import without_naming_words


def test_a_comparison_keeps_only_what_it_asks_about():
    naming = ["信息安全管理制度", *COMPARE_WORDS, "杭州星河智能科技股份有限公司信息安全管理制度"]
    got = without_naming_words("对比新旧两版信息安全管理制度，密码要求有哪些变化？", naming)
    assert "密码要求" in got
    assert "信息安全管理制度" not in got and "对比" not in got and "两版" not in got


def test_longer_names_go_first():
    assert without_naming_words("星河公司年报的营业收入", ["星河", "星河公司年报"]) == "的营业收入"


def test_a_query_that_only_names_documents_stays_as_it_is():
    assert without_naming_words("信息安全管理制度", ["信息安全管理制度"]) == "信息安全管理制度"
    assert without_naming_words("总结一下会议纪要", ["会议纪要", "总结一下"]) == "总结一下会议纪要"


def test_nothing_to_drop_leaves_the_query_unchanged():
    assert without_naming_words("密码长度要求？", []) == "密码长度要求？"
    assert without_naming_words("密码长度要求？", ["x"]) == "密码长度要求？"  # one-character words are kept


def test_only_words_naming_every_document_in_scope_are_left_out_of_the_search() -> None:
    """Two versions titled alike: their title matches both and is dropped; a contract beside a company's annual
    report: the contract's title tells the two apart and is searched for."""
    from indexing.profile import DocumentProfile
    from retrieval.answer_texts import shared_naming_words
    from retrieval.catalog import CatalogEntry
    from retrieval.scope import Scope

    def entry(doc_id: str, title: str, path: str) -> CatalogEntry:
        return CatalogEntry(doc_id, path, DocumentProfile(doc_id=doc_id, title=title))

    versions = {"a": entry("a", "信息安全管理制度", "/kb/制度/信息安全管理制度.docx"),
                "b": entry("b", "信息安全管理制度", "/kb/归档/信息安全管理制度.docx")}
    scope = Scope("named", ["a", "b"], matched={"a": "信息安全管理制度", "b": "信息安全管理制度"})
    assert "信息安全管理制度" in shared_naming_words(scope, versions)
    mixed = {"c": entry("c", "技术服务合同", "/kb/合同/星河智能-蓝海物流技术服务合同.docx"),
             "r": entry("r", "2023年年度报告", "/kb/财务/星河智能2023年年度报告.pdf")}
    scope = Scope("named", ["c", "r"], matched={"c": "技术服务合同", "r": "杭州星河智能科技股份有限公司"})
    words = shared_naming_words(scope, mixed)
    assert "技术服务合同" not in words and "2023年年度报告" not in words and "对比" in words
