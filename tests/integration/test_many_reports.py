"""A knowledge base of many similar reports with many tables: scope by company, no versions across companies,
no table-rule or outline answer to a prose question, yes/no answers, companies not in the knowledge base.

The knowledge base is real (SQLite, Chroma, BM25, stored parsed documents and tables) with the ``hash``
embedder; no model runs. Every report has the same generic title ("Annual Report") and states an
effective date, the shape that made reports of different companies "versions of one document".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

COMPANIES = [
    ("Alpha Widgets Inc.", "AWI", "share buyback programme of $50 million was approved by the board", 1200),
    ("Borealis Mining Limited", "BML", "the company completed the acquisition of Northern Ore Pty", 830),
    ("Cobalt Shipping plc", "CSP", "new ESG initiatives include a fleet emissions target for 2030", 455),
    ("Delta Foods Corporation", "DFC", "we launched three new product lines in the frozen category", 2710),
]


def _report(name: str, ticker: str, fact: str, revenue: int) -> str:
    pay = "\n".join(f"| Director {i} | {100 + i * 7} | {20 + i} |" for i in range(1, 9))
    segments = "\n".join(f"| Segment {s} | {revenue // 4 + n} |" for n, s in enumerate("ABCD"))
    return f"""# Annual Report

Effective date: 2023-03-31

{name} annual report for the fiscal year ended December 31, 2022. {name} ({ticker}) is listed on the exchange.
{name} reports its results below.

## Chairman's letter

During the year {fact}. Revenue reached {revenue} million dollars, and {name} kept its dividend unchanged.

## Board remuneration

| Director | Base fee | Committee fee |
|---|---|---|
{pay}

## Segment revenue

| Segment | Revenue |
|---|---|
{segments}

## Outlook

The board expects stable trading in the coming year.
"""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("reports")
    docs = root / "kb"
    docs.mkdir()
    for i, (name, ticker, fact, revenue) in enumerate(COMPANIES):
        (docs / f"report_{i}.md").write_text(_report(name, ticker, fact, revenue), encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([docs])
    assert not report.failed, report.failed
    with QuestionService.open(settings, generator=None) as svc:
        yield svc


def _scope_files(answer) -> list[str]:
    return [Path(d["path"]).name for d in answer.metadata["scope"]["documents"]]


def test_every_report_knows_its_company(service: QuestionService) -> None:
    subjects = {Path(e.path).name: e.profile.subject for e in service.catalog().values()}
    for i, (name, _, _, _) in enumerate(COMPANIES):
        assert subjects[f"report_{i}.md"].entity == name
        assert subjects[f"report_{i}.md"].fiscal_year == 2022


def test_the_named_company_scopes_the_answer_and_no_versions_across_companies(service: QuestionService) -> None:
    for i, (name, _, _, _) in enumerate(COMPANIES):
        answer = service.ask(f"What was the revenue of {name} in the annual report?")
        assert _scope_files(answer) == [f"report_{i}.md"], name
        assert "version" not in answer.text.lower(), answer.text
        assert not answer.metadata["scope"].get("superseded")
        assert all(Path(c.file).name == f"report_{i}.md" for c in answer.citations)


def test_prose_questions_get_no_table_rule_or_outline_answer(service: QuestionService) -> None:
    for question in ("What was the total revenue of Delta Foods Corporation?",
                     "How many employees does Cobalt Shipping plc have in total?",
                     "Did Cobalt Shipping plc outline new ESG initiatives?",
                     "What did Alpha Widgets Inc. outline about its dividend?"):
        answer = service.ask(question)
        assert "neither a column nor a cell value" not in answer.text, question
        assert "表" not in answer.text and "列" not in answer.text, question  # English labels in English
        assert answer.metadata.get("route", {}).get("route") != "outline" or answer.mode != "rule", question
        assert not answer.text.startswith("Outline"), question


def test_yes_no_questions_get_yes_with_evidence_or_not_found(service: QuestionService) -> None:
    yes = service.ask("Did Cobalt Shipping plc mention any new ESG initiatives in the annual report?")
    assert yes.text.startswith("Yes") and yes.metadata["yes_no"]["answer"] == "yes"
    assert any("ESG" in c.quote for c in yes.citations)
    no = service.ask("Did Delta Foods Corporation announce any layoffs of staff?")
    assert no.text.startswith("Not found") and not no.citations


def test_a_company_not_in_the_knowledge_base_is_said(service: QuestionService) -> None:
    answer = service.ask("What was the total revenue of Medallion Financial Corp. according to the annual report?")
    assert "no document about Medallion Financial Corp." in answer.text
    assert not answer.citations and _scope_files(answer) == []


def test_two_companies_named_are_both_in_scope(service: QuestionService) -> None:
    answer = service.ask("Compare the revenue of Alpha Widgets Inc. and Borealis Mining Limited.")
    assert sorted(_scope_files(answer)) == ["report_0.md", "report_1.md"]
