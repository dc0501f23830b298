"""Group every table in scope by one column and sum / count / average / max / min another, exactly.

Columns are found from the instruction's phrases by fuzzy header matching, per table,
so a workbook whose sheets say "所属地区" on one and "地区" on another still merges
into one answer. Arithmetic is Decimal; cells that are not numbers are skipped and
counted, never read as zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from officeqa.domain import ParsedDocument
from retrieval.handlers.numbers import format_decimal, parse_number
from retrieval.handlers.results import Citation, HandlerItem, HandlerResult
from retrieval.handlers.tables import cell, is_numeric, pick_value_column, resolve, split_phrase
from retrieval.handlers.units import Table, tables

OP_LABEL = {"sum": "求和", "avg": "平均", "max": "最大", "min": "最小", "count": "计数"}
ALL_ROWS = "(全部)"
EMPTY_GROUP = "(空)"
MAX_SKIPPED_EXAMPLES = 10
_COUNT_HINTS = ("数量", "条数", "个数", "次数", "记录", "count", "number")


@dataclass(slots=True)
class _Group:
    total: Decimal = Decimal(0)
    count: int = 0
    rows: int = 0
    low: Decimal | None = None
    high: Decimal | None = None
    citations: list[Citation] = field(default_factory=list)

    def add(self, value: Decimal) -> None:
        self.total += value
        self.count += 1
        self.low = value if self.low is None or value < self.low else self.low
        self.high = value if self.high is None or value > self.high else self.high

    def result(self, op: str) -> Decimal | None:
        if op == "count":
            return Decimal(self.rows)
        if not self.count:
            return None
        if op == "sum":
            return self.total
        if op == "avg":
            return (self.total / self.count).quantize(Decimal("0.0001"))
        return self.high if op == "max" else self.low


@dataclass(slots=True)
class _Plan:
    table: Table
    group: int | None
    value: int | None
    op: str


def _plan(table: Table, params: dict[str, Any], instruction: str) -> tuple[_Plan | None, str | None]:
    """Which columns of this table to use, or why the table is skipped."""
    header = table.header
    op = params.get("op", "sum")
    group_phrase, value_phrase = params.get("group_by"), params.get("value")
    group = resolve(group_phrase, header)
    value = resolve(value_phrase, header, {group} if group is not None else set())
    if group_phrase and value_phrase is None:
        split = split_phrase(group_phrase, header)
        if split:
            group, value = split
    if group_phrase and group is None:
        return None, f"no column like {group_phrase!r}"
    excluded = {group} if group is not None else set()
    if value is not None and op != "count" and not is_numeric(table, value):
        if any(h in (value_phrase or "") for h in _COUNT_HINTS):
            op = "count"
        else:
            value = None
    if value is None and op != "count":
        for phrase in params.get("phrases") or []:
            candidate = resolve(phrase, header, excluded)
            if candidate is not None and is_numeric(table, candidate):
                value = candidate
                break
        if value is None:
            value = pick_value_column(table, instruction, excluded)
        if value is None:
            if any(h in (value_phrase or "") for h in _COUNT_HINTS):
                op = "count"
            else:
                return None, f"no numeric column like {value_phrase!r}"
    return _Plan(table=table, group=group, value=value, op=op), None


@dataclass
class _Tally:
    """Groups over every used table, and the cells that were not numbers (a few kept as examples)."""

    groups: dict[str, _Group] = field(default_factory=dict)
    skipped: int = 0
    skipped_examples: list[dict[str, Any]] = field(default_factory=list)

    def add_table(self, table: Table, plan: _Plan) -> None:
        """Every row of ``table`` into its group; one citation per group and table."""
        per_table: dict[str, int] = {}
        for r, row in enumerate(table.rows, start=1):
            key = (cell(row, plan.group).strip() or EMPTY_GROUP) if plan.group is not None else ALL_ROWS
            group = self.groups.setdefault(key, _Group())
            group.rows += 1
            per_table[key] = per_table.get(key, 0) + 1
            if plan.value is not None:
                self._add_value(group, table, row, r, plan.value)
        for key, n in per_table.items():
            self.groups[key].citations.append(table.cite(rows=n))

    def _add_value(self, group: _Group, table: Table, row: list[str], r: int, index: int) -> None:
        raw = row[index] if index < len(row) else ""
        number = parse_number(raw)
        if number is not None:
            group.add(number)
            return
        self.skipped += 1
        if len(self.skipped_examples) < MAX_SKIPPED_EXAMPLES:
            self.skipped_examples.append({"value": raw, "citation": table.cite(row=r).to_json()})


def aggregate(params: dict[str, Any], instruction: str, documents: list[ParsedDocument]) -> HandlerResult:
    """The grouped aggregate over every table whose columns resolve; the others are listed as skipped."""
    tally = _Tally()
    warnings: list[str] = []
    used: list[_Plan] = []
    for table in tables(documents):
        plan, why = _plan(table, params, instruction)
        if plan is None:
            warnings.append(f"{table.cite().label()}: table skipped, {why}")
            continue
        used.append(plan)
        tally.add_table(table, plan)
    if not used:
        return HandlerResult(route="table_aggregate", answer_text="没有找到可以汇总的表格列。" + _why(warnings),
                             warnings=warnings)
    return _result(used, tally, warnings)


def _result(used: list[_Plan], tally: _Tally, warnings: list[str]) -> HandlerResult:
    """The groups' results as items, the answer text and the data of the first plan's operation."""
    first = used[0]
    op = first.op
    group_name = first.table.header[first.group] if first.group is not None else None
    value_name = first.table.header[first.value] if first.value is not None else None
    items: list[HandlerItem] = []
    total = Decimal(0)
    for key, group in tally.groups.items():
        result = group.result(op)
        shown = "无数值" if result is None else format_decimal(result, strip=op == "avg")
        if result is not None and op in ("sum", "count"):
            total += result
        items.append(HandlerItem(value=key, normalized=None if result is None else shown, kind=op,
                                 citations=group.citations, extra={"rows": group.rows, "numeric_rows": group.count}))
    title = (f"按「{group_name}」" if group_name else "全部行") + (f"对「{value_name}」" if value_name else "") \
        + f"{OP_LABEL[op]}："
    lines = [title] + [f"- {i.value}: {i.normalized if i.normalized is not None else '无数值'}" for i in items]
    if op in ("sum", "count") and len(items) > 1:
        lines.append(f"合计: {format_decimal(total)}")
    if tally.skipped:
        lines.append(f"（{tally.skipped} 个非数值单元格未计入）")
    lines.append("来源: " + "; ".join(sorted({p.table.cite().label() for p in used})))
    data = {"op": op, "group_column": group_name, "value_column": value_name,
            "groups": {i.value: i.normalized for i in items}, "total": format_decimal(total) if op in ("sum", "count")
            else None, "tables": len(used), "skipped_cells": tally.skipped, "skipped_examples": tally.skipped_examples}
    return HandlerResult(route="table_aggregate", answer_text="\n".join(lines), items=items, skipped=tally.skipped,
                         warnings=warnings, data=data)


def _why(warnings: list[str]) -> str:
    return ("\n" + "\n".join(warnings[:5])) if warnings else ""
