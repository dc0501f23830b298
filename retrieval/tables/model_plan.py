"""A table query planned by the model, checked against the schema, and run by the store: never a number from the model.

Why: the deterministic linker refuses phrasings it has no word for; a local model reads them
well but must not compute (it adds badly) nor write SQL (it could write anything). So the model
gets the candidate tables' schemas (columns, types, a few sample values) and answers with a
JSON plan; :func:`validate_plan` accepts only known tables and columns, the operations below,
values that occur in their column (text) or parse as the column's type (numbers, dates), and
turns the plan into the same :class:`~retrieval.tables.query.TableQuery` the linker builds, which
``execute`` runs with generated identifiers and bound parameters. A plan that fails any check
is rejected with the reason, and the caller falls back to the deterministic answer or refuses.

Plan format (one JSON object)::

    {"table": "订单明细", "op": "sum", "measure": "金额",
     "filters": [{"column": "订单状态", "op": "!=", "value": "已取消"},
                 {"column": "下单日期", "op": "between", "values": ["2023-12-01", "2023-12-31"]}],
     "group_by": "区域", "group_unit": null, "limit": 1, "order": "desc", "columns": []}
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from indexing.table_store import ColumnInfo, TableInfo, TableStore
from retrieval.handlers.results import HandlerResult
from retrieval.tables.choose import table_label
from retrieval.tables.execute import run_query
from retrieval.tables.query import Filter, Refusal, TableQuery
from retrieval.tables.render import refusal_result, table_result

__all__ = [
    "MAX_TABLES",
    "PLAN_OPS",
    "PlanRejected",
    "candidate_tables",
    "model_table_answer",
    "parse_plan",
    "plan_messages",
    "table_schema",
    "validate_plan",
]

#: Operations a plan may ask for.
PLAN_OPS = ("count", "count_distinct", "sum", "avg", "max", "min", "rank", "list", "lookup")
_FILTER_OPS = ("=", "!=", "in", "not_in", ">", ">=", "<", "<=", "between")
_KEYS = {"table", "op", "measure", "filters", "group_by", "group_unit", "limit", "order", "columns"}
_MAX_VALUE = 200
_MAX_FILTERS = 8
_SAMPLES = 5
_JSON = re.compile(r"\{.*\}", re.DOTALL)

Chat = Callable[[list[dict[str, str]]], str]


class PlanRejected(ValueError):
    """The model's plan is not valid against the schema; the message says why (shown in metadata)."""


@dataclass(slots=True)
class _Schema:
    table: TableInfo
    label: str
    samples: dict[int, list[str]]


def table_schema(table: TableInfo, store: TableStore, others: Sequence[TableInfo] = ()) -> _Schema:
    """Columns, types and a few sample values of one table (what the model sees)."""
    samples: dict[int, list[str]] = {}
    for column in table.columns:
        _, rows = store.query(f"SELECT DISTINCT {column.sql} FROM {table.sql} WHERE {column.sql} IS NOT NULL "
                              f"LIMIT {_SAMPLES}")
        samples[column.index] = [_show(r[0]) for r in rows]
    return _Schema(table, table_label(table, list(others) or [table]), samples)


def _show(value: Any) -> str:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()[:10]
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def plan_messages(question: str, schemas: Sequence[_Schema]) -> list[dict[str, str]]:
    """The request: the schemas and the question; the reply must be one JSON plan, no answer."""
    lines = []
    for s in schemas:
        lines.append(f"table: {s.label}  (name: {s.table.name}, rows: {s.table.row_count})")
        for c in s.table.columns:
            kind = "number" if c.kind == "decimal" else c.kind
            lines.append(f"  - {c.name} [{kind}] e.g. {', '.join(s.samples.get(c.index, []))}")
    system = (
        "You turn a question about tables into ONE JSON query plan. Never answer the question and never compute "
        "numbers. Keys: table (a table name below), op (one of " + ", ".join(PLAN_OPS) + "), measure (a number "
        "column, for sum/avg/max/min/rank), filters (list of {column, op, value} or {column, op, values}; op one "
        "of " + ", ".join(_FILTER_OPS) + "; dates as YYYY-MM-DD; text values exactly as they occur in the column), "
        "group_by (a column or null), group_unit (month, quarter, year or null, for a date group_by), limit "
        "(an integer, for rank), order (desc or asc), columns (columns to show, for list and lookup). "
        "Reply with the JSON object only."
    )
    user = "Tables:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_plan(text: str) -> dict[str, Any]:
    """The JSON object of a reply (code fences and text around it ignored)."""
    match = _JSON.search(text or "")
    if match is None:
        raise PlanRejected("the model's reply holds no JSON object")
    try:
        plan = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise PlanRejected(f"the model's plan is not valid JSON ({exc.msg})") from exc
    if not isinstance(plan, dict):
        raise PlanRejected("the model's plan is not a JSON object")
    return plan


