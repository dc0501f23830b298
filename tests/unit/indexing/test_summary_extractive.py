"""TextRank over jieba tokens: within budget, in source order, every source covered, figures kept."""

from __future__ import annotations

from indexing.summary import textrank_summary
from officeqa.tokens import default_token_counter

count = default_token_counter().count

FILLER = [
    "公司持续推进管理体系建设。",
    "各部门按照要求开展相关工作。",
    "相关工作总体进展顺利。",
    "公司将继续加强管理工作。",
]
FIGURES = "报告期内公司实现营业收入120.5亿元，同比增长15.3%，净利润为18.2亿元。"


def test_a_text_that_fits_is_returned_whole() -> None:
    assert textrank_summary(["第一句。第二句。", "第三句。"], 100, count) == "第一句。第二句。\n\n第三句。"
    assert textrank_summary(["", "  "], 100, count) == ""


def test_the_summary_fits_the_budget_keeps_source_order_and_prefers_figures() -> None:
    source = "".join(FILLER[:2]) + FIGURES + "".join(FILLER[2:]) + "公司管理工作将按照要求继续推进。" * 1
    budget = count(FIGURES) + 16
    summary = textrank_summary([source], budget, count)
    assert count(summary) <= budget
    assert "120.5亿元" in summary
    # quoted, not reworded: every sentence is in the source, in the source's order
    sentences = [s + "。" for s in summary.split("。") if s]
    positions = [source.index(s) for s in sentences]
    assert positions == sorted(positions)


def test_every_source_is_covered_before_any_source_gets_a_second_sentence() -> None:
    chapters = [
        "第一章介绍公司经营情况。公司经营情况稳定，营业收入增长。公司经营情况良好，利润增长。公司经营情况继续改善。",
        "第二章介绍风险管理。风险管理体系健全。",
        "第三章介绍公司治理。董事会召开会议8次。",
    ]
    summary = textrank_summary(chapters, 40, count)
    assert count(summary) <= 40
    assert all(any(part in summary for part in chapter.split("。") if part) for chapter in chapters)


def test_heading_lines_are_labels_not_content() -> None:
    text = "第三章 风险管理\n" + "".join(FILLER) + FIGURES
    summary = textrank_summary([text], 60, count, skip=["第三章 风险管理"])
    assert "第三章 风险管理" not in summary
    assert summary


def test_one_sentence_above_the_budget_is_cut() -> None:
    long_sentence = "，".join(f"第{i}项指标完成" for i in range(60)) + "。"
    summary = textrank_summary([long_sentence, long_sentence + "另外一句。"], 20, count)
    assert 0 < count(summary) <= 20


def test_english_sentences_are_joined_with_spaces() -> None:
    text = ("Revenue grew 12% to 3.4 billion dollars. The board met eight times. "
            "Staff numbers were stable. The company expects growth next year. Operations continued as usual.")
    summary = textrank_summary([text], 20, count)
    assert "  " not in summary and ".The" not in summary
    assert count(summary) <= 20


def test_a_chunk_that_merged_small_sections_gives_each_section_its_own_topic_sentence() -> None:
    chunk = (
        "Eligibility\nEmployees may work remotely for up to three days per week.\n"
        "Information security\nAll access from home must go through the company VPN. Working without the VPN "
        "is prohibited. Printing confidential documents at home is not allowed.\n"
        "Allowance\nEmployees working at home receive an allowance of RMB 300 per month. The allowance is paid "
        "with the salary of the employees at home."
    )
    wanted = ("Employees may work remotely for up to three days per week. All access from home must go through the "
              "company VPN. Employees working at home receive an allowance of RMB 300 per month.")
    budget = count(wanted) + 6
    assert budget < count(chunk)
    summary = textrank_summary([chunk], budget, count)
    assert count(summary) <= budget
    assert "VPN" in summary and "three days" in summary and "300" in summary, summary
    assert "Information security" not in summary  # heading lines are labels, not content
