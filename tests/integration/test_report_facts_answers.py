"""The report-facts answerer over a really indexed report (the eval knowledge base's generated annual report):
the CI subset ``eval/annual/ci.jsonl`` answered from stored facts with no model, scored like the eval, and
gated on ``eval/annual/ci_baseline.json`` (per kind: exact at least, wrong at most, gold pages cited)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_kb import ANNUAL_NAME as NAME
from report_kb import index_folder

from eval.answer_metrics import check_expectation
from eval.kb.pdf_docs import annual_report
from eval.kinds import outcome_of, page_cited
from eval.tasks import load_tasks
from indexing.registry import INDEXED
from indexing.storage import open_knowledge_base
from officeqa.scripts import detect_language
from officeqa.settings import Settings
from retrieval.reports.answerer import ROUTE, ReportCache, answer_with_facts

ANNUAL = Path(__file__).resolve().parents[2] / "eval" / "annual"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    return index_folder(tmp_path_factory.mktemp("annual"), {NAME: annual_report()})


def _outcomes(settings: Settings, docs: Path) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    with open_knowledge_base(settings) as kb:
        documents = {r.doc_id: r.path for r in kb.registry.documents(statuses=[INDEXED])}
        cache = ReportCache()
        for task in load_tasks(ANNUAL / "ci.jsonl"):
            answer = answer_with_facts(
                kb, cache, task.question, task.question, detect_language(task.question), documents, docs
            )
            assert answer is not None, task.id
            assert answer.metadata["route"]["route"] == ROUTE and answer.mode == "rule"
            text = answer.text
            assert str(docs) not in text and all(str(docs) not in c.document for c in answer.citations)
            verdict = check_expectation(task.expect, text)
            row = table.setdefault(task.kind, {"tasks": 0, "exact": 0, "refused": 0, "wrong": 0, "page_cited": 0})
            row["tasks"] += 1
            row[outcome_of(verdict.correct, text)] += 1
            if task.pages:
                row["page_cited"] += page_cited([c.to_json() for c in answer.citations], task.pages)
    return table


def test_the_ci_subset_holds_its_baseline(indexed: tuple[Settings, Path]) -> None:
    table = _outcomes(*indexed)
    baseline = json.loads((ANNUAL / "ci_baseline.json").read_text(encoding="utf-8"))["by_kind"]
    for kind, expected in baseline.items():
        row = table[kind]
        assert row["exact"] >= expected["exact"], (kind, row)
        assert row["wrong"] <= expected["wrong"], (kind, row)
        assert row["page_cited"] >= expected["page_cited"], (kind, row)


def test_the_question_service_answers_figures_from_facts_before_retrieval(indexed: tuple[Settings, Path]) -> None:
    from retrieval.service import QuestionService

    settings, docs = indexed
    with QuestionService.open(settings) as service:
        answer = service.ask("星河智能2023年的营业收入是多少？")
        assert answer.mode == "rule" and answer.metadata["report_facts"]["kind"] == "figure"
        assert "876,543,210.12" in answer.text and answer.citations[0].page == 3
        assert str(docs) not in answer.text
        facts = answer.metadata["report_facts"]  # the figure for callers (a benchmark, an API client) and the scope
        assert (facts["value"], facts["unit"]) == ("876543210.12", "元") and "scope" in answer.metadata
        refused = service.ask("星河智能2025年的营业收入是多少？")
        assert refused.metadata["report_facts"]["kind"] == "not_in_report" and "2022–2023" in refused.text
        other = service.ask("公司的法定代表人是谁？")  # not a figure: the next answerers take it
        assert "report_facts" not in other.metadata
        assert "林国栋" in other.text and "named_facts" in other.metadata  # the named-facts answerer, from 公司简介
