"""Section questions with no model, end to end over four real files of ../shared/corpus (an English Markdown wiki
article with ``#``/``##`` headings, an English Markdown file of code blocks, an outline-style Chinese Markdown file,
a WPS meeting-notice template), indexed without summary trees, as a user test found them:

* "Summarize the 1960s–1980s section" answered "Not found" with that very section as its closest passage: Markdown
  headings were read as sections only through a summary tree; now the parser's headings are sections;
* "Summarize the Awards section" (a word the wiki article spells, a heading no file has) and "Summarize the first
  section" quoted the Chinese meeting notice; now the one is said to be not found and the other asks which document;
* a Markdown file of setext and numbered headings, short enough to be one chunk, still has each of its sections.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_service import corpus_question_service

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

FILES = ("md/en_wiki.md", "md/en_codeblock.md", "md/zh_分布式训练技术原理.md", "docx/zh_股东会-会议通知.docx")
NOTICE = "zh_股东会-会议通知.docx"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Iterator[QuestionService]:
    with corpus_question_service(tmp_path_factory.mktemp("sections"), corpus_dir, FILES) as (opened, failed):
        assert not failed
        yield opened


@pytest.mark.parametrize("question", ["Summarize the 1960s–1980s section", "What does the 1960s-1980s section say?"])
def test_a_markdown_section_is_summarised_from_that_section(service: QuestionService, question: str) -> None:
    answer = service.ask(question)
    assert answer.text.startswith("1960s–1980s of en_wiki.md"), answer.text
    assert "Not found" not in answer.text
    assert "IBM developed the SABRE reservation system for American Airlines" in answer.text
    assert "Pitrap" not in answer.text  # the section before it is not the answer
    assert answer.citations and all(Path(c.path).name == "en_wiki.md" for c in answer.citations)
    assert all(list(c.heading_path) == ["IBM", "1960s–1980s"] for c in answer.citations)
    assert answer.notice and "sentences of the section itself" in answer.notice  # quoted, not a summary tree's


def test_a_loosely_named_section_and_one_of_another_file(service: QuestionService) -> None:
    answer = service.ask("Give me an overview of the 1910s to 1950s section of the IBM article")
    assert answer.text.startswith("1910s–1950s of en_wiki.md") and "computing scale" in answer.text
    assert "SABRE" not in answer.text
    xml = service.ask("Summarize the xml example section")
    assert xml.text.startswith("XML Example of en_codeblock.md")
    assert [Path(c.path).name for c in xml.citations] == ["en_codeblock.md"]


def test_a_section_no_file_has_is_not_found_not_the_meeting_notice(service: QuestionService) -> None:
    answer = service.ask("Summarize the Awards section")
    assert answer.text.strip() == ("Not found: no document has a \u201cAwards\u201d section (the documents that "
                                   "mention \u201cAwards\u201d have no heading by that name).")
    assert answer.citations == [] and "会议" not in answer.text


def test_the_first_section_over_several_files_asks_which_document(service: QuestionService) -> None:
    answer = service.ask("Summarize the first section")
    assert answer.text.startswith("Which document do you mean? \u201cthe first section\u201d")
    assert "en_wiki.md" in answer.text and len(answer.text.strip().splitlines()) == 1
    assert answer.citations == [] and "出席" not in answer.text and "{{" not in answer.text  # no notice quoted


def test_the_last_section_in_chinese_asks_which_document_or_answers_the_named_one(service: QuestionService) -> None:
    which = service.ask("最后一节讲了什么？")
    assert which.text.startswith("请指明是哪一份文档的\u201c最后一节\u201d") and which.citations == []
    named = service.ask("en_codeblock.md的最后一节讲了什么？")  # the example that answer gives
    assert named.text.startswith("《en_codeblock.md》XML Example的原文要点")
    assert [list(c.heading_path) for c in named.citations] == [["XML Example"]]


def test_the_first_and_last_section_of_a_named_file(service: QuestionService) -> None:
    first = service.ask("Summarize the first section of en_wiki.md")
    assert first.text.startswith("1910s–1950s of en_wiki.md") and "computing scale" in first.text
    last = service.ask("Summarize the last section of en_wiki.md")
    assert last.text.startswith("1960s–1980s of en_wiki.md") and "SABRE" in last.text
    assert all(Path(c.path).name == "en_wiki.md" for c in [*first.citations, *last.citations])


def test_the_chinese_outline_sections_are_still_answered_from_their_section(service: QuestionService) -> None:
    answer = service.ask("数据并行一节讲了什么？")
    assert answer.text.startswith("《zh_分布式训练技术原理.md》数据并行的原文要点")
    assert "FSDP" in answer.text and "MLP切分" not in answer.text  # 模型并行, the next section, is not in it
    assert "FSDPFSDP" not in answer.text  # the list item's label is not glued to its sentence
    assert answer.notice and "该节原文" in answer.notice
    assert all(list(c.heading_path)[:2] == ["分布式训练技术原理", "数据并行"] for c in answer.citations)
    short = service.ask("MoE一节讲了什么？")  # a heading of three letters, named exactly
    assert short.text.startswith("《zh_分布式训练技术原理.md》MoE的原文要点") and "专家" in short.text


STUDY = """Soil Moisture Study
===================

A two-year field study of soil moisture under drip irrigation.

Introduction
------------

Drip irrigation saves water on sandy soils.

## 2. Methods

Sensors were buried at three depths in forty plots.

## 3. Results

Yields rose by a third on the drip-irrigated plots.

### 3.1 Water use

Water use fell by twenty percent.

## 4. Discussion

The savings depend on soil texture.
"""


def test_setext_and_numbered_headings_of_one_chunk_are_sections(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "soil.md").write_text(STUDY, encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([tmp_path / "docs"]).failed
    with QuestionService.open(settings, generator=None) as service:
        methods = service.ask("Summarize the Methods section")
        results = service.ask("What does section 3 say?")
        intro = service.ask("What does the Introduction section say?")
        last = service.ask("Summarize the last section")
    assert methods.text.startswith("2. Methods of soil.md") and "forty plots" in methods.text
    assert "Yields" not in methods.text
    assert list(methods.citations[0].heading_path) == ["Soil Moisture Study", "2. Methods"]
    assert "Yields rose" in results.text and "twenty percent" in results.text and "soil texture" not in results.text
    assert intro.text.startswith("Introduction of soil.md") and "sandy soils" in intro.text
    assert last.text.startswith("4. Discussion of soil.md") and "soil texture" in last.text
