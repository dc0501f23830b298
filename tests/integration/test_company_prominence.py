"""Reports whose cover names the company by its short name and whose pages print other companies' legal names
and tickers: a question naming the company by its short name ("Swiss Water") or its ticker ("KPG") is scoped to
that company's report alone, and one whose name a subsidiary shares no word with names one company.

Why a real knowledge base (SQLite, Chroma, BM25, ``hash`` embedder, no model): the identity is read at index time
from the parsed pages and the scope is decided from the stored profile, the path a user's question takes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

_RESULTS = """
## Results

| Item | 2022 | 2021 |
|---|---|---|
| Revenue | {revenue} | 1,000 |

The directors are pleased with {short}'s results for the year; {short} grew in every market it serves.
"""

REPORTS = {
    "swiss.md": """# SWISS WATER DECAFFEINATED COFFEE INC.

2022 ANNUAL REPORT

This discussion of Swiss Water Decaffeinated Coffee Inc. ("Swiss Water" or the "Company") reviews the year ended
December 31, 2022. Swiss Water sells decaffeinated green coffee. Swiss Water operates two plants.

Mill Road Capital LLC holds 19% of the shares. TSX: SWP
""" + _RESULTS.format(revenue="167,000", short="Swiss Water"),
    "kelly.md": """# KELLY PARTNERS GROUP HOLDINGS LIMITED

Annual Report 2022. Kelly Partners Group Holdings Limited shares are listed on the Australian Securities Exchange
(ASX code: KPG). A director also sits on the board of Galilee Energy Ltd (ASX: GLL).
""" + _RESULTS.format(revenue="78,000", short="Kelly Partners"),
    "brave.md": """# Annual Report 2022

IBC Company

Brave Bison is a social and digital media company. Brave Bison grew. Brave Bison acquired SocialChain.
Best Response Media Limited is a subsidiary of the group. Brave Bison Group plc, registered in England.
""" + _RESULTS.format(revenue="31,200", short="Brave Bison"),
    "galilee.md": """# Galilee Energy Ltd

Annual Report for the year ended 30 June 2022. Galilee Energy Ltd (ASX: GLL) explores for gas. Galilee Energy
drilled two wells.
""" + _RESULTS.format(revenue="2,500", short="Galilee Energy"),
}


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    root = tmp_path_factory.mktemp("prominence")
    docs = root / "kb"
    docs.mkdir()
    for name, text in REPORTS.items():
        (docs / name).write_text(text, encoding="utf-8")
    # no model reachable (nothing listens on port 9): the scope is decided without one
    out = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"),
                   ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with open_knowledge_base(out) as opened:
        report = opened.index_paths([docs])
    assert not report.failed, report.failed
    yield out


@pytest.mark.parametrize(
    ("question", "file"),
    [
        ("Summarize Swiss Water's performance in 2022.", "swiss.md"),
        ("What was Swiss Water's revenue in 2022?", "swiss.md"),
        ("What was KPG's revenue in 2022?", "kelly.md"),
        ("What was the revenue of Brave Bison in 2022?", "brave.md"),
        ("What was GLL's revenue in 2022?", "galilee.md"),  # a ticker another report prints for it is not that one's
    ],
)
def test_a_short_name_or_ticker_scopes_to_that_companys_report(settings: Settings, question: str, file: str) -> None:
    with QuestionService.open(settings) as service:
        answer = service.ask(question)
    scope = answer.metadata["scope"]
    assert {Path(d["path"]).name for d in scope["documents"]} == {file}, (question, scope)
    assert not scope.get("missing"), scope
