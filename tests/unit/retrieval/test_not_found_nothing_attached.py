"""Issue 36 item 2: a question nothing answers is "not found" with nothing attached, decided on the knowledge base's
words (every file alike, a MANIFEST.tsv too), and sentences are chosen across languages only when the question's
language is rare in the knowledge base."""

from __future__ import annotations

from officeqa.text_tokens import tokenize_for_bm25
from prompts.assembler import Material
from retrieval.answerers import ANSWERERS, FIGURE_ANSWERERS
from retrieval.answerers.report_facts import ReportFacts
from retrieval.answerers.yes_no import YesNo
from retrieval.extractive import extractive_answer
from retrieval.quoting import unsupported

MANIFEST = Material(text="file\tsource_repo\tlicense\npdf/en_paper.pdf\tUnstructured-IO\tApache-2.0 (not a zip)",
                    source="s0", score=1.0, chunk_id="c0", document="MANIFEST.tsv",
                    meta={"doc_id": "m", "path": "/d/MANIFEST.tsv"})
NOVEL = Material(text="1930年杂志《火星》刊登小说的新章节。", source="s1", score=0.9, chunk_id="c1",
                 document="顿河.html", meta={"doc_id": "n", "path": "/d/顿河.html"})


def test_more_than_half_of_the_subjects_nowhere_is_unsupported() -> None:
    assert unsupported(["火星基地", "氧气", "供应商"], ["火星基地", "氧气"])
    assert not unsupported(["研发人员", "年龄"], ["年龄"])  # half: the closest passage may still help
    assert not unsupported([], [])
    assert not unsupported(["法务"], ["法务"])  # one subject: the comment's author label is not chunk text


def test_an_unsupported_question_is_not_found_with_no_quote_and_no_citation() -> None:
    answer = extractive_answer("火星基地的氧气供应商是谁？", [MANIFEST, NOVEL], tokenize=tokenize_for_bm25,
                               cross_language=False, unsupported=True)
    assert answer.text == "文档中未找到与问题相关的内容。"
    assert not answer.found and answer.citations == []


def test_an_unsupported_question_is_not_found_even_when_the_first_passages_are_in_another_language() -> None:
    """The caller does not say the knowledge base is mostly in another language (None): three English passages
    first do not turn the decided "not found" into quotes chosen across languages with a language remark."""
    english = [Material(text=f"{MANIFEST.text} row {i}", source=f"m{i}", score=1.0, chunk_id=f"m{i}",
                        document="MANIFEST.tsv", meta={"doc_id": "m", "path": "/d/MANIFEST.tsv"}) for i in range(3)]
    answer = extractive_answer("火星基地的氧气供应商是谁？", english, tokenize=tokenize_for_bm25, unsupported=True)
    assert answer.text == "文档中未找到与问题相关的内容。" and answer.citations == []


def test_an_english_first_passage_does_not_make_a_chinese_question_cross_language() -> None:
    """The knowledge base is mostly Chinese (the caller says so): the question is judged by its words, so the
    MANIFEST's license line is not quoted "by meaning" with a remark about languages."""
    answer = extractive_answer("火星基地的氧气供应商是谁？", [MANIFEST, NOVEL], tokenize=tokenize_for_bm25,
                               cross_language=False)
    assert "Apache" not in answer.text and "语言不同" not in answer.text
    assert not answer.found


def test_a_question_in_a_rare_language_is_still_answered_across_languages() -> None:
    answer = extractive_answer("Which magazine printed the new chapters?", [NOVEL], language="en",
                               tokenize=tokenize_for_bm25, cross_language=True)
    assert answer.found and "火星" in answer.text and "different languages" in answer.text


def test_a_yes_no_question_skips_the_figure_and_rule_answerers() -> None:
    assert any(isinstance(a, ReportFacts) for a in ANSWERERS)
    assert ReportFacts in FIGURE_ANSWERERS and YesNo not in FIGURE_ANSWERERS


SLIDE = Material(text="Our office opens at 9. Visitors sign in at the front desk.", source="s2", score=1.0,
                 chunk_id="c2", document="deck.pptx", meta={"doc_id": "d", "path": "/d/deck.pptx"})


def test_a_closest_passage_about_something_else_is_not_shown() -> None:
    """Under "not found", a passage holding one of the question's subjects ("office") is not quoted or cited: it is
    about something else, and shown it reads as the answer."""
    answer = extractive_answer("What is the monthly parking fee at the Berlin office?", [SLIDE], language="en",
                               tokenize=tokenize_for_bm25, cross_language=False)
    assert answer.text.splitlines() == ["Not found in the documents: nothing in them answers this question."]
    assert not answer.found and answer.citations == []


def test_a_passage_holding_most_subjects_is_not_shown_under_not_found_either() -> None:
    """A passage naming two of three subjects ("火星上的基地", "氧气"), its third nowhere in the knowledge base, does
    not answer: "not found" is said with nothing attached, not with the passage as "the closest"."""
    base = Material(text="火星上的基地所需氧气由本公司采购。", source="s3", score=1.0, chunk_id="c3",
                    document="采购.docx", meta={"doc_id": "a", "path": "/d/采购.docx"})
    answer = extractive_answer("火星基地的氧气供应商是谁？", [base], tokenize=tokenize_for_bm25,
                               cross_language=False, missing_subjects=["供应商"])
    assert answer.text == "文档中未找到与问题相关的内容。"
    assert not answer.found and answer.citations == []


def test_a_year_no_chunk_spells_is_a_missing_subject() -> None:
    from retrieval.quoting import question_years

    assert question_years("Who won the 2030 employee of the year award?") == ["2030"]
    assert question_years("2029年度公司的碳排放配额是多少吨？") == ["2029"]
    assert question_years("What is the fee for 12030 units?") == []


def test_the_word_naming_the_kind_of_answer_need_not_be_spelled() -> None:
    """"哪个美国节目" asks for a programme; the sentence names it ("肥皂剧《达拉斯》"), not the word 节目."""
    from retrieval.extractive.terms import answer_type_words

    subjects = ["美国", "节目", "罗马尼亚", "观点"]
    assert answer_type_words("冷战期间哪个美国节目改变了罗马尼亚人的观点？", subjects) == ["节目"]
    assert answer_type_words("Which vendor provides the catering service?", ["vendor", "provides", "catering"]) == [
        "vendor"]
    assert answer_type_words("What is the Wi-Fi password?", ["password"]) == []
    dallas = Material(text="例如，冷战期间，肥皂剧《达拉斯》中对美国奢华生活方式的描述改变了罗马尼亚人的期望。",
                      source="s", score=1.0, chunk_id="c", document="d.txt", meta={"doc_id": "d", "path": "/d/d.txt"})
    answer = extractive_answer("冷战期间哪个美国节目改变了罗马尼亚人的观点？", [dallas], tokenize=tokenize_for_bm25,
                               cross_language=False)
    assert answer.found and "达拉斯" in answer.text


def test_a_passage_of_no_year_the_question_names_does_not_answer_it() -> None:
    award = Material(text="The employee of the year award went to the night-shift team.", source="s", score=1.0,
                     chunk_id="c", document="news.txt", meta={"doc_id": "n", "path": "/d/news.txt"})
    dated = extractive_answer("Who won the 2030 employee of the year award?", [award], language="en",
                              tokenize=tokenize_for_bm25, cross_language=False)
    assert not dated.found and dated.citations == []
    undated = extractive_answer("Who won the employee of the year award?", [award], language="en",
                                tokenize=tokenize_for_bm25, cross_language=False)
    assert undated.found and "night-shift" in undated.text
