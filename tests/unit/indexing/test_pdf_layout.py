"""Pure layout rules of the PDF parser: page numbers, running headers/footers, line joining, headings."""

from __future__ import annotations

import pytest

from indexing.parsing.pdf_layout import (
    Line,
    Paragraph,
    assemble_paragraphs,
    assign_heading_levels,
    find_running_keys,
    is_page_number_line,
    join_text,
    merge_page_continuations,
    repeat_key,
    strip_page_furniture,
)


@pytest.mark.parametrize(
    "text",
    [
        "第 3 页 共 12 页",
        "第3页",
        "第三页",
        "共 12 页 第 3 页",
        "Page 3 of 12",
        "page 7",
        "- 3 -",
        "— 14 —",
        "3 / 12",
        "（5）",
    ],
)
def test_page_number_lines_are_recognised(text: str) -> None:
    assert is_page_number_line(text, at_edge=False)


@pytest.mark.parametrize(
    "text", ["第三章 总则", "Page layout matters", "3.5 / 12 kg", "共计 12 项", "Table 3 of the report"]
)
def test_body_lines_are_not_page_numbers(text: str) -> None:
    assert not is_page_number_line(text)


def test_bare_number_is_a_page_number_only_at_the_edge() -> None:
    assert is_page_number_line("17", at_edge=True)
    assert is_page_number_line("xii", at_edge=True)
    assert not is_page_number_line("17", at_edge=False)
    assert not is_page_number_line("lid", at_edge=True)  # roman letters, but not a numeral


def test_repeat_key_folds_digits_spaces_and_roman_folios() -> None:
    assert repeat_key("2023 年报  第 3 页") == repeat_key("2023 年报 第 4 页")
    assert repeat_key("© Copyright IBM Corp. 2014. All rights reserved. iii") == repeat_key(
        "© Copyright IBM Corp. 2014. All rights reserved. xi"
    )
    assert repeat_key("Chapter One") != repeat_key("Chapter Two")


def _page(number: int, body: list[str], header: str | None = None, footer: str | None = None) -> list[Line]:
    texts = [*([header] if header else []), *body, *([footer] if footer else [])]
    return [Line(text=t, page=number) for t in texts]


_OPENINGS = ["甲方应按时付款。", "乙方负责交付货物。", "双方共同验收。", "争议提交仲裁。"]
_ENDINGS = ["本条完。", "详见附件。", "另行约定。", "以此为准。"]


def test_running_header_and_page_number_footer_are_removed() -> None:
    pages = [
        _page(
            n,
            [_OPENINGS[n - 1], "第二行正文。" * n, "每页中间都有的一行正文。", "倒数第二行。" * n, _ENDINGS[n - 1]],
            header="某某公司 2023 年年度报告",
            footer=f"第 {n} 页 共 4 页",
        )
        for n in range(1, 5)
    ]
    cleaned = strip_page_furniture(pages, min_pages=3)
    texts = [line.text for page in cleaned for line in page]
    assert not any("年度报告" in t for t in texts)
    assert not any(t.startswith("第 ") for t in texts)
    assert texts.count("每页中间都有的一行正文。") == 4  # repeated, but not at an edge
    assert "双方共同验收。" in texts and "以此为准。" in texts


def test_header_on_fewer_pages_than_the_minimum_is_kept_but_folios_go() -> None:
    pages = [_page(n, [f"Body text {n}."], header="ACME Quarterly Report", footer=f"- {n} -") for n in range(1, 4)]
    cleaned = strip_page_furniture(pages, min_pages=4)
    texts = [line.text for page in cleaned for line in page]
    assert texts.count("ACME Quarterly Report") == 3
    assert not any(t.startswith("- ") for t in texts)


def test_header_varying_only_by_digits_counts_as_running() -> None:
    pages = [_page(n, ["Body."], header=f"{n} Row and Column Access Control") for n in range(1, 5)]
    assert "#rowandcolumnaccesscontrol" in find_running_keys(pages, 3)


def test_repeated_edge_line_at_different_heights_is_not_running() -> None:
    # The same quotation closing three pages, but at different heights: body text, not a footer.
    pages = [
        [
            Line(["Alpha.", "Beta.", "Gamma."][n - 1], n, 50, 500, 100, 112, 12),
            Line("—Dwarven saying.", n, 50, 200, 300 + 90 * n, 312 + 90 * n, 12),
        ]
        for n in range(1, 4)
    ]
    assert find_running_keys(pages, 3) == set()
    assert len([line for page in strip_page_furniture(pages, 3) for line in page]) == 6


def test_page_number_sharing_a_row_with_a_running_title_is_removed() -> None:
    pages = [
        [
            Line("第一章 商品", n, 100, 200, 40, 52, 12),
            Line(str(10 + n), n, 500, 512, 41, 52, 11),
            Line("正文很长的一段文字，内容各页不同。" * 2, n, 50, 540, 100, 112, 12),
        ]
        for n in range(1, 3)
    ]
    cleaned = strip_page_furniture(pages, 3)
    texts = [line.text for page in cleaned for line in page]
    assert "11" not in texts and "12" not in texts
    assert texts.count("第一章 商品") == 2  # only two pages: below the running minimum


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        ("本合同自双方签字", "之日起生效。", "本合同自双方签字之日起生效。"),
        ("The quick brown", "fox jumps.", "The quick brown fox jumps."),
        ("the infor-", "mation system", "the information system"),
        ("the Dragon-", "Age", "the Dragon- Age"),
        ("付款金额为", "USD 100", "付款金额为USD 100"),
        ("무이자할부, 다이어트할부", "구매건", "무이자할부, 다이어트할부 구매건"),
    ],
)
def test_join_text(left: str, right: str, joined: str) -> None:
    assert join_text(left, right) == joined


