"""Count the rows of every table in scope, optionally those matching "column op value"."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from officeqa.domain import ParsedDocument
from retrieval.handlers.numbers import parse_number
from retrieval.handlers.results import HandlerItem, HandlerResult
from retrieval.handlers.tables import cell, is_numeric, mentioned_value, numeric_columns, pick_value_column, resolve
from retrieval.handlers.units import Table, tables
from retrieval.rules.normalize import normalize

MAX_ROW_ITEMS = 50


def _compare(raw: str, op: str, want: str) -> bool:
    got_n, want_n = parse_number(raw), parse_number(want)
    if op in ("==", "!="):
        same = normalize(raw.strip()) == normalize(want) or (got_n is not None and got_n == want_n)
        return same if op == "==" else not same
    if got_n is None or want_n is None:
        return False
    return {">": got_n > want_n, ">=": got_n >= want_n, "<": got_n < want_n, "<=": got_n <= want_n}[op]


def _condition_for(table: Table, params: dict[str, Any], instruction: str) -> tuple[dict[str, Any] | None, str | None]:
    """The condition with its column resolved in this table; (None, None) means count every row."""
    cond = params.get("condition")
    if cond:
        numeric_value = parse_number(cond["value"]) is not None
        column = resolve(cond.get("column"), table.header)
        if column is None and numeric_value:
            column = pick_value_column(table, instruction, set())
            if column is None:
                numeric = numeric_columns(table)
                column = numeric[0] if numeric else None
        if column is None and not numeric_value:
            hit = mentioned_value(table, cond["value"])
            column = hit[0] if hit else None
        if column is None:
            return None, f"no column for condition {cond}"
        if numeric_value and cond["op"] not in ("==", "!=") and not is_numeric(table, column):
            return None, f"column {table.header[column]!r} is not numeric"
        return {"column": column, "op": cond["op"], "value": cond["value"]}, None
    hit = mentioned_value(table, instruction)
    if hit:
        return {"column": hit[0], "op": "==", "value": hit[1]}, None
    return None, None


def count_rows(params: dict[str, Any], instruction: str, documents: list[ParsedDocument]) -> HandlerResult:
    total = 0
    items: list[HandlerItem] = []
    warnings: list[str] = []
    described: list[str] = []
    for table in tables(documents):
        cond, why = _condition_for(table, params, instruction)
        if why:
            warnings.append(f"{table.cite().label()}: table skipped, {why}")
            continue
        matched = 0
        for r, row in enumerate(table.rows, start=1):
            if cond and not _compare(cell(row, cond["column"]), cond["op"], cond["value"]):
                continue
            if not cond and not any(c.strip() for c in row if c):
                continue
            matched += 1
            if len(items) < MAX_ROW_ITEMS:
                items.append(HandlerItem(value=" | ".join(row), kind="row", citations=[table.cite(row=r)]))
        total += matched
        where = f"「{table.header[cond['column']]}」{cond['op']} {cond['value']}" if cond else "全部行"
        described.append(f"{table.cite(rows=matched).label()}（{where}）")
    if not described:
        return HandlerResult(route="count", answer_text="没有找到可以计数的表格。", warnings=warnings)
    text = f"共 {total} 条。\n来源: " + "; ".join(described)
    return HandlerResult(route="count", answer_text=text, items=items, warnings=warnings,
                         data={"count": total, "tables": len(described), "shown_rows": len(items),
                               "count_decimal": str(Decimal(total))})
