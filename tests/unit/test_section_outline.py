"""Sections from the heading paths the parser gives chunks ("IBM > 1960s–1980s"): each heading once with its level,
the section a question names by its words (exactly, loosely, or a short name given exactly) running to the next
heading at its level or above, the outline a reader lists, and a section asked for by its place."""

from __future__ import annotations

from typing import Any

import pytest

from retrieval.section_finder import find_section, outline, section_at, section_name
from retrieval.section_outline import outline_level, path_headings, section_position

CHUNKS: list[tuple[str, str, dict[str, Any]]] = [
    ("w-0", "IBM\n\nIBM is an American technology company.", {"heading_path": "IBM"}),
    ("w-1", "1910s–1950s\n\nJulius E. Pitrap patented the computing scale.", {"heading_path": "IBM > 1910s–1950s"}),
    ("w-2", "Watson joined CTR as general manager.", {"heading_path": "IBM > 1910s–1950s"}),
    ("w-3", "1960s–1980s\n\nIn 1961, IBM developed the SABRE system.", {"heading_path": "IBM > 1960s–1980s"}),
    ("w-4", "2. Results\n\nYields rose by a third.\n\n2.1 Field plots\n\nPlots were watered weekly.",
     {"heading_path": "IBM > 2. Results > 2.1 Field plots"}),
    ("w-5", "MoE\n\nEach sample activates a few experts.", {"heading_path": "IBM > MoE"}),
]


def text_of(question: str) -> str:
    section = find_section(None, "w", CHUNKS, question)
    assert section is not None, question
    return "\n".join(p.text for p in section.pieces)


def test_each_heading_of_the_paths_once_with_its_level_chunk_and_line() -> None:
    found = path_headings(CHUNKS)
    assert found[:3] == [("IBM", 1, 0, 0), ("1910s–1950s", 2, 1, 0), ("1960s–1980s", 2, 3, 0)]
    assert ("2.1 Field plots", 3, 4, 4) in found  # inside the chunk: the line its title stands on
    assert outline_level([1, 2, 2, 2, 3]) == 2 and outline_level([1]) == 1 and outline_level([]) is None


def test_a_heading_named_exactly_or_loosely_runs_to_its_next_sibling() -> None:
    for question in ("Summarize the 1910s–1950s section", "What does the 1910s-1950s section say?",
                     "Give me an overview of the 1910s to 1950s section"):
        text = text_of(question)
        assert "Pitrap" in text and "Watson" in text and "SABRE" not in text, question
    assert text_of("Summarize the 1960s–1980s section").startswith("1960s–1980s\n\nIn 1961")


def test_a_numbered_heading_is_named_by_its_words_and_keeps_its_subsections() -> None:
    text = text_of("Summarize the Results section")
    assert "Yields rose" in text and "watered weekly" in text and "experts" not in text


def test_a_short_heading_is_named_only_by_exactly_that_name() -> None:
    assert "experts" in text_of("MoE一节讲了什么？")
    assert find_section(None, "w", CHUNKS, "What does the report say about MoE pricing?") is None
    assert find_section(None, "w", CHUNKS, "Summarize the Awards section") is None


def test_the_outline_and_a_section_by_its_place() -> None:
    assert outline(None, "w", CHUNKS) == ["1910s–1950s", "1960s–1980s", "2. Results", "MoE"]
    first, last = section_at(None, "w", CHUNKS, 0), section_at(None, "w", CHUNKS, -1)
    assert first is not None and first.title == "1910s–1950s" and [p.chunk_id for p in first.pieces] == ["w-1", "w-2"]
    assert last is not None and last.title == "MoE"
    assert section_at(None, "w", CHUNKS, 4) is None


@pytest.mark.parametrize(("question", "expected"), [
    ("Summarize the first section", (0, "the first section")),
    ("What is in the last chapter of en_wiki.md?", (-1, "the last chapter")),
    ("最后一节讲了什么？", (-1, "最后一节")),
    ("Summarize the Risk Factors section", None),
    ("第一节讲了什么？", None),  # an ordinal, matched against the headings' own numbers
])
def test_a_section_named_by_its_place(question: str, expected: tuple[int, str] | None) -> None:
    assert section_position(question) == expected


@pytest.mark.parametrize(("question", "name"), [
    ("Summarize the 1960s–1980s section", "1960s–1980s"),  # a dash inside the name
    ("Summarize the section about the 1960s–1980s", "1960s–1980s"),
    ("What is in the section called \u201cXML Example\u201d of en_codeblock.md?", "XML Example"),
    ("en_wiki.md的第一节讲了什么？", ""),  # an ordinal, not a section named "en_wiki.md的第"
    ("数据并行一节讲了什么？", "数据并行"),
])
def test_the_name_a_question_gives_its_section(question: str, name: str) -> None:
    assert section_name(question) == name
