"""From a linked question to one structured query on one table, or a refusal that says what is ambiguous.

The rules, in order (each refusal names the candidates so a person or a model can choose):

- a word no column, value, time expression or known word explains -> refuse (``不理解``);
- a relative time ("去年") -> refuse: the answer must not depend on today's date;
- the operation: distinct count > ranking (argmax, top-k) > avg / max / min > count > sum >
  list > none; two of avg / max / min together -> refuse;
- the measure (sum, avg, max, min, ranking): the numeric, non-identifier column the
  question names; none named -> the table's only measure column, else refuse listing them;
  two named -> refuse; an identifier named (phone, ID, order number, year) -> refuse;
- filters: every value the question names, ``≠`` when negated; a value found in two
  columns -> the column the question also names, else refuse; a time range on the date
  column (the one named when there are several; the year from the data when the question
  gives none and the data holds one year, else refuse); numeric conditions on the column
  named right before them (else the only measure, else refuse);
- no operation: the named column's cell (row lookup); several rows -> their sum when the
  column is an additive measure (said in words), else refuse listing the rows.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from indexing.table_store import ColumnInfo, TableInfo, TableStore
from retrieval.tables.identity import identity_words, person_columns
from retrieval.tables.lexicon import ADDITIVE_HINTS, PEOPLE_COUNT
from retrieval.tables.linked import ColumnMention, Linked
from retrieval.tables.timeexpr import TimeExpr

__all__ = ["Filter", "Refusal", "TableQuery", "plan_table"]

AGGREGATES = ("sum", "avg", "max", "min")


@dataclass(slots=True)
class Filter:
    """One condition on one column; values are typed (Decimal, date, str)."""

    column: ColumnInfo
    op: str  # = != in not_in > >= < <= between range
    values: list[Any]
    text: str = ""  # the question words it came from


@dataclass(slots=True)
class TableQuery:
    """A structured query: filters, an operation, its columns; rendered to SQL and to words."""

    table: TableInfo
    op: str  # sum avg max min count count_distinct rank lookup list
    filters: list[Filter] = field(default_factory=list)
    measure: ColumnInfo | None = None
    targets: list[ColumnInfo] = field(default_factory=list)
    group: ColumnInfo | None = None
    group_unit: str | None = None  # month | quarter | year on a date column
    rank_agg: str | None = None
    limit: int | None = None
    ascending: bool = False
    implicit_sum: bool = False
    #: "前五名客户合计…": the ranked groups' values are also totalled (rank with an explicit total word)
    total_of_ranked: bool = False
    #: a lookup that lists every matching row (no condition needed): "各行动项的截止日期分别是什么时候"
    all_rows: bool = False
    #: the measure is the table's only numeric column, not one the question named (weak evidence for the table)
    implicit_measure: bool = False
    notes: list[tuple[str, str]] = field(default_factory=list)  # (zh, en) implicit choices said in words


@dataclass(slots=True)
class Refusal:
    """Why the question cannot be answered exactly, in both languages, with the candidates to choose from."""

    zh: str
    en: str
    candidates: dict[str, list[str]] = field(default_factory=dict)
    table: TableInfo | None = None
    #: "no_table" / "no_link": the question is not about the tables in scope (the caller answers it another
    #: way); "ambiguous" (the default): it is, but some part cannot be linked unambiguously.
    kind: str = "ambiguous"


def _names(columns: list[ColumnInfo]) -> list[str]:
    return [c.name for c in columns]


#: "…销售额占年度销售总额的比例": 占 right after what is measured (not after 和/与: "销售额和占比" names two columns).
_SHARE_QUESTION = re.compile(
    r"(?<![和与及、,，\s])占[^，。？?]{0,24}?(?:的)?(?:比例|比重|百分比)|(?<![和与及、,，\s])占比|所占"
)
_SHARE_COLUMN = re.compile(r"比例|比重|占比|百分比|[%％]")


def _is_additive(column: ColumnInfo) -> bool:
    name = column.name.lower()
    return any(h in name for h in ADDITIVE_HINTS)


def _resolve_mention(m: ColumnMention, linked: Linked) -> ColumnInfo | Refusal:
    if len(m.columns) == 1:
        return m.columns[0]
    return Refusal(f"「{m.text}」可能指多列：{'、'.join(_names(m.columns))}，请写明列名。",
                   f"'{m.text}' may mean several columns: {', '.join(_names(m.columns))}; name the column.",
                   {"columns": _names(m.columns)}, linked.table)


def _op(linked: Linked, route_hint: str | None) -> str | Refusal | None:
    ops = set(linked.ops)
    if "count_distinct" in ops:
        return "count_distinct"
    if linked.argmax or linked.topk:
        return "rank"
    chosen = [o for o in ("avg", "max", "min") if o in ops]
    if len(chosen) > 1:
        return Refusal(f"问题同时要求{'、'.join(chosen)}，请一次只问一种计算。",
                       f"The question asks for {', '.join(chosen)} at once; ask for one.", {"operations": chosen},
                       linked.table)
    if chosen:
        return chosen[0]
    if "count" in ops:
        return "count"
    if "sum" in ops:
        return "sum"
    if "list" in ops or route_hint == "list_values":
        return "list"
    if route_hint == "count":
        return "count"
    return None


def _time_filter(linked: Linked, store: TableStore, named: list[ColumnInfo]) -> Filter | Refusal | None:
    exprs = [e for e in linked.times if not e.qualifier]
    if not exprs:
        return None
    table = linked.table
    relative = [e.text for e in exprs if e.relative]
    if relative:
        return Refusal(f"「{'、'.join(relative)}」是相对时间，答案不能依赖今天的日期；请写明年份和月份。",
                       f"'{', '.join(relative)}' is relative to today; give the year and month.",
                       {"time": relative}, table)
    dates = [c for c in table.columns if c.is_date]
    if named:
        dates = [c for c in dates if c in named] or dates
    if not dates:
        years = [c for c in table.columns if c.identifier == "year"]
        whole_years = all((e.first_month, e.last_month) == (1, 12) and e.year and e.since is None and e.until is None
                          for e in exprs)
        if len(years) == 1 and whole_years:
            return Filter(years[0], "in", [str(e.year) for e in exprs], "、".join(e.text for e in exprs))
        return Refusal(f"表「{table.name}」没有日期列，无法按「{exprs[0].text}」筛选。",
                       f"Table '{table.name}' has no date column to apply '{exprs[0].text}' to.",
                       {"columns": _names(table.columns)}, table)
    if len(dates) > 1:
        return Refusal(f"有多个日期列：{'、'.join(_names(dates))}，「{exprs[0].text}」指哪一列？",
                       f"Several date columns ({', '.join(_names(dates))}); which one does '{exprs[0].text}' mean?",
                       {"date_columns": _names(dates)}, table)
    column = dates[0]
    year: int | None = None
    if any(e.needs_year for e in exprs):
        _, rows = store.query(f"SELECT DISTINCT year({column.sql}) FROM {table.sql} WHERE {column.sql} IS NOT NULL "
                              "ORDER BY 1 LIMIT 50")
        years = [int(r[0]) for r in rows]
        if len(years) != 1:
            texts = "、".join(e.text for e in exprs if e.needs_year)
            return Refusal(f"「{texts}」没有写年份，而「{column.name}」跨越多个年份：{'、'.join(map(str, years))}。",
                           f"'{texts}' gives no year and '{column.name}' spans {', '.join(map(str, years))}.",
                           {"years": [str(y) for y in years]}, table)
        year = years[0]
    ranges = [e.date_range(year) for e in exprs]
    words = "、".join(_range_words(e, year) for e in exprs)
    return Filter(column, "range", ranges, words)


def _range_words(e: TimeExpr, year: int | None) -> str:
    since, until = e.date_range(year)
    if since and until:
        return f"{since.isoformat()} ~ {(until - dt.timedelta(days=1)).isoformat()}"
    return f"≥ {since.isoformat()}" if since else f"< {until.isoformat()}" if until else e.text


def _value_filters(linked: Linked, mentioned: set[int]) -> list[Filter] | Refusal:
    grouped: dict[tuple[int, bool], list[tuple[ColumnInfo, str, str]]] = {}
    for v in linked.values:
        candidates = v.candidates
        if len(candidates) > 1:
            named = [(c, val) for c, val in candidates if c.index in mentioned]
            if len(named) != 1:
                cols = [c.name for c, _ in candidates]
                return Refusal(f"「{v.text}」同时是多列的值：{'、'.join(cols)}，请写明是哪一列。",
                               f"'{v.text}' is a value of several columns ({', '.join(cols)}); name the column.",
                               {"columns": cols}, linked.table)
            candidates = named
        column, value = candidates[0]
        grouped.setdefault((column.index, v.negated), []).append((column, value, v.text))
    filters = []
    for (_, negated), items in grouped.items():
        column = items[0][0]
        values = list(dict.fromkeys(val for _, val, _ in items))
        op = ("not_in" if len(values) > 1 else "!=") if negated else ("in" if len(values) > 1 else "=")
        filters.append(Filter(column, op, values, "、".join(t for _, _, t in items)))
    return filters


def _measures(table: TableInfo) -> list[ColumnInfo]:
    return [c for c in table.columns if c.is_measure]


def plan_table(linked: Linked, store: TableStore, route_hint: str | None = None) -> TableQuery | Refusal:
    """The query for one table, or why it cannot be built."""
    table = linked.table
    if linked.leftover or linked.unattached_negation:
        words = linked.leftover + linked.unattached_negation
        return Refusal(f"不理解问题中的「{'、'.join(words)}」：它不是表「{table.name}」的列名或单元格值。",
                       f"'{', '.join(words)}' is neither a column nor a cell value of table '{table.name}'.",
                       {"not_understood": words, "columns": _names(table.columns)}, table)
    op = _op(linked, route_hint)
    if isinstance(op, Refusal):
        return op
    mentioned: set[int] = set()
    for m in linked.mentions:
        mentioned |= {c.index for c in m.columns}
    values = _value_filters(linked, mentioned)
    if isinstance(values, Refusal):
        return values
    value_columns = {f.column.index for f in values}
    query = TableQuery(table=table, op=op or "lookup", filters=list(values), limit=linked.topk,
                       ascending=linked.ascending)

    # group column
    used: set[int] = set()
    if linked.group_mention is not None:
        group = _resolve_mention(linked.group_mention, linked)
        if isinstance(group, Refusal):
            return group
        query.group = group
        used.add(id(linked.group_mention))
        if group.is_date:
            query.group_unit = linked.group_unit or "day"
    elif linked.group_unit:
        dates = [c for c in table.columns if c.is_date]
        if len(dates) != 1:
            return Refusal(f"按{linked.group_unit}分组需要一个日期列，表「{table.name}」有 {len(dates)} 个。",
                           f"Grouping by {linked.group_unit} needs one date column; '{table.name}' has {len(dates)}.",
                           {"date_columns": _names(dates)}, table)
        query.group, query.group_unit = dates[0], linked.group_unit
    elif linked.person_argmax:
        people = person_columns(table)
        if len(people) != 1:
            return Refusal("「谁」指哪一列的人？" + (f"候选：{'、'.join(_names(people))}。" if people else ""),
                           "Which column holds the people 'who' asks about?", {"columns": _names(people)}, table)
        query.group = people[0]

    # numeric conditions
    for cond in linked.numeric:
        if cond.mention is not None:
            column = _resolve_mention(cond.mention, linked)
            if isinstance(column, Refusal):
                return column
            used.add(id(cond.mention))
        else:
            measures = _measures(table)
            if len(measures) != 1:
                return Refusal(f"条件「{cond.text}」没有说明是哪一列：{'、'.join(_names(measures))}？",
                               f"Which column does '{cond.text}' apply to: {', '.join(_names(measures))}?",
                               {"measure": _names(measures)}, table)
            column = measures[0]
        if column.kind != "decimal":
            return Refusal(f"「{column.name}」不是数值列，不能按「{cond.text}」比较。",
                           f"'{column.name}' is not numeric; '{cond.text}' cannot compare it.", {}, table)
        values_ = [cond.value] + ([cond.value2] if cond.value2 is not None else [])
        query.filters.append(Filter(column, cond.op, values_, cond.text))

    # remaining column mentions: measures and targets
    remaining: list[ColumnInfo] = []
    named_dates: list[ColumnInfo] = []
    identity = set(identity_words(table))
    for m in linked.mentions:
        if id(m) in used:
            continue
        if m.kind != "exact" and m.text in identity and op in (*AGGREGATES, "count"):
            continue  # "华东区客户的信用额度" on the sheet 客户信息: 客户 names the rows, not a column to group by
        column = _resolve_mention(m, linked)
        if isinstance(column, Refusal):
            if all(c.index in value_columns for c in m.columns) or (
                    m.kind == "partial" and any(c.index in value_columns for c in m.columns)):
                continue  # "区域华东", "合同HT-2024-005": the column named next to its value
            if op in ("count", "count_distinct") and m.kind == "partial":
                continue
            return column
        if column.is_date and column not in named_dates:
            named_dates.append(column)
        if column.index in value_columns or column.is_date or column == query.group:
            continue  # named to qualify a value, a date range, or the group
        if column not in remaining:
            remaining.append(column)
    time_filter = _time_filter(linked, store, [c for c in remaining if c.is_date])
    if isinstance(time_filter, Refusal):
        return time_filter
    if time_filter is not None:
        query.filters.append(time_filter)
    if linked.sold_units and query.op in ("count", "sum", "lookup") and all(
            _QUANTITY.search(c.name) for c in remaining if c.is_measure):
        return _sold_units(query, linked)
    if query.op == "lookup" and query.group is not None and not any(c.is_measure for c in remaining) and (
            remaining or named_dates):
        # "各行动项的截止日期分别是什么时候": every row's group value with the named columns
        query.targets = [query.group, *remaining, *named_dates]
        query.group = None
        query.all_rows = True
        return query
    if linked.asks_date and query.op == "lookup" and not remaining:
        return _date_lookup(query, named_dates)
    if linked.asks_date and query.op == "lookup" and not any(c.is_measure for c in remaining):
        # "沈琳负责的里程碑是哪天": a date is asked; the named text columns say which rows, the date is the answer
        looked = _date_lookup(query, named_dates)
        if isinstance(looked, Refusal):
            return looked
        looked.targets = [*remaining, *looked.targets]
        return looked
    return _finish(query, remaining, linked)


#: "是多少", "how much": the question asks for the amount itself, not the row that holds it.
_ASKS_AMOUNT = re.compile(r"多少|几|how much|how many|what is|what's|what was", re.IGNORECASE)


#: Column names that hold a quantity of units ("卖出了多少台" sums one of them).
_QUANTITY = re.compile(r"数量|销量|件数|台数|quantity|qty|units", re.IGNORECASE)


def _sold_units(query: TableQuery, linked: Linked) -> TableQuery | Refusal:
    """"扫地机器人一共卖出了多少台": the sum of the table's one quantity column."""
    quantities = [c for c in query.table.columns if c.is_measure and _QUANTITY.search(c.name)]
    if len(quantities) != 1:
        return Refusal("问题问的是卖出的件数，但表中没有唯一的数量列。",
                       "The question asks for units sold, but the table has no single quantity column.",
                       {"measure": _names(quantities or _measures(query.table))}, query.table)
    query.op, query.measure = "sum", quantities[0]
    query.notes.append((f"卖出的件数：对「{quantities[0].name}」求和", f"units sold: sum of '{quantities[0].name}'"))
    return query


