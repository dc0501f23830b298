"""Say a table query and its result in words (the question's language), with the rows cited.

The answer states the query ("区域 = 华东 且 状态 ≠ 已取消，对 金额（元） 求和（表「订单」，共 1,204 行）"),
the value as computed (grouped digits) and plain, and the sheet and rows it came from; a
refusal says what is ambiguous and lists the candidates.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import PurePath
from typing import Any

from indexing.table_columns import display_value
from retrieval.handlers.results import Citation, HandlerItem, HandlerResult
from retrieval.tables.execute import MAX_ROWS, TableResult
from retrieval.tables.query import Filter, Refusal, TableQuery

__all__ = ["query_words", "refusal_result", "table_result"]

_OPS = {"=": "=", "!=": "≠", ">": ">", ">=": "≥", "<": "<", "<=": "≤"}
_UNITS_ZH = {"month": "月份", "quarter": "季度", "year": "年份", "day": "日期"}
_UNITS_EN = {"month": "month", "quarter": "quarter", "year": "year", "day": "day"}


def _v(value: Any) -> str:
    return display_value(value)


def _filter_words(f: Filter, zh: bool) -> str:
    name = f.column.name
    if f.other is not None:
        return f"{name} {_OPS[f.op]} {f.other.name}"
    if f.op in _OPS:
        return f"{name} {_OPS[f.op]} {_v(f.values[0])}"
    if f.op in ("in", "not_in"):
        sep = "、" if zh else ", "
        sign = "∈" if f.op == "in" else "∉"
        return f"{name} {sign} {{{sep.join(_v(v) for v in f.values)}}}"
    if f.op == "between":
        return (f"{name} 在 {_v(f.values[0])} 与 {_v(f.values[1])} 之间" if zh
                else f"{name} between {_v(f.values[0])} and {_v(f.values[1])}")
    ranges = []
    for since, until in f.values:
        if since is not None and until is not None:
            from datetime import timedelta

            ranges.append(f"{since.isoformat()} ~ {(until - timedelta(days=1)).isoformat()}")
        elif since is not None:
            ranges.append(f"≥ {since.isoformat()}")
        else:
            ranges.append(f"< {until.isoformat()}")
    return f"{name} 在 {' 或 '.join(ranges)}" if zh else f"{name} in {' or '.join(ranges)}"


def _group_words(q: TableQuery, zh: bool) -> str:
    if q.group is None:
        return ""
    if q.group.is_date:
        unit = q.group_unit or "day"
        return f"按 {q.group.name} 的{_UNITS_ZH[unit]}" if zh else f"by {_UNITS_EN[unit]} of {q.group.name}"
    return f"按 {q.group.name}" if zh else f"by {q.group.name}"


def _op_words(q: TableQuery, zh: bool) -> str:
    m = q.measure.name if q.measure is not None else ""
    group = _group_words(q, zh)
    if q.op == "rank":
        agg_zh = {"sum": f"对 {m} 求和", "avg": f"对 {m} 求平均", "count": "计数"}.get(q.rank_agg or "", "")
        agg_en = {"sum": f"sum of {m}", "avg": f"average of {m}", "count": "row count"}.get(q.rank_agg or "", "")
        if q.rank_agg == "rows":
            return (f"按 {m} {'从低到高' if q.ascending else '从高到低'}取前 {q.limit} 行" if zh
                    else f"the {q.limit} rows with the {'lowest' if q.ascending else 'highest'} {m}")
        if zh:
            return f"{group}分组，{agg_zh}，取{'最低' if q.ascending else '最高'}的 {q.limit} 个"
        return f"{agg_en} {group}, the {q.limit} {'lowest' if q.ascending else 'highest'}"
    zh_ops = {"sum": f"对 {m} 求和", "avg": f"对 {m} 求平均值", "max": f"求 {m} 的最大值", "min": f"求 {m} 的最小值",
              "count": "计数（行数）", "lookup": f"取 {'、'.join(c.name for c in q.targets)}",
              "count_distinct": f"统计 {q.targets[0].name if q.targets else ''} 的不同值个数",
              "list": f"列出 {q.targets[0].name if q.targets else ''} 的不同值"}
    en_ops = {"sum": f"sum of {m}", "avg": f"average of {m}", "max": f"maximum of {m}", "min": f"minimum of {m}",
              "count": "count of rows", "lookup": f"read {', '.join(c.name for c in q.targets)}",
              "count_distinct": f"number of distinct {q.targets[0].name if q.targets else ''}",
              "list": f"distinct values of {q.targets[0].name if q.targets else ''}"}
    words = zh_ops[q.op] if zh else en_ops[q.op]
    if group:
        return f"{group}分组，{words}" if zh else f"{words} {group}"
    return words


def query_words(q: TableQuery, zh: bool, matched: int | None = None) -> str:
    """The query in words: conditions, then the computation, then the table and the rows it covers."""
    conditions = (" 且 " if zh else " and ").join(_filter_words(f, zh) for f in q.filters)
    body = _op_words(q, zh)
    notes = "；".join(n[0] for n in q.notes) if zh else "; ".join(n[1] for n in q.notes)
    if zh:
        text = f"{conditions}，{body}" if conditions else body
        tail = f"（表「{q.table.name}」" + (f"，共 {matched:,} 行" if matched is not None else "") + "）"
        return text + tail + (f"；{notes}" if notes else "")
    text = f"{body} where {conditions}" if conditions else body
    tail = f" (table '{q.table.name}'" + (f", {matched:,} {_rows_word(matched)}" if matched is not None else "") + ")"
    return text + tail + (f"; {notes}" if notes else "")


def _rows_word(n: int) -> str:
    return "row" if n == 1 else "rows"


def _number(value: Any, scale: int | None = None, percent: bool = False) -> tuple[str, str]:
    """(grouped, plain) forms of a computed number; ``percent``: a fraction shown as a percentage ("80%")."""
    if percent and isinstance(value, Decimal):
        shown = format((value * 100).normalize(), "f")
        return f"{shown}%", format(value, "f")
    if isinstance(value, Decimal):
        plain = format(value, "f")
        whole, _, frac = plain.partition(".")
        sign = "-" if whole.startswith("-") else ""
        grouped = f"{sign}{int(whole.lstrip('-') or 0):,}" + (f".{frac}" if frac else "")
        return grouped, plain
    if isinstance(value, int):
        return f"{value:,}", str(value)
    return _v(value), _v(value)


def _citation(q: TableQuery, rows: list[int], count: int | None = None, single: bool = False) -> Citation:
    t = q.table
    cite = Citation(file=t.path, sheet=t.sheet, page=t.page, table=t.table_no)
    if single and rows:
        if t.rows_exact:
            cite.sheet_row = rows[0]
        else:
            cite.row = rows[0]
    else:
        cite.rows = count if count is not None else len(rows)
        cite.row_list = rows or None
    return cite


def _rows_label(q: TableQuery, rows: list[int], total: int, zh: bool) -> str:
    t = q.table
    sheet = (f" · 工作表「{t.sheet}」" if zh else f" · sheet '{t.sheet}'") if t.sheet else ""
    where = PurePath(t.path).name + sheet
    if t.sheet is None:
        where += f" · 表{t.table_no}" if zh else f" · table {t.table_no}"
        if t.page is not None:
            where += f" · 第{t.page}页" if zh else f" · p.{t.page}"
    kind_zh = "第" if t.rows_exact else "数据行 "
    shown = "、".join(str(r) for r in rows[:10]) if zh else ", ".join(str(r) for r in rows[:10])
    more = " …" if total > min(len(rows), 10) else ""
    if not rows:
        return where
    if zh:
        return f"{where} · {kind_zh}{shown}{more}{'行' if t.rows_exact else ''}（共 {total:,} 行）"
    return f"{where} · {'rows' if t.rows_exact else 'data rows'} {shown}{more} ({total:,} {_rows_word(total)})"


def table_result(result: TableResult, route: str, zh: bool) -> HandlerResult:
    """An executed query as a HandlerResult (outcome "exact")."""
    q = result.query
    words = query_words(q, zh, result.matched)
    lines = [("查询：" if zh else "Query: ") + words]
    items: list[HandlerItem] = []
    data: dict[str, Any] = {"table": q.table.to_json(), "op": q.op, "matched_rows": result.matched,
                            "sql": result.sql, "params": result.params}
    percent = q.measure is not None and q.measure.is_percent and (
        q.op in ("sum", "avg", "max", "min") or (q.op == "rank" and q.rank_agg in ("sum", "avg")))
    if q.op in ("sum", "avg", "max", "min", "count", "count_distinct") and q.group is None:
        _scalar_lines(result, zh, percent, lines, items, data)
    elif q.op == "lookup":
        _lookup_lines(result, zh, lines, items, data)
    elif q.op == "list":
        _list_lines(result, zh, lines, items, data)
    elif q.op == "rank" and q.rank_agg == "rows":
        for row in result.rows:
            cells = "，".join(f"{k}: {v}" for k, v in row["cells"].items() if v) if zh else \
                "; ".join(f"{k}: {v}" for k, v in row["cells"].items() if v)
            lines.append(f"- {cells}")
            items.append(HandlerItem(value=cells, kind="row", citations=[_citation(q, [row["row"]], single=True)]))
        data["rows"] = result.rows
    else:
        for key, value, n, cited in result.groups:
            grouped, plain = _number(value, percent=percent)
            lines.append(f"- {key}: {grouped}（{n:,} 行）" if zh else f"- {key}: {grouped} ({n:,} {_rows_word(n)})")
            items.append(HandlerItem(value=key, normalized=plain, kind=q.op, extra={"rows": n},
                                     citations=[_citation(q, cited, n)]))
        data["groups"] = {k: _number(v)[1] for k, v, _, _ in result.groups}
        if q.op == "rank" and q.total_of_ranked and result.groups:
            _ranked_total(result, zh, percent, lines, items, data)
    if result.ties:
        lines.append("（有并列，全部列出）" if zh else "(ties are all listed)")
    lines.append(("来源：" if zh else "Source: ") + _rows_label(q, result.cited, result.matched, zh))
    return HandlerResult(route=route, answer_text="\n".join(lines), items=items, data=data, outcome="exact",
                         query=words)


def _scalar_lines(result: TableResult, zh: bool, percent: bool, lines: list[str], items: list[HandlerItem],
                  data: dict[str, Any]) -> None:
    """One number (sum, average, count…), with the rows whose cell was no number said, not hidden."""
    q = result.query
    grouped, plain = _number(result.value, percent=percent)
    if result.value is None:
        lines.append("结果：没有符合条件的数值。" if zh else "Result: no matching numbers.")
    else:
        approx = "" if result.exact else ("（保留4位小数）" if zh else " (rounded to 4 decimals)")
        lines.append(f"结果：{grouped}（精确值 {plain}）{approx}" if zh else
                      f"Result: {grouped} (exact: {plain}){approx}")
    if q.measure is not None and result.value_rows < result.matched:
        missing = result.matched - result.value_rows
        lines.append(f"（其中 {missing} 行的「{q.measure.name}」不是数字，未计入）" if zh else
                     f"({missing} rows have no number in '{q.measure.name}' and are not counted)")
    items.append(HandlerItem(value=grouped, normalized=plain, kind=q.op,
                             citations=[_citation(q, result.cited, result.matched)]))
    data["value"] = plain


def _list_lines(result: TableResult, zh: bool, lines: list[str], items: list[HandlerItem],
                data: dict[str, Any]) -> None:
    """The distinct values of one column, each with its row count."""
    q = result.query
    lines.append(f"共 {len(result.groups)} 个不同的值：" if zh else f"{len(result.groups)} distinct values:")
    for key, _, n, _ in result.groups:
        lines.append(f"- {key}（{n:,} 行）" if zh else f"- {key} ({n:,} {_rows_word(n)})")
        items.append(HandlerItem(value=key, kind="value", extra={"rows": n},
                                 citations=[_citation(q, [], n)]))
    data["values"] = [k for k, *_ in result.groups]


def _ranked_total(result: TableResult, zh: bool, percent: bool, lines: list[str], items: list[HandlerItem],
                  data: dict[str, Any]) -> None:
    """"前五名客户合计…": the total of the ranked groups, unless ties make "the first five" ambiguous."""
    q = result.query
    if result.ties:
        lines.append("（有并列，前几名不唯一，未合计）" if zh else "(ties: the top entries are not unique; no total)")
        return
    values = [v for _, v, _, _ in result.groups]
    if any(not isinstance(v, (Decimal, int)) for v in values):
        return
    total = sum((Decimal(v) for v in values), Decimal(0))
    grouped, plain = _number(total, percent=percent)
    n = len(values)
    lines.append(f"前 {n} 项合计：{grouped}（精确值 {plain}）" if zh else
                 f"Total of the top {n}: {grouped} (exact: {plain})")
    cited = sorted({r for _, _, _, rows in result.groups for r in rows})
    items.append(HandlerItem(value=grouped, normalized=plain, kind="sum",
                             citations=[_citation(q, cited, sum(c for _, _, c, _ in result.groups))]))
    data["value"] = plain


def _lookup_lines(result: TableResult, zh: bool, lines: list[str], items: list[HandlerItem],
                  data: dict[str, Any]) -> None:
    q = result.query
    names = [c.name for c in q.targets]
    if not result.rows:
        lines.append("结果：没有符合条件的行。" if zh else "Result: no row matches.")
        return
    if result.value is not None:  # several rows of an additive measure: their sum, said in words
        grouped, plain = _number(result.value)
        q.notes.append(("未指明计算方式，按求和", "no operation named: summed"))
        lines[0] = ("查询：" if zh else "Query: ") + query_words(q, zh, result.matched)
        lines.append(f"结果：{grouped}（精确值 {plain}）" if zh else f"Result: {grouped} (exact: {plain})")
        items.append(HandlerItem(value=grouped, normalized=plain, kind="sum",
                                 citations=[_citation(q, result.cited, result.matched)]))
        data["value"] = plain
        return
    shown = result.rows[:MAX_ROWS]
    if result.matched > len(shown):
        lines.append(f"共 {result.matched:,} 行，以下是第 1–{len(shown)} 行：" if zh else
                     f"{result.matched:,} rows; rows 1–{len(shown)}:")
    elif len(shown) > 1:
        lines.append(f"共 {len(shown)} 行：" if zh else f"{len(shown)} rows:")
    for row in shown:
        cells = [row["cells"].get(n, "") for n in names]
        text = "、".join(f"{n}：{c}" for n, c in zip(names, cells, strict=True)) if zh else \
            "; ".join(f"{n}: {c}" for n, c in zip(names, cells, strict=True))
        lines.append(("结果：" if zh else "Result: ") + text if len(shown) == 1 else f"- {text}")
        items.append(HandlerItem(value=text, normalized=cells[0] if len(cells) == 1 else None, kind="cell",
                                 citations=[_citation(q, [row["row"]], single=True)]))
    data["rows"] = result.rows


def refusal_result(refusal: Refusal, route: str, zh: bool) -> HandlerResult:
    """A refusal as a HandlerResult (outcome "refused"): what is ambiguous, and the candidates as data."""
    reason = refusal.zh if zh else refusal.en
    lines = [("无法给出确定的答案：" if zh else "No exact answer: ") + reason]
    for key, values in refusal.candidates.items():
        if values:
            lines.append(f"{key}: {'、'.join(values) if zh else ', '.join(values)}")
    data: dict[str, Any] = {"candidates": refusal.candidates, "reason": reason, "kind": refusal.kind}
    if refusal.table is not None:
        data["table"] = refusal.table.to_json()
    return HandlerResult(route=route, answer_text="\n".join(lines), data=data, outcome="refused")
