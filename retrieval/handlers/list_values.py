"""The distinct values of one column over every table in scope, with counts and first occurrence."""

from __future__ import annotations

from typing import Any

from officeqa.domain import ParsedDocument
from retrieval.handlers.columns import mentioned_columns
from retrieval.handlers.results import HandlerItem, HandlerResult
from retrieval.handlers.tables import cell, resolve
from retrieval.handlers.units import tables

MAX_VALUES = 1_000


def list_values(params: dict[str, Any], instruction: str, documents: list[ParsedDocument]) -> HandlerResult:
    values: dict[str, HandlerItem] = {}
    warnings: list[str] = []
    columns: list[str] = []
    for table in tables(documents):
        column = None
        for phrase in [params.get("column"), *(params.get("phrases") or [])]:
            column = resolve(phrase, table.header)
            if column is None and phrase and phrase.endswith("s"):
                column = resolve(phrase[:-1], table.header)
            if column is not None:
                break
        if column is None:
            mentioned = mentioned_columns(instruction, table.header)
            column = mentioned[0] if mentioned else None
        if column is None:
            warnings.append(f"{table.cite().label()}: table skipped, no column like {params.get('column')!r}")
            continue
        columns.append(table.header[column])
        for r, row in enumerate(table.rows, start=1):
            value = cell(row, column).strip()
            if not value:
                continue
            item = values.get(value)
            if item is None:
                if len(values) >= MAX_VALUES:
                    warnings.append(f"more than {MAX_VALUES} distinct values; list cut")
                    break
                item = values[value] = HandlerItem(value=value, kind="value", citations=[table.cite(row=r)],
                                                   extra={"count": 0})
            item.extra["count"] += 1
    if not columns:
        return HandlerResult(route="list_values", answer_text="没有找到对应的列。", warnings=warnings)
    items = list(values.values())
    name = "、".join(dict.fromkeys(columns))
    lines = [f"「{name}」共有 {len(items)} 个不同的值："]
    lines += [f"- {i.value}（{i.extra['count']} 行）" for i in items]
    return HandlerResult(route="list_values", answer_text="\n".join(lines), items=items, warnings=warnings,
                         data={"column": name, "distinct": len(items)})
