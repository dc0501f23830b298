"""Chapter headings read from a document's chunk lines, and the section a question names cut at the next heading:
table-of-contents lines and running page headers are not headings; a 第X节 is found by number or by title, a
capitalised heading by its words; the section ends where the next heading of its kind starts."""

from __future__ import annotations

from typing import Any

from retrieval.section_finder import find_section, names_a_section, scan_headings

TOC = "目录\n第一节 重要提示......2\n第二节 公司业务概要......4\n第三节 公司治理......9"
CHUNKS: list[tuple[str, str, dict[str, Any]]] = [
    ("d-00000", TOC, {"page": 1}),
    ("d-00001", "KP ANNUAL REPORT\n第一节 重要提示\n董事会保证年度报告内容的真实、准确、完整。", {"page": 2}),
    ("d-00002", "KP ANNUAL REPORT\n第二节 公司业务概要\n公司主营业务为工业传感器的研发和销售。", {"page": 4}),
    ("d-00003", "KP ANNUAL REPORT\n公司产品生产采取以销定产模式。\n第三节 公司治理\n公司治理结构完善。", {"page": 9}),
    ("d-00004", "KP ANNUAL REPORT\nLIQUIDITY AND CAPITAL RESOURCES\nKPLP met its Funding Requirements.\n"
                "RISK FACTORS\nRefer to the Annual Information Form.", {"page": 25}),
]


def test_headings_skip_the_table_of_contents_and_running_headers() -> None:
    titles = [h.title for h in scan_headings(CHUNKS)]
    assert titles == ["第一节 重要提示", "第二节 公司业务概要", "第三节 公司治理", "LIQUIDITY AND CAPITAL RESOURCES",
                      "RISK FACTORS"]


def test_a_chapter_named_by_number_runs_to_the_next_chapter() -> None:
    section = find_section(None, "d", CHUNKS, "第二节讲了什么？")
    assert section is not None and section.title == "第二节 公司业务概要"
    text = "\n".join(p.text for p in section.pieces)
    assert "工业传感器" in text and "以销定产" in text and "公司治理结构完善" not in text
    assert section.pages == (4, 9)


def test_a_capitalised_heading_named_by_its_words_ends_at_the_next_one() -> None:
    section = find_section(None, "d", CHUNKS, "What does the MD&A say about liquidity and capital resources?")
    assert section is not None and section.title == "LIQUIDITY AND CAPITAL RESOURCES"
    assert [p.text for p in section.pieces] == ["LIQUIDITY AND CAPITAL RESOURCES\nKPLP met its Funding Requirements."]


def test_no_section_named_and_the_naming_forms() -> None:
    assert find_section(None, "d", CHUNKS, "第五节讲了什么？") is None
    assert find_section(None, "d", CHUNKS, "公司的营业收入是多少？") is None
    assert names_a_section("第五节讲了什么") and names_a_section("公司治理一节的要点")
    assert names_a_section("Summarize the Risk Factors section") and not names_a_section("总结一下这份报告")
