""""How many X are listed / are there / 列出了几个X / 共有多少个X" at the table layer: the rows when X names them,
the distinct values of X's column when a row is something else (a game of a team), and "listed" / "列出了" only
say the rows are in the table. Real csv files parsed by the product into a real DuckDB store.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from table_helpers import exact_result, store_folder

from indexing.table_store import TableStore

GAMES = """Game,Team,City,Goals
G1,Blues,STL,3
G2,Blues,STL,1
G3,Flyers,PHI,2
G4,Maple Leafs,TOR,4
G5,Flyers,PHI,0
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableStore]:
    root = tmp_path_factory.mktemp("games")
    (root / "games.csv").write_text(GAMES, encoding="utf-8")
    handle = store_folder(root, tmp_path_factory.mktemp("store") / "tables.duckdb")
    yield handle
    handle.close()


@pytest.mark.parametrize(("question", "value", "op"), [
    ("How many games are listed?", "5", "count"),  # a row is a game
    ("How many games are there?", "5", "count"),
    ("How many teams are listed?", "3", "count_distinct"),  # five games of three teams
    ("How many teams are there?", "3", "count_distinct"),
    ("How many cities are listed?", "3", "count_distinct"),
    ("列出了几个球队？", "3", "count_distinct"),
    ("共有多少个球队？", "3", "count_distinct"),
    ("表中共有多少支球队？", "3", "count_distinct"),
    ("How many teams are listed in PHI?", "1", "count_distinct"),
])
def test_a_listed_count_is_rows_or_distinct_values_as_a_reader_means(
    store: TableStore, question: str, value: str, op: str
) -> None:
    result = exact_result(store, question)
    assert result.data["value"] == value
    assert ("distinct" in result.answer_text or "不同值" in result.answer_text) == (op == "count_distinct")


def test_which_are_listed_is_still_a_list(store: TableStore) -> None:
    result = exact_result(store, "Which teams are listed?")
    assert set(result.data["values"]) == {"Blues", "Flyers", "Maple Leafs"}
