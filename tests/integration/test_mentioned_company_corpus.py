"""A weak company name that the knowledge base's text spells is no missing company (issue 36), over real files of
../shared/corpus: an English wiki article about IBM beside a one-page 10-K whose company (Galaxy Gaming) was read.

"What did IBM develop for American Airlines in 1961?" was refused as "no document about American Airlines": a name
ending in a company word ("Airlines") counted as missing once every report's company was known. A name the indexed
text spells is answered by retrieval; one that occurs nowhere, or that carries a legal form, is still said missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_service import corpus_question_service

from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

FILES = ("md/en_wiki.md", "html/en_example-10k-1p.html")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Iterator[QuestionService]:
    with corpus_question_service(tmp_path_factory.mktemp("mentioned"), corpus_dir, FILES) as (opened, failed):
        assert not failed
        yield opened


def test_a_company_word_name_the_text_spells_is_answered_from_that_text(service: QuestionService) -> None:
    answer = service.ask("What did IBM develop for American Airlines in 1961?")
    assert "no document about" not in answer.text, answer.text
    assert "IBM developed the SABRE reservation system for American Airlines" in answer.text
    assert [Path(c.path).name for c in answer.citations][:1] == ["en_wiki.md"]


@pytest.mark.parametrize(("question", "name"), [("What was the revenue of MGM Resorts International?",
                                                 "MGM Resorts International"),
                                                ("What was the revenue of AA Limited?", "AA Limited")])
def test_a_name_no_text_spells_is_still_missing(service: QuestionService, question: str, name: str) -> None:
    answer = service.ask(question)
    assert answer.text.startswith(f"Not found: the knowledge base has no document about {name}"), answer.text
    assert answer.citations == []
