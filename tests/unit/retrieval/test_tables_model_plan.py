"""Model-planned table queries through the real HTTP fake Ollama: the model proposes a JSON plan, never the number.

The real ``ollama`` client talks to ``eval/fake_ollama.py``; the plan it returns is validated against the stored
tables (real DuckDB) and run there. Gold plans give exact answers (computed here from the generated rows);
invalid and hostile plans are refused with the reason, and no statement outside the validated plan runs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from eval.fake_ollama import FakeOllama, Reply
from eval.table_heldout.orders_kb import World, write_kb
from indexing.parsing import parse_file
from indexing.storage import open_knowledge_base
from indexing.table_store import TableStore
from officeqa.generation import OllamaGenerator
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings
from retrieval.service import QuestionService
from retrieval.tables.model_plan import model_table_answer

pytestmark = pytest.mark.slow  # ten generated files, one of 1,986 rows


class RecordingStore:
    """The real table store, with every statement it is asked to run written down (to check what ran)."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self.statements: list[tuple[str, list[Any]]] = []

    def tables(self, doc_ids: Any = None) -> Any:
        return self.store.tables(doc_ids)

    def values_in(self, table_ids: Any, text: str) -> Any:
        return self.store.values_in(table_ids, text)

    def query(self, sql: str, params: Any = ()) -> Any:
        self.statements.append((sql, list(params)))
        return self.store.query(sql, params)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("kb")
    data = write_kb(root)
    store = TableStore(tmp_path_factory.mktemp("store") / "tables.duckdb")
    for n, name in enumerate(data.files):
        store.put(f"doc{n}", str(root / name), parse_file(root / name))
    yield store, data
    store.close()


@pytest.fixture
def model(fake_ollama: FakeOllama) -> Any:
    generator = OllamaGenerator(OllamaSettings(host=fake_ollama.url, retries=0))
    yield fake_ollama, generator
    generator.close()


def _ask(world: Any, model: Any, question: str, plan: Any) -> tuple[Any, str | None, RecordingStore]:
    server, generator = model
    server.add_reply(Reply(pieces=[plan if isinstance(plan, str) else json.dumps(plan, ensure_ascii=False)]))
    store = RecordingStore(world[0])
    result, rejected = model_table_answer(question, store, None, lambda m: generator.chat(m).text, True)  # type: ignore[arg-type]
    return result, rejected, store


def _gold(w: World) -> list[tuple[str, dict[str, Any], Any]]:
    south_q3 = sum(1 for o in w.orders if o.region == "华南" and "2023-07-01" <= o.day.isoformat() <= "2023-09-30")
    live = sum((o.amount for o in w.orders if o.status != "已取消" and o.product == "摄像头"), Decimal(0))
    by_product: dict[str, Decimal] = defaultdict(Decimal)
    for o in w.orders:
        by_product[o.product] += o.amount
    top2 = sorted(by_product, key=lambda p: -by_product[p])[:2]
    rd = {s[1] for s in w.staff if s[2] == "研发部"}
    someone = w.staff[5]
    return [
        ("华南那边Q3一共接了几张单子", {"table": "订单明细", "op": "count", "filters": [
            {"column": "区域", "op": "=", "value": "华南"},
            {"column": "下单日期", "op": "between", "values": ["2023-07-01", "2023-09-30"]}]}, south_q3),
        ("摄像头没取消的单子一共卖了多少钱", {"table": "订单明细", "op": "sum", "measure": "金额", "filters": [
            {"column": "产品", "op": "=", "value": "摄像头"},
            {"column": "订单状态", "op": "!=", "value": "已取消"}]}, live),
        ("卖得最好的两个产品", {"table": "订单明细", "op": "rank", "measure": "金额", "group_by": "产品", "limit": 2,
                         "order": "desc"}, top2),
        ("研发那边都是谁", {"table": "在职员工", "op": "list", "columns": ["姓名"],
                      "filters": [{"column": "部门", "op": "=", "value": "研发部"}]}, rd),
        (f"{someone[1]}啥时候来的公司", {"table": "在职员工", "op": "lookup", "columns": ["入职日期"],
                                 "filters": [{"column": "姓名", "op": "=", "value": someone[1]}]},
         someone[4].isoformat()),
    ]


def test_gold_plans_are_exact(world: Any, model: Any) -> None:
    exact = 0
    cases = _gold(world[1])
    for question, plan, expected in cases:
        result, rejected, _ = _ask(world, model, question, plan)
        assert rejected is None and result.outcome == "exact", (question, rejected)
        data = result.data
        if isinstance(expected, list):
            got: Any = [i.value for i in result.items]
        elif isinstance(expected, set):
            got = set(data["values"])
        elif isinstance(expected, str):
            got = result.items[0].value.split("：")[-1]
        else:
            got = Decimal(data["value"])
        assert got == expected, question
        assert data["planned_by"] == "model" and result.query and "模型" in result.query
        assert result.items[0].citations[0].rows or result.items[0].citations[0].sheet_row
        exact += 1
    assert exact == len(cases)
    # the request showed the schema (columns, types, samples), and asked for a plan, not an answer
    request = model[0].chat_requests()[0]
    prompt = " ".join(m["content"] for m in request["messages"])
    assert "订单明细" in prompt and "下单日期 [date]" in prompt and "Never answer the question" in prompt


