"""The one text core: script classes and word lists every layer reads."""

from __future__ import annotations

import re

import pytest

from officeqa.scripts import CJK, HAN, cjk_share, detect_language, detect_script, has_han, is_cjk, is_han, is_hangul
from officeqa.words import WORD_LISTS, word_list, word_set


@pytest.mark.parametrize(
    ("ch", "han", "cjk", "hangul"),
    [("中", True, True, False), ("𠀀", True, True, False), ("か", False, True, False), ("カ", False, True, False),
     ("한", False, True, True), ("a", False, False, False), ("。", False, False, False), ("1", False, False, False)],
)
def test_one_definition_of_each_script(ch: str, han: bool, cjk: bool, hangul: bool) -> None:
    assert (is_han(ch), is_cjk(ch), is_hangul(ch)) == (han, cjk, hangul)
    assert bool(re.fullmatch(f"[{HAN}]", ch)) == han
    assert bool(re.fullmatch(f"[{CJK}]", ch)) == cjk


def test_language_and_script_agree_on_korean_and_japanese() -> None:
    """The two detectors used to disagree on Hangul: the script detector counted it, the language one did not."""
    for text in ("연차 휴가는 며칠입니까", "有給休暇は何日ですか"):
        assert detect_script(text) == "zh"
        assert detect_language(text, default="en") == "zh"
        assert cjk_share(text) == 1.0


def test_language_of_mixed_questions() -> None:
    assert detect_language("ChatGPT 的提示公式是什么") == "zh"
    assert detect_language("What does 员工手册.docx say about leave?") == "en"
    assert detect_language("2024 / 12", default="en") == "en"
    assert has_han("see 合同") and not has_han("see contract")


def test_word_lists_load_without_comments_and_keep_order() -> None:
    for name in WORD_LISTS:
        words = word_list(name)
        assert words, name
        assert not any(w.startswith("#") for w in words), name
        assert len(words) == len(set(words)), name
    assert "什么" in word_set("question_words") and "what" in word_set("question_words")
    assert word_list("interrogatives")[0] == "哪一年"
    assert "的" in word_set("stop_words")


def test_unknown_word_list_names_the_shipped_ones() -> None:
    with pytest.raises(KeyError, match="question_words"):
        word_list("questions")


def test_phrase_tables_keep_phrases_with_spaces_grouped_by_kind_and_key() -> None:
    from officeqa.words import PHRASE_TABLES, phrase_table

    for name in PHRASE_TABLES:
        table = phrase_table(name)
        assert table and all(groups and all(groups.values()) for groups in table.values()), name
    fields = phrase_table("report_fields")
    assert "address of principal executive offices" in fields["label"]["office_address"]
    assert "公司的法定代表人" in fields["label"]["legal_rep"] and "法定代表人" in fields["ask"]["legal_rep"]
    with pytest.raises(KeyError, match="report_fields"):
        phrase_table("report_field")
