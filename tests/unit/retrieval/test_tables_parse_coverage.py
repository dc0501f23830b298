"""Issue 35 at the table layer, real csv files in a real DuckDB table store: what a question says is what is run.

Each case is a phrasing that was once answered "exact" with a condition dropped, a count where a sum was asked, a
totals row counted as data, or a number where a row was asked; now it is answered as asked, or refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexing.parsing import parse_file
from indexing.table_store import TableStore
from retrieval.tables import answer_table_question
from retrieval.tables.answer import plan_question

STANLEY = Path("/work/shared/corpus/csv/EDGE_utf16-bom_stanley-cups.csv")

ROSTER = """Name,Department,City,Full-time,Salary,Rating
Alice Moreau,Engineering,Boston,Y,128000,4
Bruno Keller,Engineering,Austin,Y,117500,3
Chen Wei,Engineering,Boston,N,64000,4
Dana Ortiz,Sales,Chicago,Y,82000,5
Elif Yilmaz,Sales,Boston,Y,79000,3
Farah Khan,Sales,Austin,N,41000,2
"""

REGIONAL = """Regional sales summary FY2024,,
Region,Units Sold,Revenue (USD)
North,340,51000
South,415,58100
West,505,70700
Total,1260,179800
"""


def _store(tmp_path: Path, name: str, text: str | None = None, source: Path | None = None) -> TableStore:
    path = tmp_path / name
    if source is not None:
        shutil.copy(source, path)
    else:
        path.write_text(text or "", encoding="utf-8")
    store = TableStore(tmp_path / "tables.duckdb")
    store.put("d", str(path), parse_file(path))
    return store


def _value(question: str, store: TableStore) -> str | None:
    result = answer_table_question(question, store, None, "en")
    return str(result.data.get("value")) if result.outcome == "exact" else None


@pytest.mark.skipif(not STANLEY.is_file(), reason="the shared corpus is not on this machine")
def test_how_many_stanley_cups_in_total_sums_the_column(tmp_path: Path) -> None:
    store = _store(tmp_path, STANLEY.name, source=STANLEY)
    assert _value("How many Stanley Cups do the teams have in total?", store) == "16"
    assert _value("How many teams are there?", store) == "3"  # the rows, when the rows are what is counted


def test_a_totals_row_is_not_a_row(tmp_path: Path) -> None:
    store = _store(tmp_path, "regional.csv", REGIONAL)
    assert _value("What is the total revenue?", store) == "179800"
    assert _value("How many regions had revenue over 55000?", store) == "2"
    assert _value("What is the average revenue per region?", store) == "59933.3333"
    ranked = answer_table_question("Which region sold the most units?", store, None, "en")
    assert ranked.outcome == "exact" and ranked.items[0].value == "West"


def test_a_yes_no_column_named_in_the_question_is_its_condition(tmp_path: Path) -> None:
    store = _store(tmp_path, "roster.csv", ROSTER)
    assert _value("How many full-time employees are based in Boston?", store) == "2"
    assert _value("How many employees are not full-time?", store) == "2"


def test_average_per_row_is_one_mean(tmp_path: Path) -> None:
    store = _store(tmp_path, "roster.csv", ROSTER)
    assert _value("What is the average salary per employee in Sales?", store) == "67333.3333"


@pytest.mark.parametrize("question", [
    "Which employee had the highest salary in Sales on average in Boston and Austin combined yearly?",
    "How many Engineering Sales employees are there?",  # two values of one column side by side: no conjunction
    "What is the total number of Salary and Rating?",
])
def test_questions_it_cannot_read_whole_are_refused(tmp_path: Path, question: str) -> None:
    store = _store(tmp_path, "roster.csv", ROSTER)
    assert answer_table_question(question, store, None, "en").outcome != "exact"


def test_which_row_is_not_answered_with_the_extreme_value(tmp_path: Path) -> None:
    store = _store(tmp_path, "episodes.csv", "Episode no.,Airdate,Viewers\n1,2010-01-01,900\n2,2010-01-08,1200\n")
    result = answer_table_question("which episode had the most viewers?", store, None, "en")
    assert result.outcome != "exact" or "Episode no.: 2" in result.items[0].value  # the row, or refused


def test_a_prose_question_is_no_table_question(tmp_path: Path) -> None:
    store = _store(tmp_path, "report.csv", "Item,2023,2022\nTotal revenue,123,114\nNet income,21,18\n")
    plan = plan_question("According to the annual report of Medallion Financial, what did the chief executive say "
                         "about the outlook for net income?", store, None)
    assert plan.refusal is not None and plan.refusal.kind == "no_link"


def test_a_share_shows_both_inputs(tmp_path: Path) -> None:
    store = _store(tmp_path, "roster.csv", ROSTER)
    result = answer_table_question("What percentage of the total salary goes to Engineering?", store, None, "en")
    assert result.outcome == "exact"
    assert result.data["part"] == "309500" and result.data["whole"] == "511500"
    assert "309500 / 511500" in result.answer_text and result.data["value"].startswith("60.508")


def test_a_chinese_share_and_an_unreadable_one(tmp_path: Path) -> None:
    rows = "物料编码,物料名称,类别,库存数量\nM1,螺栓,五金,300\nM2,垫圈,五金,100\nM3,电容,电子,600\n"
    store = _store(tmp_path, "物料库存.csv", rows)
    result = answer_table_question("五金类物料的库存数量占全部库存数量的比例是多少？", store, None, "zh")
    assert result.outcome == "exact" and result.data["value"] == "40"
    # the whole named by another column than the part's measure: not a share this step can read
    refused = answer_table_question("五金类的库存数量占电子类库存数量的比例是多少？", store, None, "zh")
    assert refused.outcome != "exact"


def _layout_store(tmp_path: Path) -> TableStore:
    """Tables as people lay them out: a title line, two tables on one sheet, a totals row, a two-line header."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Summary"
    for row in (["Sales by region 2024"], [], ["Region", "Units", "Revenue"], ["North", 10, 100], ["South", 20, 250],
                ["Total", 30, 350], [], [], ["Office", "Headcount"], ["Paris", 12], ["Rome", 7]):
        sheet.append(row)
    budget = book.create_sheet("Budget")
    for row in (["Project", "Budget", "", "Actual", ""], ["", "Q1", "Q2", "Q1", "Q2"], ["Alpha", 10, 20, 12, 18],
                ["Beta", 5, 5, 6, 4]):
        budget.append(row)
    budget.merge_cells("B1:C1")
    budget.merge_cells("D1:E1")
    path = tmp_path / "layout.xlsx"
    book.save(path)
    store = TableStore(tmp_path / "tables.duckdb")
    store.put("x", str(path), parse_file(path))
    return store


@pytest.mark.parametrize(("question", "value"), [
    ("What is the total revenue?", "350"),  # the totals row is not a third region
    ("What is the total headcount?", "19"),  # the second table on the sheet
    ("What is the total Q2 actual?", "22"),  # a header over two lines
])
def test_tables_as_people_lay_them_out(tmp_path: Path, question: str, value: str) -> None:
    assert _value(question, _layout_store(tmp_path)) == value


def test_a_count_of_people_over_rows_that_are_not_people_is_never_the_row_count(tmp_path: Path) -> None:
    store = _layout_store(tmp_path)
    assert _value("How many staff are in the Rome office?", store) in (None, "7")  # one row is one office
