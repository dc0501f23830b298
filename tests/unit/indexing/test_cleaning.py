"""Cleaning rules (issue 2, step 4), one test per rule, on literal blocks and strings."""

from __future__ import annotations

import pytest

from indexing.cleaning import KEPT_FULLWIDTH_PUNCTUATION, clean_blocks, clean_text, repair_mojibake
from officeqa.domain import Block, BlockType


@pytest.mark.parametrize(
    "invisible",
    ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\x00", "\x07", "\x1b", "\x7f", "\x85"],
)
def test_invisible_and_control_characters_are_removed(invisible: str) -> None:
    assert clean_text(f"合{invisible}同编号{invisible}ABC") == "合同编号ABC"


def test_tab_and_newline_survive_control_character_removal() -> None:
    assert clean_text("名称\t数量\n\n苹果\t3") == "名称\t数量\n\n苹果\t3"


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2002", "\u202f"])
def test_unicode_spaces_become_ascii_space(space: str) -> None:
    assert clean_text(f"Total{space}amount") == "Total amount"


def test_ideographic_indent_is_trimmed_but_text_kept() -> None:
    assert clean_text("\u3000\u3000本合同自双方签字之日起生效。") == "本合同自双方签字之日起生效。"


def test_fullwidth_letters_digits_and_symbols_fold_to_ascii() -> None:
    assert clean_text("ＡＢＣａｂｃ１２３％＋－＝＠＃＆＄／＜＞［］＿～") == "ABCabc123%+-=@#&$/<>[]_~"


def test_chinese_punctuation_is_kept_fullwidth() -> None:
    text = "甲方，乙方。是否？好！注意：如下；（一）、“引号”《合同法》【附件】"
    assert clean_text(text) == text


@pytest.mark.parametrize("mark", sorted(KEPT_FULLWIDTH_PUNCTUATION))
def test_each_kept_fullwidth_mark_stays(mark: str) -> None:
    assert clean_text(f"第１条{mark}内容") == f"第1条{mark}内容"


def test_fullwidth_numbering_dot_folds_so_numbers_read_normally() -> None:
    assert clean_text("金额为１２．５万元") == "金额为12.5万元"


def test_three_or_more_newlines_compress_to_one_blank_line_and_trailing_spaces_go() -> None:
    assert clean_text("第一段。   \n\n\n\n\n第二段。\t \n") == "第一段。\n\n第二段。"


def test_english_hyphenated_line_break_is_joined() -> None:
    assert clean_text("The docu-\nment was signed by both parties.") == "The document was signed by both parties."


def test_hyphen_before_a_digit_or_capital_is_not_a_hyphenation() -> None:
    assert "COVID19" not in clean_text("The report counted the cases of COVID-\n19 in the region in March.")
    assert "COVID-" in clean_text("The report counted the cases of COVID-\n19 in the region in March.")
    assert "Sino-" in clean_text("The agreement was the first of the new Sino-\nBritish trade agreements.")


def test_chinese_soft_line_break_inside_a_sentence_is_joined() -> None:
    assert clean_text("我们今天\n去公园") == "我们今天去公园"


def test_line_break_after_chinese_sentence_end_is_kept() -> None:
    assert clean_text("会议已经结束。\n下午大家去公园") == "会议已经结束。\n下午大家去公园"
    assert clean_text("你来了吗？\n我在门口等你") == "你来了吗？\n我在门口等你"


def test_line_break_before_a_list_marker_or_heading_is_kept() -> None:
    assert clean_text("付款方式如下\n1. 首付百分之三十\n2. 余款验收后付清") == (
        "付款方式如下\n1. 首付百分之三十\n2. 余款验收后付清"
    )
    assert clean_text("合同内容如下\n（1）交付时间") == "合同内容如下\n（1）交付时间"
    assert clean_text("本章规定了合同的基本原则\n第二章 违约责任") == "本章规定了合同的基本原则\n第二章 违约责任"


