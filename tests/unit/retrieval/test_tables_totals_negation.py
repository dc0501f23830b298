"""Issue 35, what the first WTQ held-out half showed (read after its one run): totals rows wherever their label
sits, a measure verb ("score") linked to its column or refused, negation on a column, and a count of rows whose
named column repeats. Small real csv tables, a real DuckDB store; the tables are written here (not WTQ's)."""

from __future__ import annotations

from pathlib import Path

from indexing.parsing import parse_file
from indexing.table_store import TableStore
from indexing.table_totals import totals_rows
from retrieval.tables import answer_table_question


def _store(tmp_path: Path, text: str) -> TableStore:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    store = TableStore(tmp_path / "tables.duckdb")
    store.put("d", str(path), parse_file(path))
    return store


def _exact(question: str, store: TableStore) -> str | None:
    result = answer_table_question(question, store, None, "en")
    return str(result.data.get("value")) if result.outcome == "exact" else None


MEDALS = '''"Rank","Nation","Gold","Silver","Bronze","Total"
"1","Norway","5","3","4","12"
"2","Chile","2","6","1","9"
"3","Kenya","1","2","2","5"
"Total","Total","8","11","7","26"
'''

PRIZES = '''"Division","Prize","Winning tickets","Rule"
"All","10,600.00","22","Any prize"
"1st","9,000.00","1","All in order"
"2nd","1,000.00","1","All in order"
"Sub","200.00","5","Nearest to 1st"
"Sub","400.00","15","Last digit of 1st"
'''

SUBTOTALS = """Region,Store,Sales
North,A,100
North,B,50
Subtotal,,150
South,C,70
South,D,30
小计,,100
"""


def test_a_totals_row_whose_label_repeats_is_no_nation(tmp_path: Path) -> None:
    store = _store(tmp_path, MEDALS)
    result = answer_table_question("which nation won the most silver medals?", store, None, "en")
    assert result.outcome == "exact" and "Chile" in result.answer_text and "Total:" not in result.answer_text
    assert _exact("how many nations are listed?", store) == "3"


def test_an_all_row_that_sums_the_rows_is_dropped_but_sub_prize_rows_are_data(tmp_path: Path) -> None:
    assert totals_rows([r.split(",") for r in ["All,30,x", "a,10,y", "Sub,20,z"]]) == {0}
    assert totals_rows([r.split(",") for r in ["All,31,x", "a,10,y", "Sub,20,z"]]) == set()  # not a sum: data
    assert totals_rows([r.split(",") for r in ["2001,A,3", "2002,B,4", "Career,,7"]]) == {2}
    assert totals_rows([r.split(",") for r in ["2001,A,3", "2002,B,4", "Career,,8"]]) == set()
    store = _store(tmp_path, PRIZES)
    assert _exact("what is the total number of winning tickets?", store) == "22"


def test_sub_total_rows_inside_the_table_are_not_summed(tmp_path: Path) -> None:
    store = _store(tmp_path, SUBTOTALS)
    assert _exact("what is the total sales?", store) == "250"
    assert _exact("how many stores are there?", store) == "4"


RECORDS = """Time,Athlete,Nationality,Location
10.26,Ann Berg,Norway,Oslo
10.29,Ann Berg,Norway,Bergen
10.60,Bo Lind,Sweden,Malmo
10.84,Cy Dahl,Denmark,Aarhus
10.87,Di Eke,Sweden,Lund
"""


def test_rows_that_repeat_the_counted_name_are_two_readings(tmp_path: Path) -> None:
    store = _store(tmp_path, RECORDS)
    result = answer_table_question("how many athletes are not from sweden?", store, None, "en")
    assert result.outcome != "exact" and "3 matching rows" in result.answer_text  # 3 rows, 2 athletes: both said
    assert _exact("how many athletes are from sweden?", store) == "2"  # no name repeats: one reading
    assert _exact("how many different athletes are not from sweden?", store) == "2"  # a word asked for distinct


LEAGUE = """Pos,Team,Played,Won,Draw,Lost,Goals For,Goals Against,Points
1,Rovers,18,11,4,3,27,14,37
2,United,18,10,5,3,39,16,35
3,City,18,8,6,4,25,18,30
"""


def test_a_measure_verb_picks_its_column_and_an_ambiguous_measure_is_never_a_row_count(tmp_path: Path) -> None:
    store = _store(tmp_path, LEAGUE)
    assert _exact("how many goals did rovers score?", store) == "27"  # score → Goals For
    assert _exact("how many goals were scored by united?", store) == "39"
    assert _exact("how many goals did rovers have?", store) is None  # For or Against: refused, not "1 row"
    assert _exact("how many teams are listed?", store) == "3"


SITES = """Name,Topic,Cost,Advertising
Alpha,Biology,Free,None
Beta,Maths,Free,Yes - limited
Gamma,All,Free,Yes
Delta,Physics,$80/year,None
"""


def test_free_of_a_column_is_a_negation_never_the_cell_free(tmp_path: Path) -> None:
    store = _store(tmp_path, SITES)
    assert _exact("how many websites are free of advertising?", store) is None  # not Cost = Free (3)
    assert _exact("how many websites are without advertising?", store) is None
    assert _exact("how many websites are free?", store) == "3"  # the cell value itself still answers
    assert _exact("how many websites are not free?", store) == "1"


PLACES = """Name of place,Number of counties,Principal county,Zip code
Ashby,2,Montour County,17772
Ashby,2,Union County,17772
Bryce,1,Tioga County,16943
Cole,3,Centre County,16801
Dunmore,1,Erie County,16501
Dunmore,2,Elk County,15846
"""


def test_rows_that_repeat_one_count_are_not_summed(tmp_path: Path) -> None:
    store = _store(tmp_path, PLACES)
    assert _exact("how many counties does ashby belong to?", store) is None  # 2 and 2: is it 2, or 4?
    assert _exact("how many counties does cole belong to?", store) == "3"  # one row: its count
    assert _exact("how many counties does dunmore belong to?", store) == "3"  # different counts: summed


STOCK = """物料名称,仓库,库存数量,最低库存
电阻,一号仓,120,50
电容,二号仓,80,100
继电器,二号仓,40,60
"""


def test_a_measure_word_that_qualifies_the_sheet_does_not_block_a_count(tmp_path: Path) -> None:
    store = _store(tmp_path, STOCK)  # 库存 matches 库存数量 and 最低库存, but names the sheet, not what is counted
    result = answer_table_question("库存表里一共有多少种物料？", store, None, "zh")
    assert result.outcome == "exact" and str(result.data.get("value")) == "3"
