"""The assembler with literal budgets; one token per character keeps the arithmetic visible."""

from __future__ import annotations

import random

import pytest

from officeqa.errors import ConfigurationError
from prompts.assembler import (
    MESSAGE_OVERHEAD_TOKENS,
    Material,
    assemble,
    cut_at_sentence_end,
    source_label,
    split_sentences,
)
from prompts.loader import load_qa_template

count = len  # one token per character


def material(i: int, text: str, summary: str | None = None, document: str = "a.txt") -> Material:
    return Material(text=text, source=f"{document} · §{i}", score=1.0 - i / 100, chunk_id=f"c{i}",
                    document=document, summary=summary)


def prompt_tokens(prompt) -> int:
    return count(prompt.system) + count(prompt.user) + 2 * MESSAGE_OVERHEAD_TOKENS


ZH = load_qa_template("zh")
EN = load_qa_template("en")


def test_everything_fits_and_order_is_instruction_background_materials_question_requirements() -> None:
    mats = [material(0, "华东区第一季度销售额为120万元。"), material(1, "华南区第一季度销售额为80万元。")]
    prompt = assemble(ZH, "华东区销售额是多少？", mats, window=2000, answer_reserve=500, count=count)
    assert prompt.steps == ["all_fit"]
    assert [i.n for i in prompt.included] == [1, 2] and not prompt.dropped
    user = prompt.user
    parts = ("任务：", "背景：", "[1] a.txt · §0\n华东区", "[2] a.txt · §1", "问题：华东区", "输出要求")
    positions = [user.index(s) for s in parts]
    assert positions == sorted(positions)
    assert prompt.tokens["total"] == prompt_tokens(prompt)
    assert prompt.messages()[0] == {"role": "system", "content": ZH.system}


@pytest.mark.parametrize("window", [520, 600, 640, 800, 1000, 1500, 3000])
def test_never_exceeds_the_window(window: int) -> None:
    rng = random.Random(window)
    mats = [
        material(i, "".join(rng.choice("甲乙丙丁") * rng.randint(1, 30) + "。" for _ in range(rng.randint(1, 12))),
                 summary=("摘要。" * rng.randint(1, 5)) if i % 2 else None)
        for i in range(12)
    ]
    prompt = assemble(ZH, "问题是什么？", mats, window=window, answer_reserve=200, count=count)
    assert prompt_tokens(prompt) + 200 <= window
    assert prompt.tokens["total"] == prompt_tokens(prompt)
    assert prompt.tokens["materials"] <= prompt.budget["materials_budget"] <= int(window * 0.7)
    assert len(prompt.included) + len(prompt.dropped) == len(mats)


def test_materials_share_caps_materials_even_when_the_window_has_room() -> None:
    mats = [material(i, "内容。" * 40) for i in range(10)]  # each ~134 tokens
    prompt = assemble(ZH, "问题？", mats, window=4000, answer_reserve=100, count=count, materials_share=0.25)
    assert prompt.budget["materials_budget"] == 1000
    assert prompt.tokens["materials"] <= 1000
    assert "fewer_chunks" in prompt.steps


def test_the_most_relevant_material_survives_a_tight_budget() -> None:
    mats = [material(i, f"第{i}段。" + "填充。" * 60) for i in range(6)]
    prompt = assemble(ZH, "问题？", mats, window=700, answer_reserve=200, count=count)
    assert prompt.included[0].material.chunk_id == "c0"
    assert [m.chunk_id for m in prompt.dropped] == [f"c{i}" for i in range(len(prompt.included), 6)]


def test_step_summaries_replaces_least_relevant_first_and_drops_nothing() -> None:
    long = "详细内容。" * 30  # 150 chars
    mats = [material(i, long, summary="本节摘要。") for i in range(4)]
    # fixed parts ~250; materials budget 320 holds one full text (~166) plus three summaries (~21 each)
    prompt = assemble(ZH, "问题？", mats, window=800, answer_reserve=230, count=count)
    assert prompt.steps == ["summaries"]
    assert not prompt.dropped
    assert [i.form for i in prompt.included] == ["full", "summary", "summary", "summary"]


