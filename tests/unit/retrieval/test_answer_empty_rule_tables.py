"""A question a confident rule would answer with "nothing found" gets the exact table answer: "实际费用高于预算费用的
活动有哪些？" is routed to amount extraction, which finds no amount in a comparison between two columns.

Through the real question path (SQLite registry, stored tables in DuckDB, Chroma, BM25, the hash embedder) over a
.docx and an English workbook written here; a question whose words the tables do not all explain keeps the rule's
answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService

pytestmark = pytest.mark.slow

ACTIVITIES = [("春季展会", "周一", 5000, 6200), ("线上直播", "吴二", 3000, 2500), ("客户沙龙", "周一", 8000, 8100),
              ("校园宣讲", "郑三", 2000, 1500)]


def _write(root: Path) -> None:
    import docx
    import openpyxl

    doc = docx.Document()
    doc.add_heading("2024年市场活动费用", level=1)
    doc.add_paragraph("单位：元。")
    table = doc.add_table(rows=1, cols=4)
    for cell, text in zip(table.rows[0].cells, ["活动名称", "负责人", "预算费用", "实际费用"], strict=True):
        cell.text = text
    for row in ACTIVITIES:
        for cell, value in zip(table.add_row().cells, row, strict=True):
            cell.text = str(value)
    doc.save(root / "市场活动费用.docx")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Stock"
    ws.append(["SKU", "Item", "Warehouse", "On Hand", "Reorder Level"])
    for i in range(12):
        ws.append([f"K{100 + i}", f"Item {i}", ["North", "South"][i % 2], 10 * i, 35])
    wb.save(root / "stock_levels.xlsx")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> QuestionService:
    root = tmp_path_factory.mktemp("files")
    _write(root)
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), embedding=EmbeddingSettings(backend="hash"),
                        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([root]).failed
    with QuestionService.open(settings, generator=None) as opened:
        yield opened


def test_a_comparison_of_two_columns_is_answered_from_the_table(service: QuestionService) -> None:
    answer = service.ask("实际费用高于预算费用的活动有哪些？")
    assert answer.mode == "rule" and answer.metadata["handler"]["outcome"] == "exact", answer.text
    listed = answer.text.split("来源")[0]
    assert all((name in listed) == (actual > budget) for name, _, budget, actual in ACTIVITIES), answer.text


def test_an_english_comparison_lists_the_keys(service: QuestionService) -> None:
    answer = service.ask("Which items have on hand below reorder level?")
    assert answer.metadata.get("handler", {}).get("outcome") == "exact", answer.text
    listed = answer.text.split("Source")[0]
    assert all((f"Item {i} " in listed + " ") == (10 * i < 35) for i in range(12)), answer.text


def test_chinese_words_for_an_english_stock_sheet(service: QuestionService) -> None:
    answer = service.ask("库存数量低于再订货点的物品有哪些")
    assert answer.metadata.get("handler", {}).get("outcome") == "exact", answer.text
    listed = answer.text.split("来源")[0]
    assert all((f"Item {i}（" in listed) == (10 * i < 35) for i in range(12)), answer.text
    answer = service.ask("North仓库有多少种物品")
    assert answer.metadata["handler"]["data"]["value"] in (6, "6"), answer.text


def test_a_question_the_tables_do_not_explain_keeps_the_rules_answer(service: QuestionService) -> None:
    answer = service.ask("春季展会的场地费金额是多少？")
    assert answer.metadata.get("handler", {}).get("outcome") != "exact", answer.text
