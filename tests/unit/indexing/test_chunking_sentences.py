"""Sentence splitting: where a cut may and may not fall."""

from __future__ import annotations

from indexing.chunking.sentences import forced_pieces
from officeqa.sentences import End, protected_spans, split_sentences


def _texts(text: str) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text)]


def test_chinese_sentence_ends_and_clause_semicolons() -> None:
    text = "甲方应按时付款。乙方应按时交货！是否延期？双方协商；协商不成的，提交仲裁。"
    expected = ["甲方应按时付款。", "乙方应按时交货！", "是否延期？", "双方协商；", "协商不成的，提交仲裁。"]
    assert _texts(text) == expected


def test_never_cuts_inside_a_citation_or_quote() -> None:
    text = "根据《中华人民共和国合同法。第五十二条》的规定，合同无效。他说：“今天付款。明天交货。”随后签字。"
    assert _texts(text) == [
        "根据《中华人民共和国合同法。第五十二条》的规定，合同无效。",
        "他说：“今天付款。明天交货。”",
        "随后签字。",
    ]
    assert protected_spans("（注：见附件。）「引文。」") == [(0, 7), (8, 12)]


def test_an_unclosed_bracket_protects_nothing() -> None:
    text = "《未闭合的书名号。后面的句子。"
    assert _texts(text) == ["《未闭合的书名号。", "后面的句子。"]


def test_numbers_dates_and_abbreviations_are_not_sentence_ends() -> None:
    text = "The rate is 3.14 per cent. It starts on 2024-01-05 at No. 5 Main St. as agreed, e.g. by Dr. Smith. Done."
    assert _texts(text) == [
        "The rate is 3.14 per cent.",
        "It starts on 2024-01-05 at No. 5 Main St. as agreed, e.g. by Dr. Smith.",
        "Done.",
    ]
    assert _texts("价格为3.14元，日期为2024.01.05。下一句。") == ["价格为3.14元，日期为2024.01.05。", "下一句。"]


def test_newlines_are_weak_ends_and_the_last_span_is_a_block_end() -> None:
    spans = split_sentences("第一行\n第二行。\n\n  第三行")
    assert [s.end_kind for s in spans] == [End.NEWLINE, End.SENTENCE, End.BLOCK]
    assert split_sentences("  \n ") == []


def test_offsets_are_document_coordinates() -> None:
    text = "一。二。"
    spans = split_sentences(text, base=100)
    assert [(s.start, s.end) for s in spans] == [(100, 102), (102, 104)]


def test_forced_pieces_prefer_punctuation_over_spaces() -> None:
    text = "Bear ..........8 Bronto ..........8 Corpse, the undead one"  # a flattened table of contents
    assert split_sentences(text)[0].end_kind is End.BLOCK  # no sentence end at all
    strong = forced_pieces(text)
    expected = ["Bear ..........", "8 Bronto ..........", "8 Corpse, the undead one"]
    assert [text[p.start : p.end] for p in strong] == expected
    assert strong[0].end_kind is End.NEWLINE  # ends on punctuation: the better forced cut
    soft = forced_pieces(text, soft=True)
    assert "".join(text[p.start : p.end] for p in soft).replace(" ", "") == text.replace(" ", "")
    assert {text[p.start : p.end]: p.end_kind for p in soft}["Corpse,"] is End.FORCED


def test_forced_pieces_never_cut_inside_a_number() -> None:
    text = "合计金额1,000,000元整（单价3.14元）于12:30支付，余款2024-01-05结清，其余按约定执行"
    for soft in (False, True):
        for piece in forced_pieces(text, soft=soft):
            start, end = piece.start, piece.end
            assert not (start > 0 and text[start - 1].isdigit() and text[start].isdigit())
            assert not (end < len(text) and text[end - 1] in ".:," and text[end].isdigit())