def test_plain_lines_join_until_sentence_end_and_around_headings() -> None:
    lines = [
        Line("第一章 总则", 1),
        Line("为了规范公司的采购流程，提高", 1),
        Line("资金使用效率，制定本办法。", 1),
        Line("本办法适用于全体员工。", 1),
        Line("Line breaks inside an English", 1),
        Line("sentence are soft.", 1),
    ]
    paragraphs = assemble_paragraphs(lines)
    assert [p.text for p in paragraphs] == [
        "第一章 总则",
        "为了规范公司的采购流程，提高资金使用效率，制定本办法。",
        "本办法适用于全体员工。",
        "Line breaks inside an English sentence are soft.",
    ]


def _geo(text: str, top: float, x1: float = 540, size: float = 12, x0: float = 50) -> Line:
    return Line(text=text, page=1, x0=x0, x1=x1, top=top, bottom=top + size, size=size)


def test_geometry_breaks_paragraphs_at_gaps_and_short_sentence_ends() -> None:
    lines = [
        _geo("A sentence ends at the right edge of the column.", 100),
        _geo("and the paragraph goes on, ending short.", 114, x1=300),
        _geo("A new paragraph starts here without a gap and", 128),
        _geo("ends at the gap.", 142, x1=200),
        _geo("After a blank gap", 175),
        _geo("another one.", 189, x1=150),
    ]
    paragraphs = assemble_paragraphs(lines)
    assert [p.text for p in paragraphs] == [
        "A sentence ends at the right edge of the column. and the paragraph goes on, ending short.",
        "A new paragraph starts here without a gap and ends at the gap.",
        "After a blank gap another one.",
    ]


def test_size_change_and_bullets_break_paragraphs() -> None:
    lines = [
        _geo("Big title", 60, x1=200, size=20),
        _geo("Body text follows the title and", 90),
        _geo("• first bullet", 104, x1=150),
        _geo("• second bullet", 118, x1=150),
    ]
    assert [p.text for p in assemble_paragraphs(lines)] == [
        "Big title",
        "Body text follows the title and",
        "• first bullet",
        "• second bullet",
    ]


def test_headings_by_wording_size_and_weight() -> None:
    paragraphs = [
        Paragraph("Annual Report", 1, size=24, top=0, bottom=24),
        Paragraph("Overview of the year", 1, size=16, top=30, bottom=46),
        Paragraph("Body text. " * 20, 1, size=11, top=50, bottom=100, line_count=5),
        Paragraph("第二章 经营情况", 1, size=11, top=110, bottom=121),
        Paragraph("Key risks", 1, size=11, top=130, bottom=141, bold=True),
        Paragraph("A large sentence that ends.", 1, size=16, top=150, bottom=166),
        Paragraph("More body text. " * 20, 1, size=11, top=170, bottom=220, line_count=5),
    ]
    assign_heading_levels(paragraphs)
    assert [p.level for p in paragraphs] == [1, 2, None, 1, 3, None, None]


def _para(text: str, page: int, size: float = 11, level: int | None = None) -> Paragraph:
    return Paragraph(text, page, size=size, top=0, bottom=0, level=level)


def test_paragraph_cut_by_a_page_break_is_rejoined() -> None:
    items = [
        _para("甲方应当在收到发票后三十日内", 3),
        _para("支付全部货款。", 4),
        _para("The committee approved the", 4),
        _para("budget for the next year.", 5),
    ]
    merged = merge_page_continuations(items)
    assert [(p.text, p.page, p.page_end) for p in merged] == [
        ("甲方应当在收到发票后三十日内支付全部货款。", 3, 4),
        ("The committee approved the budget for the next year.", 4, 5),
    ]


def test_page_break_after_a_sentence_end_heading_or_other_block_is_kept() -> None:
    table = object()
    cases = [
        [_para("本条到此结束。", 1), _para("下一条内容。", 2)],  # sentence ended
        [_para("the end of the page without a stop", 1), _para("Capitalised start", 2)],
        [_para("未完的句子", 1), _para("第二章 总则", 2)],  # a heading follows
        [_para("未完的句子", 1), table, _para("续文", 2)],  # a table sits between
        [_para("未完的句子", 1), _para("续文", 3)],  # not the next page
        [_para("未完的句子", 1), _para("“引文开始", 2)],
        [_para("small footnote text without stop", 1, size=8), _para("body text goes on", 2, size=12)],
    ]
    for items in cases:
        assert len(merge_page_continuations(items)) == len(items)


def test_fragments_on_one_row_are_joined_whatever_their_size() -> None:
    lines = [
        Line("Zejiang Shen", 1, x0=135, x1=188, top=100, bottom=110, size=10),
        Line("1", 1, x0=190, x1=194, top=98, bottom=104, size=6),
        Line(", Ruochen Zhang", 1, x0=202, x1=270, top=100, bottom=110, size=10),
        Line("Far right column", 1, x0=400, x1=480, top=100, bottom=110, size=10),
    ]
    assert [p.text for p in assemble_paragraphs(lines)] == ["Zejiang Shen 1 , Ruochen Zhang", "Far right column"]
