"""Citation markers: parsed in the spellings models use, mapped, invented numbers removed and counted."""

from __future__ import annotations

from retrieval.citations import best_quote, citation_from_metadata, claims_by_marker, heading_list, resolve_markers
from retrieval.extractive import char_bigrams


def test_valid_markers_are_kept_and_listed_in_order_of_first_use() -> None:
    result = resolve_markers("华东区为120万元[2]，华南区为80万元【1】。合计200万元[1, 2]。", {1, 2})
    assert result.cited == [2, 1]
    assert result.removed == 0
    assert result.text == "华东区为120万元[2]，华南区为80万元【1】。合计200万元[1, 2]。"


def test_markers_pointing_to_nothing_are_removed_and_counted() -> None:
    result = resolve_markers("Sales rose [3]. Costs fell [1, 7]. Margin [7][9].", {1, 2})
    assert result.text == "Sales rose. Costs fell [1]. Margin."
    assert result.cited == [1]
    assert result.removed == 4


def test_non_numeric_brackets_are_not_markers() -> None:
    result = resolve_markers("见[注]和[a]。", {1})
    assert result.text == "见[注]和[a]。" and result.cited == [] and result.removed == 0


def test_claims_and_quotes() -> None:
    claims = claims_by_marker("华东区第一季度销售额为120万元[1]。华南区为80万元[2]。")
    assert claims[1].startswith("华东区第一季度") and "[1]" not in claims[1]
    chunk = "本表统计各区销售额。华东区第一季度销售额为120万元。华南区第一季度销售额为80万元。"
    assert best_quote(claims[1], chunk, char_bigrams) == "华东区第一季度销售额为120万元。"
    assert best_quote("无关", chunk, char_bigrams) == "本表统计各区销售额。"


def test_citation_from_stored_metadata() -> None:
    meta = {"doc_id": "d1", "path": "/data/报告.pdf", "heading_path": "第一章 总则 > 第三条", "page": 3, "page_end": 4}
    citation = citation_from_metadata(1, "d1:0003", "", meta, quote="q")
    assert citation.document == "报告.pdf" and citation.doc_id == "d1"
    assert citation.heading_path == ["第一章 总则", "第三条"]
    assert citation.label() == "[1] 报告.pdf · p. 3-4 · 第一章 总则 > 第三条"
    out = citation.to_json()
    assert out["page"] == 3 and "sheet" not in out and out["chunk_id"] == "d1:0003"
    assert heading_list(["a", ""]) == ["a"] and heading_list(None) == []