def _date_lookup(query: TableQuery, named_dates: list[ColumnInfo]) -> TableQuery | Refusal:
    """"尤静是哪天入职的": the date cell of the rows the conditions pick (the date column named, else the only one)."""
    dates = named_dates or [c for c in query.table.columns if c.is_date]
    if len(dates) != 1 or not query.filters:
        return Refusal("问题问的是日期，但不能确定是哪一列或哪一行。", "A date is asked, but not which column or row.",
                       {"date_columns": _names(dates)}, query.table)
    query.targets = dates
    return query


def _finish(query: TableQuery, remaining: list[ColumnInfo], linked: Linked) -> TableQuery | Refusal:
    table = query.table
    numeric = [c for c in remaining if c.kind == "decimal"]
    identifiers = [c for c in remaining if c.identifier]
    others = [c for c in remaining if c not in numeric and c not in identifiers]
    op = query.op
    if op == "rank":
        return _rank(query, numeric, identifiers, others, linked)
    if op in AGGREGATES:
        measure = _measure(query, numeric, identifiers, linked.text)
        if isinstance(measure, Refusal):
            return measure
        query.measure = measure
        names_rows = bool(linked.identity) or any(m.kind != "exact" and m.text in identity_words(table)
                                                  for m in linked.mentions)
        if query.op in ("max", "min") and query.group is None and not others and names_rows and \
                not _ASKS_AMOUNT.search(linked.text):
            # "单价最低的备件": the part (the row) with the lowest price, shown whole, not the price alone
            query.op, query.rank_agg = "rank", "rows"
            query.ascending, query.limit = "min" in linked.ops and "max" not in linked.ops, linked.topk or 1
            return query
        if others and query.group is None:
            names = _names(others)
            return Refusal(f"问题还提到了「{'、'.join(names)}」，但没有给出它的值；是要按它分组吗？",
                           f"The question also names '{', '.join(names)}' without a value: group by it?",
                           {"group_by": names}, table)
        return query
    if op == "count":
        measures = [c for c in numeric if c.is_measure]
        if len(measures) == 1 and not others and not linked.row_noun and (
                _is_additive(measures[0]) or "how many" in linked.text.lower()):
            # "How many Stanley Cups in total?", "一共卖出多少数量": the named column already counts things
            query.op, query.measure = "sum", measures[0]
            query.notes.append((f"「{measures[0].name}」本身是数量：对它求和", f"'{measures[0].name}' counts: summed"))
            return query
        if len(others) == 1 and not linked.row_noun and others[0].kind == "text" and not linked.values:
            query.op, query.targets = "count_distinct", others
            return query
        people = person_columns(table)
        if PEOPLE_COUNT.search(linked.text) and len(people) == 1 and not measures:
            # "质量部有几个人" on a monthly attendance sheet: people, not their monthly rows
            query.op, query.targets = "count_distinct", people
            query.notes.append((f"人数：「{people[0].name}」的不同值", f"people: distinct '{people[0].name}'"))
        return query
    if op in ("count_distinct", "list"):
        targets = others or identifiers
        if len(targets) != 1:
            what = "统计哪一列的不同值个数" if op == "count_distinct" else "列出哪一列的值"
            return Refusal(f"要{what}？", "Which column?" if op == "list" else "Count distinct values of which column?",
                           {"columns": _names([c for c in table.columns if c.kind == "text"])}, table)
        query.targets = targets
        return query
    # no operation: a lookup of the named columns ("华北区第二季度的目标"); grouped, an additive measure is summed
    if query.group is not None:
        measures = [c for c in remaining if c.is_measure]
        if len(measures) == 1 and len(remaining) == 1 and _is_additive(measures[0]):
            query.op, query.measure = "sum", measures[0]
            query.notes.append(("未指明计算方式，按求和", "no operation named: summed"))
            return query
        return Refusal(f"按「{query.group.name}」分组后要计算什么（求和、计数、平均……）？",
                       f"Grouped by '{query.group.name}': compute what (sum, count, average...)?",
                       {"measure": _names(_measures(table))}, table)
    if not remaining:
        return Refusal("问题没有说明要查哪一列或做什么计算（求和、计数、平均……）。",
                       "The question names no column to read and no computation (sum, count, average...).",
                       {"columns": _names(table.columns)}, table)
    if not query.filters:
        return Refusal("没有给出筛选条件，无法确定是哪一行；是要求和还是列出全部？",
                       "No condition picks a row: sum it or list every row?", {"columns": _names(remaining)}, table)
    query.targets = remaining
    # several rows of one additive measure ("华东区的金额是多少") are summed; a price or a rate is listed instead
    query.implicit_sum = len(remaining) == 1 and remaining[0].is_measure and _is_additive(remaining[0])
    return query