def test_label_lines_are_not_joined() -> None:
    assert clean_text("姓名：张三\n性别：男\n电话：13800138000") == "姓名：张三\n性别：男\n电话：13800138000"


def test_a_column_of_short_lines_is_kept() -> None:
    assert clean_text("项目背景\n市场分析\n竞争格局") == "项目背景\n市场分析\n竞争格局"


def test_wrapped_chinese_paragraph_joins_across_many_lines() -> None:
    lines = [
        "本协议由甲乙双方在平等自愿的基础上",
        "协商一致签订，双方应当严格遵守本协议",
        "的各项条款，不得擅自变更或者解除。",
    ]
    assert clean_text("\n".join(lines)) == "".join(lines)


def test_english_soft_break_inside_a_sentence_becomes_a_space() -> None:
    text = "The supplier shall deliver the goods to the buyer's\nwarehouse within thirty days of the order."
    assert clean_text(text) == text.replace("\n", " ")


def test_short_english_lines_keep_their_breaks() -> None:
    assert clean_text("John Smith\nSales\nBeijing") == "John Smith\nSales\nBeijing"


def test_mojibake_from_latin1_read_utf8_is_repaired() -> None:
    assert repair_mojibake("1986\u00e2\u0080\u00931990") == "1986–1990"
    assert repair_mojibake("café Ã©") == "café Ã©"  # no C1 code: left alone


def test_code_blocks_are_not_folded_or_reflowed() -> None:
    code = "x = ＡＢＣ  \nresult = compute(\n    docu-\nment)\n\n\n\nprint(x)"
    [block] = clean_blocks([Block(BlockType.CODE, text="\ufeff" + code + "\n")])
    assert block.text == code


def test_empty_blocks_are_dropped_but_page_breaks_stay() -> None:
    blocks = [
        Block(BlockType.PARAGRAPH, text="\u200b \u3000\n"),
        Block(BlockType.PAGE_BREAK, page=2),
        Block(BlockType.HEADING, text="\ufeff", level=1),
        Block(BlockType.LIST, text="", items=["\u00a0", ""]),
        Block(BlockType.TABLE, text="", header_rows=[["", "\u200b"]], rows=[[" ", ""]]),
        Block(BlockType.PARAGRAPH, text="正文"),
    ]
    cleaned = clean_blocks(blocks)
    assert [b.type for b in cleaned] == [BlockType.PAGE_BREAK, BlockType.PARAGRAPH]
    assert cleaned[1].text == "正文"


def test_table_cells_are_cleaned_and_text_rerendered() -> None:
    block = Block(
        BlockType.TABLE,
        text="stale",
        header_rows=[["项目\u200b名称", "金额（元）"]],
        rows=[["办公\n用品", "１２０"], ["", ""], ["差旅\u00a0费", "３５０"]],
    )
    [cleaned] = clean_blocks([block])
    assert cleaned.header_rows == [["项目名称", "金额（元）"]]
    assert cleaned.rows == [["办公用品", "120"], ["差旅 费", "350"]]
    assert cleaned.text == "项目名称 | 金额（元）\n办公用品 | 120\n差旅 费 | 350"


def test_list_items_are_cleaned_and_empty_items_dropped() -> None:
    [cleaned] = clean_blocks([Block(BlockType.LIST, text="x", items=["第１项\u200b", "\u3000", "第二项"])])
    assert cleaned.items == ["第1项", "第二项"]
    assert cleaned.text == "第1项\n第二项"


def test_list_levels_stay_aligned_when_items_are_dropped() -> None:
    block = Block(BlockType.LIST, text="x", items=["一", "\u200b", "二"], meta={"levels": [0, 1, 1]})
    [cleaned] = clean_blocks([block])
    assert (cleaned.items, cleaned.meta["levels"]) == (["一", "二"], [0, 1])


def test_heading_lines_join_into_one_line() -> None:
    [cleaned] = clean_blocks([Block(BlockType.HEADING, text="第一章\n总则", level=1)])
    assert cleaned.text == "第一章 总则"