def _column(schema: _Schema, name: Any, what: str) -> ColumnInfo:
    if not isinstance(name, str):
        raise PlanRejected(f"{what} must be a column name")
    for column in schema.table.columns:
        if column.name == name or column.name.casefold() == name.strip().casefold():
            return column
    raise PlanRejected(f"{what} '{name[:40]}' is not a column of '{schema.table.name}'")


def _typed(column: ColumnInfo, value: Any, table: TableInfo, store: TableStore) -> Any:
    """A filter value as the column's type; a text value must occur in the column."""
    if isinstance(value, bool) or value is None or isinstance(value, dict | list):
        raise PlanRejected(f"a value for '{column.name}' is not a text, number or date")
    text = str(value).strip()
    if not text or len(text) > _MAX_VALUE:
        raise PlanRejected(f"a value for '{column.name}' is empty or too long")
    if column.kind == "decimal":
        try:
            return Decimal(text.replace(",", ""))
        except InvalidOperation as exc:
            raise PlanRejected(f"'{text[:40]}' is not a number for '{column.name}'") from exc
    if column.is_date:
        try:
            day = dt.date.fromisoformat(text[:10])
        except ValueError as exc:
            raise PlanRejected(f"'{text[:40]}' is not a date (YYYY-MM-DD) for '{column.name}'") from exc
        return dt.datetime.combine(day, dt.time()) if column.kind == "timestamp" else day
    _, rows = store.query(f"SELECT 1 FROM {table.sql} WHERE {column.sql} = ? LIMIT 1", [text])
    if not rows:
        raise PlanRejected(f"'{text[:40]}' does not occur in '{column.name}'")
    return text


def _filter(schema: _Schema, raw: Any, store: TableStore) -> Filter:
    if not isinstance(raw, dict) or not set(raw) <= {"column", "op", "value", "values"}:
        raise PlanRejected("a filter must be {column, op, value(s)}")
    column = _column(schema, raw.get("column"), "filter column")
    op = raw.get("op", "=")
    if op not in _FILTER_OPS:
        raise PlanRejected(f"filter operator '{str(op)[:10]}' is not allowed")
    values = raw.get("values") if "values" in raw else [raw.get("value")]
    if not isinstance(values, list) or not values or len(values) > 50:
        raise PlanRejected(f"the filter on '{column.name}' has no values")
    typed = [_typed(column, v, schema.table, store) for v in values]
    if op in (">", ">=", "<", "<=", "between") and column.kind == "text":
        raise PlanRejected(f"'{column.name}' is text and cannot be compared with {op}")
    if op == "between":
        if len(typed) != 2:
            raise PlanRejected("between needs two values")
        if column.is_date:  # a date range [since, until + 1 day)
            return Filter(column, "range", [(typed[0], typed[1] + dt.timedelta(days=1))], "model")
        return Filter(column, "between", sorted(typed), "model")
    if op in ("=", "!=", ">", ">=", "<", "<=") and len(typed) != 1:
        op = {"=": "in", "!=": "not_in"}.get(op, op)
        if op not in ("in", "not_in"):
            raise PlanRejected(f"{op} takes one value")
    return Filter(column, op, typed, "model")