def _share_column(measures: list[ColumnInfo], question: str) -> ColumnInfo | None:
    """"A占B的比例" asks for a share: the one share column ("占年度销售总额比例") among the measures it names.

    Why: the numerator's own column ("销售额") is named too, as the share's subject, not as what is asked.
    """
    if not _SHARE_QUESTION.search(question):
        return None
    shares = [c for c in measures if _SHARE_COLUMN.search(c.name)]
    return shares[0] if len(shares) == 1 else None


def _measure(
    query: TableQuery, numeric: list[ColumnInfo], identifiers: list[ColumnInfo], question: str = ""
) -> ColumnInfo | Refusal:
    """The one measure column the question names, else the table's only one; identifiers never."""
    table = query.table
    measures = [c for c in numeric if c.is_measure]
    share = _share_column(measures, question) if len(measures) > 1 else None
    if share is not None:
        query.notes.append((f"问的是占比：「{share.name}」", f"a share is asked: '{share.name}'"))
        return share
    if not measures and identifiers:
        c = identifiers[0]
        return Refusal(f"「{c.name}」是标识列（{c.identifier}），不是可以计算的数值。",
                       f"'{c.name}' is an identifier ({c.identifier}), not a measure.",
                       {"measure": _names(_measures(table))}, table)
    if len(measures) > 1:
        return Refusal(f"有多个可计算的数值列：{'、'.join(_names(measures))}，请只指明一个。",
                       f"Several measure columns are named ({', '.join(_names(measures))}); name one.",
                       {"measure": _names(measures)}, table)
    if measures:
        return measures[0]
    candidates = _measures(table)
    if len(candidates) != 1:
        return Refusal(f"没有说明对哪一列计算；候选数值列：{'、'.join(_names(candidates))}。",
                       f"Which column should be computed? Candidates: {', '.join(_names(candidates))}.",
                       {"measure": _names(candidates)}, table)
    query.notes.append((f"表中唯一的数值列「{candidates[0].name}」", f"the only numeric column '{candidates[0].name}'"))
    query.implicit_measure = True
    return candidates[0]


