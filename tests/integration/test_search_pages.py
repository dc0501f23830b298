"""Page diversity in search (retrieval/search_pages.py) through a real knowledge base: a PDF whose first page
holds several chunks that all match the question, and four further pages that each match it once.

Without the page gap the first hits are that one page's chunks; with it the first hits show distinct pages, and the
page's held-back chunks still follow behind them (not dropped).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import ChunkingSettings, EmbeddingSettings, RetrievalSettings, Settings
from retrieval.search import search
from retrieval.search_pages import page_key
from tests.unit.indexing.test_pdf_parse import Grid, Text, write_pdf

BUSY = [  # page 1: every paragraph names the figure asked for (a key-figures page)
    "Key figures: widget revenue rose to 120 million in the year under review.",
    "Widget revenue by region: Europe 50 million, Asia 40 million, America 30 million.",
    "Widget revenue per employee grew by nine percent against the prior year.",
    "Widget revenue margin held at twenty percent despite higher freight costs.",
    "Widget revenue guidance for next year is 130 million, the board expects.",
    "Widget revenue from new customers was a quarter of the total this year.",
]
OTHERS = [  # pages 2-5: one of the two words each, among other words
    "The chairman's letter thanks staff and customers; revenue is discussed in the strategy section below.",
    "Risk factors include currency movements that may reduce the revenue reported in pounds sterling.",
    "The remuneration committee linked bonuses to revenue targets and to cash conversion this year.",
    "Note 4 segment information reconciles the revenue to the statutory income statement in full.",
]
QUESTION = "widget revenue"


def _settings(data: Path, gap: int) -> Settings:
    return Settings(data_dir=data, embedding=EmbeddingSettings(backend="hash"),
                    chunking=ChunkingSettings(target_tokens=32, min_section_tokens=1),
                    retrieval=RetrievalSettings(page_repeat_gap=gap))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("pages-kb")
    (root / "kb").mkdir()
    pages: list[list[Text | Grid]] = [[Text(50, 60 + 60 * i, line, size=9) for i, line in enumerate(BUSY)]]
    pages += [[Text(50, 60, line, size=9)] for line in OTHERS]
    write_pdf(root / "kb" / "report.pdf", pages)
    with open_knowledge_base(_settings(root / "data", 0)) as kb:
        report = kb.index_paths([root / "kb"])
        assert not report.failed
    yield root / "data"


def _pages(data: Path, gap: int, k: int) -> list[int | None]:
    with open_knowledge_base(_settings(data, gap)) as kb:
        return [key[2] if (key := page_key(h)) else None for h in search(kb, QUESTION, "bm25", k)]


def test_without_the_gap_one_page_fills_the_first_hits(data_dir: Path) -> None:
    assert _pages(data_dir, 0, 4) == [1, 1, 1, 1]


def test_with_the_gap_the_first_hits_are_distinct_pages(data_dir: Path) -> None:
    first = _pages(data_dir, 3, 4)
    assert first[0] == 1  # the best chunk keeps its place
    assert len(set(first)) >= 3 and first.count(1) <= 2


def test_the_held_back_chunks_of_the_page_still_follow(data_dir: Path) -> None:
    plain, gapped = _pages(data_dir, 0, 20), _pages(data_dir, 3, 20)
    assert sorted(map(str, plain)) == sorted(map(str, gapped))  # reordered, nothing dropped
    assert gapped != plain
