"""A question nothing answers, over real files of ../shared/corpus with its MANIFEST.tsv and README.md (files that
describe other files) beside mostly Chinese documents: "not found" said with nothing attached (issue 36 item 2).

"火星基地的氧气供应商是谁？" was answered with the MANIFEST's "not a zip, license: Apache-2.0" quoted, cited, and a
remark that the question's language differs from the documents', although most documents are Chinese.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus_service import corpus_question_service

from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

FILES = ("MANIFEST.tsv", "README.md", "txt/zh_test.txt", "html/zh_静静的顿河-wiki.html", "md/zh_分布式训练技术原理.md")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Iterator[QuestionService]:
    with corpus_question_service(tmp_path_factory.mktemp("notfound"), corpus_dir, FILES) as (opened, failed):
        assert not failed
        yield opened


@pytest.mark.parametrize("question", ["火星基地的氧气供应商是谁？", "2029年度公司的碳排放配额是多少吨？"])
def test_a_question_nothing_answers_is_not_found_with_nothing_attached(service: QuestionService,
                                                                      question: str) -> None:
    answer = service.ask(question)
    assert answer.text.startswith("文档中未找到"), answer.text
    assert answer.citations == []
    assert "Apache" not in answer.text and "MANIFEST" not in answer.text.split("\n")[0]
    assert "语言" not in answer.text  # no remark about the question's language


def test_an_answerable_question_is_still_answered(service: QuestionService) -> None:
    answer = service.ask("《静静的顿河》的作者是谁？")
    assert not answer.text.startswith("文档中未找到"), answer.text
    assert "肖洛霍夫" in answer.text and answer.citations