def _rank(query: TableQuery, numeric: list[ColumnInfo], identifiers: list[ColumnInfo], others: list[ColumnInfo],
          linked: Linked) -> TableQuery | Refusal:
    """Argmax / top-k: highest/lowest say the direction; the aggregate is a sum unless average or count is asked."""
    table = query.table
    ops = set(linked.ops)
    query.ascending = linked.ascending or ("min" in ops and "max" not in ops)
    counting = not [c for c in numeric if c.is_measure] and (linked.row_noun or "count" in ops)
    if counting:
        query.rank_agg = "count"
    else:
        measure = _measure(query, numeric, [c for c in identifiers if c != query.group], linked.text)
        if isinstance(measure, Refusal):
            return measure
        query.measure = measure
        query.rank_agg = "avg" if "avg" in ops else "sum"
    if linked.partial_group and query.group is not None and (
            query.group.distinct is None or query.group.distinct < table.row_count):
        # "合同金额最大的是哪家单位": the largest single contract, or the unit with the largest total? Both are read.
        return Refusal(f"「{query.group.name}」有多行：是问单笔最大，还是合计最大？",
                       f"'{query.group.name}' has several rows each: the largest single row, or the largest total?",
                       {"operations": ["max", "sum"]}, table)
    if query.group is None:
        candidates = [c for c in others + identifiers if c != query.measure]
        if len(candidates) == 1:
            query.group = candidates[0]
        elif not candidates and query.measure is not None:
            query.rank_agg = "rows"  # the top rows by the measure ("金额最高的5笔订单")
        else:
            return Refusal("排名按哪一列分组？" + (f"候选：{'、'.join(_names(candidates))}。" if candidates else ""),
                           "Rank groups of which column?", {"group_by": _names(candidates)}, table)
    one_row_each = query.group is not None and query.group.distinct is not None and \
        query.group.distinct >= table.row_count  # each group is one row: its sum is its value
    if query.rank_agg == "sum" and query.measure is not None and not _is_additive(query.measure) and \
            not one_row_each:
        return Refusal(f"「{query.measure.name}」不能相加，排名要按平均、最大还是最小？",
                       f"'{query.measure.name}' is not additive: rank by average, maximum or minimum?",
                       {"operations": ["avg", "max", "min"]}, table)
    if query.limit is None:
        query.limit = 1
    if query.limit > 1 and query.rank_agg in ("sum", "count") and _asks_total(linked):
        query.total_of_ranked = True
    return query


#: Words that ask for a total of what was ranked ("前五名客户合计"); 总 alone is left out (销售总额 names a column).
_TOTAL_WORDS = re.compile(r"合计|总计|共计|一共|总共|加起来|合起来|之和|in total|combined|altogether", re.IGNORECASE)


def _asks_total(linked: Linked) -> bool:
    text = linked.text
    for column in linked.table.columns:
        text = text.replace(column.name, " ")
    return _TOTAL_WORDS.search(text) is not None
