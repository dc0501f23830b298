"""Issue 35, WikiTableQuestions-style tables (real csv files, a real DuckDB store): what the tuning half showed.

Each case is a question once answered "exact" with a wrong number, or refused although its parse is complete.
"""

from __future__ import annotations

from pathlib import Path

from indexing.parsing import parse_file
from indexing.table_store import TableStore
from retrieval.tables import answer_table_question

CREWS = '''"Year","Network","Pit reporters"
"2007","ESPN","Dave Burns
Jamie Little
Allen Bestwick"
"2008","ESPN","Dave Burns
Jamie Little
Shannon Spake"
"2009","ESPN","Dave Burns
Jamie Little
Vince Welch"
'''


def _store(tmp_path: Path, text: str) -> TableStore:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    store = TableStore(tmp_path / "tables.duckdb")
    store.put("d", str(path), parse_file(path))
    return store


def test_a_count_of_cells_that_each_list_several_names_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path, CREWS)
    result = answer_table_question("how many pit reporters were there in all?", store, None, "en")
    assert result.outcome != "exact"  # 3 distinct cells, 5 people: neither count is "the number of reporters"
    assert "several names" in result.answer_text
    listed = answer_table_question("how many years are listed?", store, None, "en")
    assert listed.outcome == "exact" and str(listed.data["value"]) == "3"  # the rows themselves are still counted
