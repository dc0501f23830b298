"""Choose the one table a question is about, by what the question links, never by retrieval rank.

Why a module of its own: with many files in scope (an order workbook, a roster, a meeting's
action-item table) several tables read some words of a question. The order of evidence:

1. the sheet or table the question names;
2. coverage: how much of the question the table's columns, cell values, names and dates explain;
3. shape: among tables that explain it equally, the ones whose query can be built (a count of
   people wants a table with a person column; a quantity sold wants a quantity column);
4. still tied: refuse, naming the candidates by file name and sheet (never a server path); when
   every tied table leaves words of the question unexplained, the refusal is ``no_link`` (the
   words belong to the text around the tables, not to a table).

A question that links no column, value or table name of any table (only a date, or nothing) is
``no_link``: not a table question; the caller answers it another way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import PurePath

from indexing.table_store import ColumnInfo, TableInfo
from retrieval.rules.normalize import normalize
from retrieval.tables.identity import identity_words, person_columns
from retrieval.tables.linked import Linked
from retrieval.tables.query import Refusal, TableQuery

__all__ = ["Choice", "choose_table", "table_label"]

#: "几个人", "多少名员工", "how many employees": a count of people.
_PEOPLE = re.compile(r"几个人|多少人|多少个人|几人|几位|多少位|多少名|几名|员工|人员|people|employees|staff|persons")

#: What a counted unit says about the rows ("多少单" counts orders, "几份" contracts, "几家" companies): words the
#: table's names or columns then hold.
_UNIT_ROWS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"(?:多少|几)(?:笔|单)|订单|orders?\b"), ("订单", "下单", "单号", "order")),
    (re.compile(r"(?:多少|几)份|合同|contracts?\b"), ("合同", "协议", "contract")),
    (re.compile(r"(?:多少|几)家|customers?\b|suppliers?\b"), ("客户", "供应商", "单位", "公司", "customer", "supplier",
                                                          "vendor", "company")),
)

Choice = tuple[Linked, TableQuery | Refusal] | Refusal


def table_label(table: TableInfo, others: list[TableInfo] | None = None, zh: bool = True) -> str:
    """"订单台账.xlsx · 订单明细": the file name (with its folder when two candidates share a name) and sheet."""
    path = PurePath(table.path)
    names = Counter(PurePath(p).name for p in {t.path for t in others or []})
    file = f"{path.parent.name}/{path.name}" if names[path.name] > 1 and path.parent.name else path.name
    if table.sheet:
        return f"{file} · {table.sheet}"
    return f"{file} · {'表' if zh else 'table '}{table.table_no}"


def _shape(link: Linked, planned: TableQuery | Refusal) -> int:
    """How well the table's shape fits what is asked: a plan that can be built, people for a count of people."""
    # a plan that only works because the table happens to have one numeric column says nothing about the table
    score = 0 if isinstance(planned, Refusal) or planned.implicit_measure else 2
    if isinstance(planned, TableQuery) and _trivial(planned):
        score -= 1
    if _PEOPLE.search(link.text) and person_columns(link.table):
        score += 1
    names = " ".join([PurePath(link.table.path).stem, link.table.sheet or "", link.table.name or "",
                      *(c.name for c in link.table.columns)]).lower()
    for unit, words in _UNIT_ROWS:
        if unit.search(link.text) and any(w in names for w in words):
            score += 1
    return score


def _borrowed(link: Linked) -> int:
    """Characters the table explains only through a synonym or a translation of its names ("数量" for Quantity,
    "订单" for a sheet "Orders"): between tables that explain the question equally, the one that uses the
    question's own words ("数量" of a column 数量) is the one meant."""
    names = normalize(" ".join([PurePath(link.table.path).stem, link.table.sheet or "", link.table.name or "",
                                link.table.caption or ""]))
    synonyms = sum(m.end - m.start for m in link.mentions if m.kind == "synonym")
    translated = {word for word in identity_words(link.table) if word not in names and word in link.text}
    return link.borrowed + synonyms + sum(len(word) for word in translated | {w for w in link.identity
                                                                            if w not in names})


def _trivial(query: TableQuery) -> bool:
    """A count, list or ranking that a column of unique values decides before it runs: "技术部有多少人" over a
    department sheet (one row per department) counts 1, "哪个部门的人最多" ranks groups of one row each. A table
    whose rows the question actually counts fits better."""
    table = query.table

    def unique(column: ColumnInfo) -> bool:
        return table.row_count > 1 and column.distinct is not None and column.distinct >= table.row_count

    if query.op in ("count", "count_distinct", "list"):
        return any(f.op in ("=", "in") and unique(f.column) for f in query.filters)
    return query.op == "rank" and query.rank_agg == "count" and query.group is not None and unique(query.group)


def choose_table(links: list[Linked], plan: Callable[[Linked], TableQuery | Refusal]) -> Choice:
    """The linked table to answer from with its plan, or a refusal (``no_link``, or a tie naming the tables)."""
    named = [link for link in links if link.sheet_named]
    pool = named or links
    linked_at_all = [link for link in pool if link.coverage > 0 or link.sheet_named]
    if len(pool) == 1 and (pool[0].coverage > 0 or not pool[0].leftover):
        # the one table in scope: its planner says what it cannot read; but a question none of whose words is a
        # column or value of it, with words left over ("what was the total revenue of Medallion Financial" over
        # another company's board-pay table), is not a question about it
        linked_at_all = pool
    if not linked_at_all:
        names = [link.table.name for link in links]
        return Refusal("问题中的词语与范围内表格的列名、单元格值都对不上。",
                       "No word of the question matches a column or a cell value in scope.",
                       {"tables": names}, kind="no_link")
    best = max(link.coverage for link in linked_at_all)
    top = [link for link in linked_at_all if link.coverage == best]
    native = min(_borrowed(link) for link in top)
    top = [link for link in top if _borrowed(link) == native]
    if len(top) == 1:
        return top[0], plan(top[0])
    planned = [(link, plan(link)) for link in top]
    shapes = [_shape(link, p) for link, p in planned]
    fit = [lp for lp, s in zip(planned, shapes, strict=True) if s == max(shapes)]
    if len(fit) == 1:
        return fit[0]
    refusals = [p for _, p in fit if isinstance(p, Refusal)]
    if len(refusals) == len(fit) and len({(r.zh, r.kind) for r in refusals}) == 1:
        return fit[0]  # every candidate refuses for the same reason ("去年" is relative): that reason is the answer
    tables = [link.table for link, _ in fit]
    names = [table_label(t, tables) for t in tables]
    names_en = [table_label(t, tables, zh=False) for t in tables]
    unread = len(refusals) == len(fit) and all("not_understood" in r.candidates for r in refusals)
    return Refusal(f"有 {len(fit)} 张表同样符合问题：{'；'.join(names)}。请写明工作表或文件。",
                   f"{len(fit)} tables fit the question equally: {'; '.join(names_en)}. Name the sheet or file.",
                   {"tables": names}, kind="no_link" if unread else "ambiguous")