def validate_plan(plan: dict[str, Any], schemas: Sequence[_Schema], store: TableStore) -> TableQuery:
    """The plan as a query on one schema's table, or :class:`PlanRejected` saying what is wrong."""
    unknown = set(plan) - _KEYS
    if unknown:
        raise PlanRejected(f"unknown keys in the plan: {', '.join(sorted(unknown))[:80]}")
    schema = _plan_schema(plan, schemas)
    op = plan.get("op")
    if op not in PLAN_OPS:
        raise PlanRejected(f"operation '{str(op)[:20]}' is not allowed")
    raw_filters = plan.get("filters") or []
    if not isinstance(raw_filters, list) or len(raw_filters) > _MAX_FILTERS:
        raise PlanRejected("filters must be a short list")
    query = TableQuery(table=schema.table, op=op, filters=[_filter(schema, f, store) for f in raw_filters])
    if plan.get("measure") is not None:
        query.measure = _column(schema, plan["measure"], "measure")
        if not query.measure.is_measure:
            raise PlanRejected(f"'{query.measure.name}' is not a number column that can be computed")
    if op in ("sum", "avg", "max", "min") and query.measure is None:
        raise PlanRejected(f"{op} needs a measure column")
    _plan_group(plan, schema, query)
    columns = plan.get("columns") or []
    if not isinstance(columns, list) or len(columns) > 12:
        raise PlanRejected("columns must be a short list")
    query.targets = [_column(schema, c, "column") for c in columns]
    if op == "rank":
        _plan_rank(plan, query)
    if op in ("list", "count_distinct") and len(query.targets) != 1:
        raise PlanRejected(f"{op} needs exactly one column in columns")
    if op == "lookup":
        if not query.targets:
            raise PlanRejected("lookup needs the columns to show")
        query.all_rows = True
    query.notes.append(("查询方案由模型提出，已按表结构校验后执行", "query planned by the model, checked against the "
                        "schema and run by the store"))
    return query


def _plan_schema(plan: dict[str, Any], schemas: Sequence[_Schema]) -> _Schema:
    """The one schema in scope the plan's table names (by label, table name or sheet)."""
    name = plan.get("table")
    matches = [s for s in schemas if isinstance(name, str) and name.strip() in (s.label, s.table.name, s.table.sheet)]
    if len(matches) != 1:
        raise PlanRejected(f"table '{str(name)[:40]}' is not one of the tables in scope" if not matches
                           else f"table '{name}' is ambiguous in scope")
    return matches[0]


def _plan_group(plan: dict[str, Any], schema: _Schema, query: TableQuery) -> None:
    if plan.get("group_by") is not None:
        query.group = _column(schema, plan["group_by"], "group_by")
        unit = plan.get("group_unit")
        if unit not in (None, "month", "quarter", "year", "day"):
            raise PlanRejected("group_unit must be month, quarter or year")
        if query.group.is_date:
            query.group_unit = unit or "day"


def _plan_rank(plan: dict[str, Any], query: TableQuery) -> None:
    if query.group is None:
        raise PlanRejected("rank needs group_by")
    query.rank_agg = "sum" if query.measure is not None else "count"
    limit = plan.get("limit", 1)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 100:
        raise PlanRejected("limit must be an integer from 1 to 100")
    query.limit = limit
    order = plan.get("order", "desc")
    if order not in ("desc", "asc"):
        raise PlanRejected("order must be desc or asc")
    query.ascending = order == "asc"


#: Tables whose schema the model is shown (the ones the question links best): a small model's window is small.
MAX_TABLES = 4


def candidate_tables(question: str, store: TableStore, doc_ids: Sequence[str] | None) -> list[TableInfo]:
    """The tables in scope that the question links most (names, columns, values), best first."""
    from retrieval.tables.answer import plan_question

    tables = store.tables(doc_ids)
    if len(tables) <= MAX_TABLES:
        return tables
    linked = sorted(plan_question(question, store, doc_ids).linked, key=lambda link: -link.coverage)
    return [link.table for link in linked if link.coverage > 0][:MAX_TABLES]


def model_table_answer(question: str, store: TableStore, doc_ids: Sequence[str] | None, chat: Chat,
                       zh: bool, route: str = "table_aggregate") -> tuple[HandlerResult, str | None]:
    """Ask the model for a plan over the tables in scope and run it; (result, None) when the plan was valid,
    else (a refusal, why the plan was rejected). Nothing outside the validated plan is executed."""
    tables = candidate_tables(question, store, doc_ids)
    if not tables:
        refusal = Refusal("范围内没有表格。", "There is no table in scope.", kind="no_table")
        return refusal_result(refusal, route, zh), "no table"
    schemas = [table_schema(t, store, tables) for t in tables]
    try:
        plan = parse_plan(chat(plan_messages(question, schemas)))
        query = validate_plan(plan, schemas, store)
    except PlanRejected as exc:
        reason = str(exc)
        refusal = Refusal(f"模型提出的查询方案无效（{reason}），无法给出确定的答案。",
                          f"The model's query plan was rejected ({reason}).", {"plan_rejected": [reason]})
        return refusal_result(refusal, route, zh), reason
    result = table_result(run_query(query, store), route, zh)
    result.data["planned_by"] = "model"
    result.data["plan"] = plan
    return result, None
