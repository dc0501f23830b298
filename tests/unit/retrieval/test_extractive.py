"""Extractive answers quote the best-matching sentences with their citations."""

from __future__ import annotations

from officeqa.text_tokens import tokenize_for_bm25
from prompts.assembler import Material
from retrieval.extractive import char_bigrams, extractive_answer


def mat(i: int, text: str, path: str = "/d/销售.docx") -> Material:
    return Material(text=text, source=f"s{i}", score=1.0, chunk_id=f"c{i}", document="销售.docx",
                    meta={"doc_id": "d", "path": path, "heading_path": "销售 > 华东", "page": i + 1})


MATERIALS = [
    mat(0, "本章介绍公司概况。第一季度华东区销售额为120万元。员工人数保持稳定。"),
    mat(1, "第一季度华南区销售额为80万元。第二季度华东区销售额为150万元。"),
    mat(2, "附录：术语表。"),
]


def test_best_sentences_with_citations_in_document_order() -> None:
    answer = extractive_answer("第一季度华东区销售额是多少？", MATERIALS, language="zh", max_sentences=2,
                               tokenize=tokenize_for_bm25)
    assert "- 第一季度华东区销售额为120万元。 [1]" in answer.text.splitlines()
    assert answer.text.splitlines()[0].startswith("以下是文档中")
    assert [c.n for c in answer.citations] == sorted(c.n for c in answer.citations)
    first = answer.citations[0]
    assert first.chunk_id == "c0" and first.page == 1 and first.quote == "第一季度华东区销售额为120万元。"
    assert "员工人数" not in answer.text


def test_bigram_fallback_and_english_header() -> None:
    mats = [mat(0, "The leave policy grants 20 days per year. Offices close on Sunday.", path="/d/hb.md")]
    answer = extractive_answer("How many days of leave per year?", mats, language="en", tokenize=char_bigrams)
    assert answer.text.splitlines()[1] == "- The leave policy grants 20 days per year. [1]"
    assert answer.citations[0].document == "hb.md"


def test_no_overlap_quotes_the_top_material_and_no_materials_says_so() -> None:
    answer = extractive_answer("完全无关的问题", [mat(0, "甲乙丙丁戊己。庚辛壬癸。")], tokenize=tokenize_for_bm25)
    assert "甲乙丙丁戊己。 [1]" in answer.text
    assert extractive_answer("问题", []).citations == []


def test_a_table_chunk_is_answered_by_its_row_not_its_header_line() -> None:
    table = Material(
        text="年份 | 主体信用评级 | 评级机构\n年份: 2022, 主体信用评级: AA+, 评级机构: 联合资信\n"
        "年份: 2021, 主体信用评级: AA, 评级机构: 中诚信",
        source="s0", score=1.0, chunk_id="t0", document="募集说明书.pdf",
        meta={"doc_id": "d", "path": "/d/募集说明书.pdf", "kind": "table", "page": 1},
    )
    answer = extractive_answer("2022年的主体信用评级是什么？", [table], language="zh", max_sentences=1,
                               tokenize=tokenize_for_bm25)
    assert answer.sentences[0][1] == "年份: 2022, 主体信用评级: AA+, 评级机构: 联合资信"
    assert "|" not in answer.text
