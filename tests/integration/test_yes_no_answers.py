"""Yes/no questions over a knowledge base of several annual reports, with no model (issue 36 item 3): "Yes" or "No"
with the one sentence that decides it quoted and cited, or "Not found" with nothing attached; never a rule's
extraction or a figure.

Each report states its topic differently: one completed an acquisition (an "or" question's second word), one only
warns in its risk factors that provisions "could delay or prevent a merger or acquisition" (no evidence: hedged),
one says it made no acquisitions (a "No"), one prints a quarterly dividend (a dividend-policy-change question is no
figure question). The knowledge base is real (SQLite, Chroma, BM25) with the ``hash`` embedder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

REPORTS = {
    "Arbor Telecom Inc.": "In March 2022 Arbor Telecom Inc. completed the acquisition of Fibrelink Networks for "
                          "$40 million in cash.",
    "Birchwood Pharma Inc.": "Provisions of our charter could delay or prevent a merger or acquisition that "
                             "stockholders may consider favourable.",
    "Cedar Freight Inc.": "Cedar Freight Inc. made no acquisitions during fiscal 2022 and has no merger pending.",
    "Dunmore Foods Inc.": "The board declared a regular quarterly cash dividend of $0.27 per common share.",
}


def _report(name: str, sentence: str) -> str:
    return f"""# Annual Report

{name} annual report for the fiscal year ended December 31, 2022. {name} is listed on the exchange.

## Business review

Revenue grew in every segment during the year. {sentence}

## Outlook

The board expects stable trading in the coming year.
"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QuestionService]:
    root = tmp_path_factory.mktemp("yes_no")
    docs = root / "kb"
    docs.mkdir()
    for i, (name, sentence) in enumerate(REPORTS.items()):
        (docs / f"report_{i}.md").write_text(_report(name, sentence), encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
    with QuestionService.open(settings, generator=None) as opened:
        yield opened


def test_a_sentence_stating_one_of_the_alternatives_is_yes_quoted_and_cited(service: QuestionService) -> None:
    answer = service.ask("Did Arbor Telecom Inc. mention any mergers or acquisitions in the annual report?")
    assert answer.text.startswith("Yes"), answer.text
    assert answer.metadata["yes_no"]["answer"] == "yes"
    assert "completed the acquisition of Fibrelink" in answer.text
    assert [Path(c.file).name for c in answer.citations] == ["report_0.md"]
    assert "Fibrelink" in answer.citations[0].quote


def test_a_risk_factor_saying_what_could_happen_is_no_evidence(service: QuestionService) -> None:
    answer = service.ask("Did Birchwood Pharma Inc. mention any mergers or acquisitions in the annual report?")
    assert answer.text.startswith("Not found"), answer.text
    assert answer.citations == [] and answer.metadata["yes_no"]["answer"] == "not_found"


def test_a_negated_sentence_is_no_with_its_evidence(service: QuestionService) -> None:
    answer = service.ask("Did Cedar Freight Inc. mention any mergers or acquisitions in the annual report?")
    assert answer.text.startswith("No."), answer.text
    assert answer.metadata["yes_no"]["answer"] == "no"
    assert "made no acquisitions" in answer.text and answer.citations


def test_a_dividend_policy_question_is_not_answered_by_a_figure(service: QuestionService) -> None:
    answer = service.ask("Did Dunmore Foods Inc. announce any changes to its dividend policy in the annual report?")
    assert answer.mode == "extractive" and "handler" not in answer.metadata, answer.text
    assert not answer.metadata.get("report_facts")
    assert answer.metadata["yes_no"]["answer"] == "not_found", answer.text  # a dividend, no change of policy
    assert answer.text.startswith("Not found") and answer.citations == [] and "0.27" not in answer.text
