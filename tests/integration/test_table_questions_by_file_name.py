"""Chinese table questions that name their file ("sales.csv中amount的合计是多少？"), through the question service
with no model, over real csv files: the usual phrasings of a sum, an average and a count over a named column get
the exact value from the named file's table; a question with a word no column or value explains gets no exact
answer.

Why: a file name of five letters ("sales") was too short to name its document, so "csv中" was left over and the
parse refused; and the document's name was cut from the question with its extension read as ``\\w{2,5}`` (which
takes Chinese characters: "orders.csv中qty" lost "中qt", the start of the column's name).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.service import QuestionService

SALES = "region,amount,units\nnorth,10.5,3\nsouth,4,2\neast,12,5\n"
ORDERS = "item,qty,cost\npens,10,2.5\npaper,4,6\nink,3,12\nclips,1,0.5\n"
LEDGER = "部门,金额\n财务部,1200\n人事部,800\n"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QuestionService]:
    root = tmp_path_factory.mktemp("named_files")
    docs = root / "kb"
    docs.mkdir()
    for name, text in (("sales.csv", SALES), ("orders.csv", ORDERS), ("费用台账.csv", LEDGER)):
        (docs / name).write_text(text, encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        assert not kb.index_paths([docs]).failed
    with QuestionService.open(settings, generator=None) as opened:
        yield opened


@pytest.mark.parametrize(("question", "value", "document"), [
    ("sales.csv中amount的合计是多少？", "26.5", "sales.csv"),
    ("sales.csv 中 amount 合计", "26.5", "sales.csv"),
    ("sales.csv中amount的总和是多少？", "26.5", "sales.csv"),
    ("sales.csv中units一共多少？", "10", "sales.csv"),
    ("sales.csv里units的合计是多少", "10", "sales.csv"),
    ("sales.csv中amount的平均是多少？", "8.8333", "sales.csv"),
    ("sales.csv有多少条？", "3", "sales.csv"),
    ("sales.csv中有多少条记录？", "3", "sales.csv"),
    ("orders.csv中qty的合计是多少？", "18", "orders.csv"),
    ("orders.csv中cost的平均值是多少？", "5.2500", "orders.csv"),
    ("orders.csv有多少条？", "4", "orders.csv"),
    ("费用台账.csv中金额的合计是多少？", "2000", "费用台账.csv"),
    ("What is the total amount in sales.csv?", "26.5", "sales.csv"),
])
def test_a_named_file_and_column_get_the_exact_value(service: QuestionService, question: str, value: str,
                                                     document: str) -> None:
    answer = service.ask(question)
    assert f"（精确值 {value}）" in answer.text or f"(exact: {value})" in answer.text, (question, answer.text)
    assert answer.citations and {c.document for c in answer.citations} == {document}, answer.citations


@pytest.mark.parametrize("question", [
    "sales.csv中west的amount合计是多少？",  # no region is "west"
    "sales.csv中折扣的合计是多少？",  # no such column
    "sales.csv中amount的合计是多少元人民币折合美元？",  # a conversion no table holds
])
def test_a_word_the_table_does_not_explain_gets_no_exact_answer(service: QuestionService, question: str) -> None:
    answer = service.ask(question)
    assert "精确值" not in answer.text and "exact:" not in answer.text, (question, answer.text)
