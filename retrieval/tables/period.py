"""A quarter or month named in the question, on a table with no date column but a period column ("季度": Q1..Q4).

Why: "第三季度实际支出超过预算的部门" over a budget sheet whose rows are labelled "Q3" names the rows by that label;
without a date column the time expression would otherwise refuse. Only a period without a year is read this way
(the label holds no year), and only when exactly one text column holds exactly one matching label.
"""

from __future__ import annotations

from indexing.table_store import ColumnInfo, TableInfo, TableStore
from retrieval.tables.query import Filter
from retrieval.tables.timeexpr import TimeExpr

__all__ = ["period_label_filter"]

_CN = "一二三四"
_MONTHS_EN = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")


def _labels(e: TimeExpr) -> set[str]:
    """How a sheet may label the period: "q3", "第三季度", "3季度"; "3月", "03", "mar", "march"."""
    first, last = e.first_month, e.last_month
    if last - first == 2 and first % 3 == 1:
        q = (first + 2) // 3
        return {f"q{q}", f"{q}q", f"第{_CN[q - 1]}季度", f"{_CN[q - 1]}季度", f"第{q}季度", f"{q}季度",
                f"quarter {q}", f"{q}季"}
    if first == last:
        name = _MONTHS_EN[first - 1]
        return {f"{first}月", f"{first}月份", f"{first:02d}月", name, name[:3], f"{name[:3]}."}
    return set()


def period_label_filter(exprs: list[TimeExpr], table: TableInfo, store: TableStore) -> Filter | None:
    """The filter "period column = label" for one yearless quarter or month, or None."""
    if len(exprs) != 1 or exprs[0].year is not None or exprs[0].since or exprs[0].until:
        return None
    labels = _labels(exprs[0])
    if not labels:
        return None
    found: list[tuple[ColumnInfo, str]] = []
    for column in table.columns:
        if column.kind != "text" or column.distinct is None or column.distinct > 60:
            continue
        _, rows = store.query(f"SELECT DISTINCT {column.sql} FROM {table.sql} WHERE {column.sql} IS NOT NULL")
        found += [(column, str(r[0])) for r in rows if str(r[0]).strip().lower() in labels]
    if len(found) != 1:
        return None
    column, value = found[0]
    return Filter(column, "=", [value], exprs[0].text)