@pytest.mark.parametrize(("plan", "reason"), [
    ({"table": "订单明细", "op": "sum", "measure": "利润"}, "not a column"),
    ({"table": "订单明细", "op": "count", "filters": [{"column": "区域", "op": "=", "value": "华中"}]},
     "does not occur"),
    ({"table": "订单明细", "op": "median", "measure": "金额"}, "not allowed"),
    ({"table": "订单明细", "op": "sum", "measure": "订单编号"}, "not a number column"),
    ({"table": "订单明细", "op": "sum", "measure": "客户名称"}, "not a number column"),
    ({"table": "销售汇总", "op": "count"}, "not one of the tables"),
    ("金额合计是 12,345 元", "no JSON"),
    ('{"table": "订单明细", "op": ', "no JSON"),
    ({"table": "订单明细", "op": "count", "filters": [{"column": "下单日期", "op": ">", "value": "昨天"}]},
     "not a date"),
])
def test_invalid_plans_are_refused(world: Any, model: Any, plan: Any, reason: str) -> None:
    result, rejected, _ = _ask(world, model, "订单的情况", plan)
    assert result.outcome == "refused" and rejected is not None and reason in rejected
    assert result.items == [] and "plan_rejected" in result.data["candidates"]


HOSTILE = "x'); DROP TABLE t1; --"


@pytest.mark.parametrize("plan", [
    {"table": "订单明细", "op": "sum", "measure": f"金额{HOSTILE}"},
    {"table": "订单明细", "op": "count", "filters": [{"column": "区域", "op": "=", "value": HOSTILE}]},
    {"table": f"订单明细{HOSTILE}", "op": "count"},
    {"table": "订单明细", "op": "count", "sql": f"SELECT * FROM t1; {HOSTILE}"},
    {"table": "订单明细", "op": "count", "filters": [{"column": "区域", "op": f"= '华东' OR 1=1 {HOSTILE}",
                                                  "value": "华东"}]},
    {"table": "订单明细", "op": "count", "filters": [{"column": "区域", "op": "=", "value": "华东", "raw": HOSTILE}]},
    {"table": "订单明细", "op": "rank", "measure": "金额", "group_by": "产品", "limit": "1; DROP TABLE t1"},
])
def test_hostile_plans_are_refused_and_nothing_outside_the_schema_runs(world: Any, model: Any, plan: Any) -> None:
    store, _ = world
    before = {t.table_id: t.row_count for t in store.tables()}
    result, rejected, recorder = _ask(world, model, "订单有多少", plan)
    assert result.outcome == "refused" and rejected is not None
    for sql, _ in recorder.statements:
        assert "DROP" not in sql.upper() and HOSTILE not in sql
        # the only statements are the schema's samples and one bound check that a value occurs in its column
        assert sql.startswith(("SELECT DISTINCT", "SELECT 1 FROM")), sql
    assert {t.table_id: t.row_count for t in store.tables()} == before


@pytest.fixture(scope="module")
def service_kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, World]:
    root = tmp_path_factory.mktemp("files")
    data = write_kb(root)
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([root])
    assert not report.failed
    return settings, data


def test_the_question_path_answers_with_the_models_plan(service_kb: tuple[Settings, World],
                                                        fake_ollama: FakeOllama) -> None:
    settings, data = service_kb
    settings = settings.model_copy(update={"ollama": OllamaSettings(host=fake_ollama.url, retries=0)})
    question, plan, expected = _gold(data)[0]
    fake_ollama.reply_fn = lambda body: Reply(pieces=[json.dumps(plan, ensure_ascii=False)])
    with QuestionService.open(settings) as service:
        answer = service.ask(question)
    assert answer.mode == "rule", answer.text
    assert answer.metadata["handler"]["data"]["planned_by"] == "model"
    assert Decimal(answer.metadata["handler"]["data"]["value"]) == expected
    assert "模型" in answer.text and "订单明细" in answer.text


def test_the_question_path_with_a_hostile_plan_gives_no_table_answer(service_kb: tuple[Settings, World],
                                                                     fake_ollama: FakeOllama) -> None:
    settings, _ = service_kb
    settings = settings.model_copy(update={"ollama": OllamaSettings(host=fake_ollama.url, retries=0)})
    hostile = {"table": "订单明细", "op": "count", "filters": [{"column": "区域", "op": "=", "value": HOSTILE}]}
    fake_ollama.reply_fn = lambda body: Reply(pieces=[json.dumps(hostile)])
    with QuestionService.open(settings) as service:
        answer = service.ask("华南那边Q3一共接了几张单子")
    assert "does not occur" in answer.metadata["model_table_plan"]["rejected"]
    assert answer.metadata.get("handler", {}).get("data", {}).get("planned_by") != "model"


def test_the_plan_prompt_names_files_not_server_paths(tmp_path: Path) -> None:
    """The plan prompt names tables by file name and sheet, never by server path."""
    from retrieval.tables.model_plan import plan_messages, table_schema

    data = write_kb(tmp_path / "kb")
    store = TableStore(tmp_path / "t.duckdb")
    name = "销售/2023年订单台账.xlsx"
    store.put("d", str(tmp_path / "kb" / name), parse_file(tmp_path / "kb" / name))
    schemas = [table_schema(t, store, store.tables()) for t in store.tables()]
    prompt = " ".join(m["content"] for m in plan_messages("订单有多少", schemas))
    assert str(tmp_path) not in prompt and "2023年订单台账.xlsx · 订单明细" in prompt
    assert len(data.orders) == 1_986
    store.close()
