"""Row counts phrased as "how many X are listed / are there / 列出了几个X / 共有多少个X" (issue 23), through the
question service on the shared corpus's UTF-16 Stanley Cups csv (three teams).

"teams" over a table whose rows are teams is the number of rows; "listed" and "列出了" only say the rows are in
the table. The other questions over the same file keep their answers (a sum stays a sum, "which" a list).
Real files, SQLite, DuckDB tables, Chroma, BM25, the hash embedder; no model.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Iterator[QuestionService]:
    root = tmp_path_factory.mktemp("cups")
    files = root / "files"
    files.mkdir()
    shutil.copy(corpus_dir / "csv" / "EDGE_utf16-bom_stanley-cups.csv", files)
    shutil.copy(corpus_dir / "csv" / "EDGE_semicolon-delimited.csv", files)  # a second table, of other words
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([files]).failed
    with QuestionService.open(settings, generator=None) as svc:
        yield svc


@pytest.mark.parametrize("question", [
    "How many teams are listed?",
    "How many teams are listed in the table?",
    "How many teams are there?",
])
def test_how_many_teams_in_english_is_the_row_count(service: QuestionService, question: str) -> None:
    answer = service.ask(question)
    assert "Result: 3 (exact: 3)" in answer.text, answer.text
    assert answer.citations and answer.citations[0].document == "EDGE_utf16-bom_stanley-cups.csv"


@pytest.mark.parametrize("question", ["列出了几个球队？", "共有多少个球队？", "表中共有多少支球队？"])
def test_how_many_teams_in_chinese_over_the_english_csv(service: QuestionService, question: str) -> None:
    answer = service.ask(question)
    assert "结果：3（精确值 3）" in answer.text, answer.text


def test_other_questions_over_the_file_keep_their_answers(service: QuestionService) -> None:
    cups = service.ask("How many Stanley Cups do the Maple Leafs have?")
    assert "Result: 13 (exact: 13)" in cups.text, cups.text
    listed = service.ask("Which teams are listed?")
    assert all(team in listed.text for team in ("Blues", "Flyers", "Maple Leafs")), listed.text
    assert "Result: 3" not in listed.text
    in_toronto = service.ask("How many teams are listed in TOR?")
    assert "Result: 1 (exact: 1)" in in_toronto.text, in_toronto.text


def test_how_many_stanley_cups_the_teams_have_in_total_is_their_sum(service: QuestionService) -> None:
    """Issue 35: "how many <a numeric column> in total" sums it; "teams" only says whose cups they are."""
    answer = service.ask("How many Stanley Cups do the teams have in total?")
    assert "Result: 16 (exact: 16)" in answer.text, answer.text
