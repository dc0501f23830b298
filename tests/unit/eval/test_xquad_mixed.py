"""xquad_mixed: both languages' paragraphs in one corpus, each question asked in both, both versions gold, halves
by article."""

from __future__ import annotations

from eval.datasets import xquad_mixed_set


def squad(lang: str) -> dict:
    text = {"en": ("The Panthers allowed 308 points.", "How many points?"),
            "zh": ("黑豹队丢了308分。", "丢了多少分？")}[lang]
    return {"data": [{"title": "Super_Bowl_50", "paragraphs": [
        {"context": text[0], "qas": [{"id": "q1", "question": text[1], "answers": [{"text": "308"}]}]}]}]}


def test_one_corpus_two_languages_both_versions_gold_grouped_by_article() -> None:
    built = xquad_mixed_set(squad("en"), squad("zh"), "test")
    assert [d["id"] for d in built.corpus] == ["xquad_en-00000", "xquad_zh-00000"]
    assert all(d["title"] == "" for d in built.corpus)
    assert [q["id"] for q in built.questions] == ["q1-zh", "q1-en"]
    assert all(q["gold_doc_ids"] == ["xquad_en-00000", "xquad_zh-00000"] for q in built.questions)
    assert {q["split_group"] for q in built.questions} == {"Super_Bowl_50"}
    assert built.questions[0]["question"] == "丢了多少分？"
