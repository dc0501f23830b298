"""Run a :class:`TableQuery` as parameterised SQL on the table store and collect an exact result.

Why SQL is built here and nowhere else: identifiers come from the store (``t12``, ``c3``),
operators from a fixed table, and every value the question supplied travels as a
parameter, so no question text ever becomes SQL. Averages are computed from the exact
DECIMAL sum and count (DuckDB's ``avg`` returns a float), and ties at the top of a ranking
are all reported rather than one chosen at random.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from indexing.table_columns import display_value
from indexing.table_store import ColumnInfo, TableStore
from retrieval.tables.query import Filter, TableQuery

__all__ = ["TableResult", "compile_where", "preview_sql", "run_query"]

MAX_GROUPS = 1_000
MAX_ROWS = 50
CITED_ROWS = 20
GROUP_CITED_ROWS = 10
AVG_PLACES = Decimal("0.0001")

_CMP = {">": ">", ">=": ">=", "<": "<", "<=": "<="}


@dataclass(slots=True)
class TableResult:
    """The computed answer: a scalar, groups or rows, the rows that matched, and the SQL that ran."""

    query: TableQuery
    matched: int = 0
    value: Any = None
    value_rows: int = 0  # rows whose measure held a number
    exact: bool = True  # False when an average was rounded
    groups: list[tuple[str, Any, int, list[int]]] = field(default_factory=list)  # key, value, rows, cited rows
    rows: list[dict[str, Any]] = field(default_factory=list)  # lookup / top rows: _row, _sheet_row, cells
    cited: list[int] = field(default_factory=list)
    ties: bool = False
    sql: list[str] = field(default_factory=list)
    params: list[list[Any]] = field(default_factory=list)


def _param(column: ColumnInfo, value: Any) -> Any:
    if column.kind == "timestamp" and isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return dt.datetime(value.year, value.month, value.day)
    return value


def _range_sql(f: Filter, params: list[Any]) -> str:
    """Date ranges [since, until) on one column, OR-ed; their bounds are appended to ``params``."""
    col, ors = f.column.sql, []
    for since, until in f.values:
        bounds = []
        if since is not None:
            bounds.append(f"{col} >= ?")
            params.append(_param(f.column, since))
        if until is not None:
            bounds.append(f"{col} < ?")
            params.append(_param(f.column, until))
        ors.append("(" + " AND ".join(bounds) + ")")
    return "(" + " OR ".join(ors) + ")"


def compile_where(filters: list[Filter]) -> tuple[str, list[Any]]:
    """The WHERE clause (or "TRUE") and its parameters."""
    parts: list[str] = []
    params: list[Any] = []
    for f in filters:
        col = f.column.sql
        if f.other is not None:
            parts.append(f"{col} {_CMP[f.op]} {f.other.sql}")
        elif f.op == "=":
            parts.append(f"{col} = ?")
            params.append(f.values[0])
        elif f.op == "!=":
            parts.append(f"{col} IS DISTINCT FROM ?")
            params.append(f.values[0])
        elif f.op == "in":
            parts.append(f"{col} IN ({', '.join('?' for _ in f.values)})")
            params += f.values
        elif f.op == "not_in":
            parts.append(f"({col} IS NULL OR {col} NOT IN ({', '.join('?' for _ in f.values)}))")
            params += f.values
        elif f.op in _CMP:
            parts.append(f"{col} {_CMP[f.op]} ?")
            params.append(f.values[0])
        elif f.op == "between":
            parts.append(f"{col} BETWEEN ? AND ?")
            params += f.values
        elif f.op == "range":
            parts.append(_range_sql(f, params))
        else:  # a plan only ever holds the operators above
            raise ValueError(f"unknown filter operator {f.op!r}")
    return (" AND ".join(parts) or "TRUE"), params


def _group_expr(query: TableQuery) -> str:
    col = query.group.sql  # type: ignore[union-attr]
    if query.group is not None and query.group.is_date:
        unit = query.group_unit or "day"
        if unit == "month":
            return f"strftime({col}, '%Y-%m')"
        if unit == "quarter":
            return f"(CAST(year({col}) AS VARCHAR) || '-Q' || CAST(quarter({col}) AS VARCHAR))"
        if unit == "year":
            return f"CAST(year({col}) AS VARCHAR)"
        return f"CAST(CAST({col} AS DATE) AS VARCHAR)"
    return col


def _cell(value: Any) -> str:
    return display_value(value)


class _Runner:
    def __init__(self, store: TableStore, result: TableResult) -> None:
        self.store, self.result = store, result

    def run(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        self.result.sql.append(sql)
        self.result.params.append([_show_param(p) for p in params])
        return self.store.query(sql, params)[1]


def _show_param(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _row_number(sheet_row: Any, row: Any) -> int:
    return int(sheet_row) if sheet_row is not None else int(row)


def run_query(query: TableQuery, store: TableStore) -> TableResult:
    """Execute the query; the result carries the SQL and parameters that produced it."""
    result = TableResult(query=query)
    runner = _Runner(store, result)
    table = query.table.sql
    where, params = compile_where(query.filters)
    result.matched = int(runner.run(f"SELECT count(*) FROM {table} WHERE {where}", params)[0][0])
    cite_sql = f"SELECT _row, _sheet_row FROM {table} WHERE {where} ORDER BY _row LIMIT {CITED_ROWS}"
    op = query.op
    if op == "rank":
        _rank(query, runner, table, where, params)
    elif query.group is not None and op in ("sum", "avg", "max", "min", "count", "count_distinct"):
        _grouped(query, runner, table, where, params)
    elif op in ("sum", "avg", "max", "min"):
        _scalar(query, runner, table, where, params)
    elif op == "count":
        result.value = result.matched
    elif op == "count_distinct":
        col = query.targets[0].sql
        result.value = int(runner.run(f"SELECT count(DISTINCT {col}) FROM {table} WHERE {where}", params)[0][0])
    elif op == "list":
        col = query.targets[0].sql
        rows = runner.run(f"SELECT {col}, count(*), min(_row) FROM {table} WHERE {where} AND {col} IS NOT NULL "
                          f"GROUP BY {col} ORDER BY min(_row) LIMIT {MAX_GROUPS + 1}", params)
        result.groups = [(_cell(v), None, int(n), []) for v, n, _ in rows]
    elif op == "lookup":
        _lookup(query, runner, table, where, params)
    if not result.cited and op not in ("rank",):
        result.cited = [_row_number(s, r) for r, s in runner.run(cite_sql, params)]
    return result


def _scalar(query: TableQuery, runner: _Runner, table: str, where: str, params: list[Any]) -> None:
    result = runner.result
    m = query.measure.sql  # type: ignore[union-attr]
    agg = {"sum": "sum", "avg": "sum", "max": "max", "min": "min"}[query.op]
    value, count = runner.run(f"SELECT {agg}({m}), count({m}) FROM {table} WHERE {where}", params)[0]
    result.value_rows = int(count)
    if query.op == "avg" and value is not None and count:
        exact = Decimal(value) / Decimal(count)
        result.value = exact.quantize(AVG_PLACES, rounding=ROUND_HALF_UP)
        result.exact = result.value == exact
    else:
        result.value = value
    if query.op in ("max", "min") and value is not None:
        rows = runner.run(f"SELECT _row, _sheet_row FROM {table} WHERE {where} AND {m} = ? ORDER BY _row "
                          f"LIMIT {CITED_ROWS}", [*params, value])
        result.cited = [_row_number(s, r) for r, s in rows]


def _aggregate_sql(query: TableQuery, agg: str) -> str:
    if agg == "count":
        return "count(*)"
    if agg == "count_distinct":
        return f"count(DISTINCT {query.targets[0].sql})"
    m = query.measure.sql  # type: ignore[union-attr]
    return {"sum": f"sum({m})", "avg": f"sum({m})", "max": f"max({m})", "min": f"min({m})"}[agg]


def _grouped_rows(query: TableQuery, runner: _Runner, table: str, where: str, params: list[Any],
                  agg: str) -> list[tuple[str, Any, int, int, list[int]]]:
    """(group, value, rows, rows with a number, the group's first rows) in one scan."""
    g = _group_expr(query)
    count_m = f"count({query.measure.sql})" if query.measure is not None else "count(*)"
    first_rows = f"min_by(coalesce(_sheet_row, _row), _row, {GROUP_CITED_ROWS})"
    rows = runner.run(f"SELECT {g} AS g, {_aggregate_sql(query, agg)}, count(*), {count_m}, {first_rows} "
                      f"FROM {table} WHERE {where} GROUP BY g ORDER BY g NULLS LAST LIMIT {MAX_GROUPS + 1}", params)
    out = []
    for key, value, n, numeric, cited in rows:
        if agg == "avg" and value is not None and numeric:
            value = (Decimal(value) / Decimal(numeric)).quantize(AVG_PLACES, rounding=ROUND_HALF_UP)
        out.append(("(空)" if key is None else _cell(key), value, int(n), int(numeric), [int(r) for r in cited]))
    return out


def _grouped(query: TableQuery, runner: _Runner, table: str, where: str, params: list[Any]) -> None:
    rows = _grouped_rows(query, runner, table, where, params, query.op)
    runner.result.groups = [(k, v, n, cited) for k, v, n, _, cited in rows]
    runner.result.value_rows = sum(numeric for _, _, _, numeric, _ in rows)


def _rank(query: TableQuery, runner: _Runner, table: str, where: str, params: list[Any]) -> None:
    result = runner.result
    limit = query.limit or 1
    if query.rank_agg == "rows":
        m = query.measure.sql  # type: ignore[union-attr]
        order = "ASC" if query.ascending else "DESC"
        rows = runner.run(f"SELECT * FROM {table} WHERE {where} AND {m} IS NOT NULL ORDER BY {m} {order}, _row "
                          f"LIMIT {limit + MAX_ROWS}", params)
        names = [d for d in _columns_of(runner, table)]
        picked = _top_with_ties([(dict(zip(names, r, strict=True))[m], r) for r in rows], limit)
        result.ties = len(picked) > limit
        result.rows = [_row_dict(query, dict(zip(names, r, strict=True))) for _, r in picked]
        result.cited = [row["row"] for row in result.rows]
        return
    rows = _grouped_rows(query, runner, table, where, params, query.rank_agg or "sum")
    ranked = [(v, (k, v, n, cited)) for k, v, n, _, cited in rows if v is not None]
    # equal values keep the table's order (the group whose first row comes first), not the groups' spelling
    ranked.sort(key=lambda kv: min(kv[1][3], default=0))
    ranked.sort(key=lambda kv: kv[0], reverse=not query.ascending)
    picked = _top_with_ties(ranked, limit)
    result.ties = len(picked) > limit
    result.groups = [group for _, group in picked]
    result.cited = [r for _, (_, _, _, cited) in picked for r in cited][:CITED_ROWS]


def _top_with_ties(ranked: list[tuple[Any, Any]], limit: int) -> list[tuple[Any, Any]]:
    """The first ``limit`` entries plus any entry tied with the last of them."""
    if len(ranked) <= limit:
        return ranked
    cut = ranked[limit - 1][0]
    return ranked[:limit] + [e for e in ranked[limit:] if e[0] == cut]


def _columns_of(runner: _Runner, table: str) -> list[str]:
    names, _ = runner.store.query(f"SELECT * FROM {table} LIMIT 0")
    return names


def _row_dict(query: TableQuery, row: dict[str, Any]) -> dict[str, Any]:
    cells = {}
    for column in query.table.columns:
        raw = row.get(f"r{column.index}")
        value = row.get(column.sql)
        cells[column.name] = raw if raw is not None else ("" if value is None else _cell(value))
    return {"row": _row_number(row.get("_sheet_row"), row["_row"]), "data_row": int(row["_row"]), "cells": cells}


def _lookup(query: TableQuery, runner: _Runner, table: str, where: str, params: list[Any]) -> None:
    result = runner.result
    rows = runner.run(f"SELECT * FROM {table} WHERE {where} ORDER BY _row LIMIT {MAX_ROWS + 1}", params)
    names = _columns_of(runner, table)
    result.rows = [_row_dict(query, dict(zip(names, r, strict=True))) for r in rows]
    result.cited = [row["row"] for row in result.rows][:CITED_ROWS]
    if query.implicit_sum and len(query.targets) == 1 and result.matched > 1:
        m = query.targets[0].sql
        total, count = runner.run(f"SELECT sum({m}), count({m}) FROM {table} WHERE {where}", params)[0]
        result.value, result.value_rows = total, int(count)


def preview_sql(query: TableQuery) -> tuple[str, list[Any]]:
    """The statement that computes the answer (shown by ``officeqa route --explain``) and its parameters."""
    table = query.table.sql
    where, params = compile_where(query.filters)
    shown = [_show_param(p) for p in params]
    op = query.op
    if op == "rank" and query.rank_agg == "rows":
        order = "ASC" if query.ascending else "DESC"
        return (f"SELECT * FROM {table} WHERE {where} ORDER BY {query.measure.sql} {order} "  # type: ignore[union-attr]
                f"LIMIT {query.limit}"), shown
    if op == "rank" or (query.group is not None and op in ("sum", "avg", "max", "min", "count", "count_distinct")):
        agg = _aggregate_sql(query, query.rank_agg if op == "rank" else op)
        tail = f" ORDER BY 2 {'ASC' if query.ascending else 'DESC'} LIMIT {query.limit}" if op == "rank" else ""
        return f"SELECT {_group_expr(query)} AS g, {agg} FROM {table} WHERE {where} GROUP BY g{tail}", shown
    if op in ("sum", "avg", "max", "min"):
        return f"SELECT {_aggregate_sql(query, op)}, count({query.measure.sql}) FROM {table} WHERE {where}", shown  # type: ignore[union-attr]
    if op in ("count", "count_distinct"):
        return f"SELECT {_aggregate_sql(query, op)} FROM {table} WHERE {where}", shown
    if op == "list":
        col = query.targets[0].sql
        return f"SELECT {col}, count(*) FROM {table} WHERE {where} AND {col} IS NOT NULL GROUP BY {col}", shown
    cols = ", ".join(c.sql for c in query.targets)
    return f"SELECT _row, _sheet_row, {cols} FROM {table} WHERE {where} ORDER BY _row", shown