def test_step_fewer_chunks_drops_the_tail() -> None:
    mats = [material(i, "内容。" * 30) for i in range(5)]  # 107 tokens each with label, no summaries
    # fixed parts 256 tokens; materials budget 810 - 230 - 256 = 324 holds three
    prompt = assemble(ZH, "问题？", mats, window=810, answer_reserve=230, count=count, min_fragment_tokens=1000)
    assert prompt.steps == ["fewer_chunks"]
    assert [i.material.chunk_id for i in prompt.included] == ["c0", "c1", "c2"]
    assert [m.chunk_id for m in prompt.dropped] == ["c3", "c4"]
    assert all(i.form == "full" for i in prompt.included)


def test_summary_goes_back_to_full_text_when_dropping_made_room() -> None:
    mats = [material(0, "甲。" * 60, summary="甲摘要。"), material(1, "乙。" * 200, summary="乙" * 400)]
    prompt = assemble(ZH, "问题？", mats, window=800, answer_reserve=230, count=count, min_fragment_tokens=1000)
    assert "fewer_chunks" in prompt.steps
    assert [(i.material.chunk_id, i.form) for i in prompt.included] == [("c0", "full")]


def test_step_truncated_cuts_the_next_material_at_a_sentence_end() -> None:
    sentences = [f"第{i}句说明了一项规定。" for i in range(40)]
    mats = [material(0, "短的首段。"), material(1, "".join(sentences))]
    prompt = assemble(ZH, "问题？", mats, window=800, answer_reserve=230, count=count)
    assert prompt.steps == ["fewer_chunks", "truncated"]
    cut = prompt.included[1]
    assert cut.form == "truncated" and cut.material.chunk_id == "c1"
    assert cut.text.endswith("。") and mats[1].text.startswith(cut.text)
    assert len(cut.text) < len(mats[1].text)
    assert prompt_tokens(prompt) + 230 <= 800


def test_a_single_oversized_sentence_is_cut_mid_sentence_rather_than_lost() -> None:
    mats = [material(0, "无标点" * 300)]
    prompt = assemble(ZH, "问题？", mats, window=700, answer_reserve=200, count=count)
    assert prompt.steps == ["fewer_chunks", "truncated_mid_sentence"]
    assert prompt.included[0].text.endswith("……")
    assert prompt_tokens(prompt) + 200 <= 700


def test_background_names_only_included_documents() -> None:
    mats = [material(0, "内容。" * 30, document="甲.docx"), material(1, "内容。" * 300, document="乙.pdf")]
    prompt = assemble(ZH, "问题？", mats, window=800, answer_reserve=230, count=count, min_fragment_tokens=10_000)
    assert "甲.docx" in prompt.user and "乙.pdf" not in prompt.user


def test_window_too_small_for_the_template_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        assemble(ZH, "问题？", [], window=300, answer_reserve=200, count=count)
    with pytest.raises(ConfigurationError):
        assemble(ZH, "问题？", [], window=100, answer_reserve=200, count=count)


def test_english_template_and_source_labels() -> None:
    label = source_label("report.pdf", page=3, page_end=4, heading_path=["Chapter 1", "Scope"])
    assert label == "report.pdf · p. 3-4 · Chapter 1 > Scope"
    assert source_label("b.xlsx", sheet="Q1") == "b.xlsx · sheet Q1"
    mats = [Material(text="Sales were 5.", source=label, score=1.0, chunk_id="x", document="report.pdf")]
    prompt = assemble(EN, "What were sales?", mats, window=2000, answer_reserve=500, count=count)
    assert "[1] report.pdf · p. 3-4 · Chapter 1 > Scope\nSales were 5." in prompt.user
    assert "Not found in the documents." in prompt.user


def test_sentence_helpers() -> None:
    text = "第一句。第二句！Third one. Fourth?\n第五句"
    parts = split_sentences(text)
    assert "".join(parts) == text
    assert parts[:2] == ["第一句。", "第二句！"]
    cut, clean = cut_at_sentence_end(text, lambda t: len(t) <= 9)
    assert (cut, clean) == ("第一句。第二句！", True)
