"""From a linked question to one structured query on one table, or a refusal that says what is ambiguous.

The rules, in order (each refusal names the candidates so a person or a model can choose):

- a word no column, value, time expression or known word explains -> refuse (``不理解``);
- a relative time ("去年") -> refuse: the answer must not depend on today's date;
- the operation: distinct count > ranking (argmax, top-k) > avg / max / min > count > sum > list > none; two
  of avg / max / min together -> refuse;
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
from decimal import Decimal

from indexing.table_store import ColumnInfo, TableInfo, TableStore
from retrieval.tables.completeness import ASKS_ROW, listed_values, mostly_unplaced
from retrieval.tables.identity import identity_words, person_columns
from retrieval.tables.linked import ColumnMention, Linked
from retrieval.tables.period import period_label_filter
from retrieval.tables.plan_columns import counted_measure, finish_query
from retrieval.tables.query import (
    AGGREGATES,
    Filter,
    Refusal,
    TableQuery,
    column_names,
    measure_columns,
    resolve_mention,
)
from retrieval.tables.timeexpr import TimeExpr

__all__ = ["plan_table"]


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
        return period_label_filter(exprs, table, store) or _year_column_filter(exprs, table)
    if len(dates) > 1:
        return Refusal(f"有多个日期列：{'、'.join(column_names(dates))}，「{exprs[0].text}」指哪一列？",
                       f"Several date columns ({', '.join(column_names(dates))}); "
                       f"which one does '{exprs[0].text}' mean?",
                       {"date_columns": column_names(dates)}, table)
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


def _year_column_filter(exprs: list[TimeExpr], table: TableInfo) -> Filter | Refusal:
    """No date column: whole years may still filter the table's one year column ("2023年" on a column 年度)."""
    years = [c for c in table.columns if c.identifier == "year"]
    whole_years = all((e.first_month, e.last_month) == (1, 12) and e.year and e.since is None and e.until is None
                      for e in exprs)
    if len(years) == 1 and whole_years:
        return Filter(years[0], "in", [str(e.year) for e in exprs], "、".join(e.text for e in exprs))
    return Refusal(f"表「{table.name}」没有日期列，无法按「{exprs[0].text}」筛选。",
                   f"Table '{table.name}' has no date column to apply '{exprs[0].text}' to.",
                   {"columns": column_names(table.columns)}, table)


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
        if len(items) > 1 and not listed_values(linked, [v for v in linked.values if v.candidates[0][0] is column]):
            # "4th round winners": two values of one column side by side, no "and" / "or" between them; a row has
            # one value, so neither reading ("either" nor "both") is what the words say
            texts = [t for _, _, t in items]
            return Refusal(f"「{'、'.join(texts)}」都是「{column.name}」的值，但问题没有说是其中之一还是别的意思。",
                           f"'{', '.join(texts)}' are all values of '{column.name}'; the question does not say how "
                           "they combine.", {"columns": [column.name]}, linked.table)
        values = list(dict.fromkeys(val for _, val, _ in items))
        op = ("not_in" if len(values) > 1 else "!=") if negated else ("in" if len(values) > 1 else "=")
        filters.append(Filter(column, op, values, "、".join(t for _, _, t in items)))
    return filters


def plan_table(linked: Linked, store: TableStore, route_hint: str | None = None) -> TableQuery | Refusal:
    """The query for one table, or why it cannot be built."""
    table = linked.table
    if linked.leftover or linked.unattached_negation:
        words = linked.leftover + linked.unattached_negation
        return Refusal(f"不理解问题中的「{'、'.join(words)}」：它不是表「{table.name}」的列名或单元格值。",
                       f"'{', '.join(words)}' is neither a column nor a cell value of table '{table.name}'.",
                       {"not_understood": words, "columns": column_names(table.columns)}, table,
                       kind="no_link" if mostly_unplaced(linked) else "ambiguous")
    _who_is_a_lookup(linked)
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
    used: set[int] = set()  # ids of the mentions read as the group or a numeric condition's column
    refusal = _plan_group(query, linked, used) or _numeric_filters(query, linked, used)
    if refusal is not None:
        return refusal
    named = _remaining_columns(query, linked, used, value_columns)
    if isinstance(named, Refusal):
        return named
    remaining, named_dates = named
    time_filter = _time_filter(linked, store, [c for c in remaining if c.is_date])
    if isinstance(time_filter, Refusal):
        return time_filter
    if time_filter is not None:
        query.filters.append(time_filter)
    return _lookup_or_finish(query, linked, remaining, named_dates)


#: Operations that make "谁" a ranking ("销售额最高的是谁"); without one, "谁" asks for a cell ("X由谁负责").
_MANY_PEOPLE = re.compile(r"有谁|都是谁|分别是谁|有哪些人|who are|who were")
_RANKING_OPS = frozenset({"max", "min", "sum", "avg", "count", "count_distinct"})


def _who_is_a_lookup(linked: Linked) -> None:
    """"核心模块开发由谁负责": a condition and no ranking word make "谁" the person cell of those rows, not an
    argmax over people ("月薪高于15000的员工都有谁" lists them); the person column is the one the question names,
    else the table's only one."""
    many = _MANY_PEOPLE.search(linked.text) is not None
    conditions = linked.values or linked.numeric or linked.column_cmps or linked.times
    if not linked.person_argmax or linked.topk or set(linked.ops) & _RANKING_OPS or not (conditions or many):
        return
    linked.person_argmax = linked.argmax = False
    if many and "list" not in linked.ops:
        linked.ops.append("list")  # "市场部都有谁": every person of those rows
    people = person_columns(linked.table)
    named = {c.index for m in linked.mentions for c in m.columns}
    if len(people) == 1 and people[0].index not in named:
        linked.mentions.append(ColumnMention(len(linked.text), len(linked.text), "谁", people, "partial"))


def _plan_group(query: TableQuery, linked: Linked, used: set[int]) -> Refusal | None:
    """The group column: the one named after a grouping marker, the date column for a time unit, or the people
    column for "谁"."""
    table = linked.table
    if linked.group_mention is not None:
        group = resolve_mention(linked.group_mention, linked)
        if isinstance(group, Refusal):
            return group
        used.add(id(linked.group_mention))
        if _per_row(query, linked, group):
            query.notes.append((f"「每{linked.group_mention.text}」：每行一个{group.name}，求的是所有行的一个平均值",
                                f"'per {linked.group_mention.text}': one {group.name} per row, so one mean over "
                                "the rows"))
            return None
        query.group = group
        if group.is_date:
            query.group_unit = linked.group_unit or "day"
    elif linked.group_unit:
        dates = [c for c in table.columns if c.is_date]
        if len(dates) != 1:
            return Refusal(f"按{linked.group_unit}分组需要一个日期列，表「{table.name}」有 {len(dates)} 个。",
                           f"Grouping by {linked.group_unit} needs one date column; '{table.name}' has {len(dates)}.",
                           {"date_columns": column_names(dates)}, table)
        query.group, query.group_unit = dates[0], linked.group_unit
    elif linked.person_argmax:
        people = person_columns(table)
        if len(people) != 1:
            return Refusal("「谁」指哪一列的人？" + (f"候选：{'、'.join(column_names(people))}。" if people else ""),
                           "Which column holds the people 'who' asks about?", {"columns": column_names(people)},
                           table)
        query.group = people[0]
    return None


_PER = ("per", "每个", "每一个", "每")


def _per_row(query: TableQuery, linked: Linked, group: ColumnInfo) -> bool:
    """"average salary per employee", "average revenue per region" where every row is its own employee or region:
    the mean over the rows, one number (grouping by a column of unique values lists each row's own value)."""
    mention = linked.group_mention
    if query.op != "avg" or mention is None or group.distinct is None or group.distinct < linked.table.row_count:
        return False
    return linked.text[:mention.start].rstrip().endswith(_PER)


#: A column counted in 万元 / 千元 ("预算（万元）"): "超过50万元" compares its cells with 50, not 500000.
_COLUMN_SCALE = re.compile(r"(百万|万|千|亿)\s{0,1}(?:元|美元|人民币)?\s{0,1}[)）]|(百万|万|千|亿)元")
_SCALES = {"万": Decimal(10_000), "千": Decimal(1_000), "亿": Decimal(100_000_000), "百万": Decimal(1_000_000)}
_SCALED = re.compile(r"\d\s{0,1}(?:万|千|亿|k|w)|[零一二三四五六七八九十百千两][万亿]")


def _unit_factor(name: str) -> Decimal:
    match = _COLUMN_SCALE.search(name)
    return _SCALES[match.group(1) or match.group(2)] if match else Decimal(1)


def _numeric_filters(query: TableQuery, linked: Linked, used: set[int]) -> Refusal | None:
    """Numeric conditions on the column named right before them, else on the table's only measure."""
    table = linked.table
    for cond in linked.numeric:
        if cond.mention is not None:
            column = resolve_mention(cond.mention, linked)
            if isinstance(column, Refusal):
                return column
            used.add(id(cond.mention))
        else:
            measures = measure_columns(table)
            if len(measures) != 1:
                return Refusal(f"条件「{cond.text}」没有说明是哪一列：{'、'.join(column_names(measures))}？",
                               f"Which column does '{cond.text}' apply to: {', '.join(column_names(measures))}?",
                               {"measure": column_names(measures)}, table)
            column = measures[0]
        if column.kind != "decimal":
            return Refusal(f"「{column.name}」不是数值列，不能按「{cond.text}」比较。",
                           f"'{column.name}' is not numeric; '{cond.text}' cannot compare it.", {}, table)
        factor = _unit_factor(column.name) if _SCALED.search(cond.text) else Decimal(1)
        values_ = [v / factor for v in (cond.value, cond.value2) if v is not None]
        query.filters.append(Filter(column, cond.op, values_, cond.text))
    query.filters += [Filter(left, op, [], words, other=right) for left, op, right, words in linked.column_cmps]
    return None


def _remaining_columns(query: TableQuery, linked: Linked, used: set[int],
                       value_columns: set[int]) -> tuple[list[ColumnInfo], list[ColumnInfo]] | Refusal:
    """The column mentions not yet read (measures and targets), and the date columns named."""
    remaining: list[ColumnInfo] = []
    named_dates: list[ColumnInfo] = []
    identity = set(identity_words(linked.table))
    for m in linked.mentions:
        if id(m) in used:
            continue
        if m.kind != "exact" and m.text in identity and (query.op in (*AGGREGATES, "count") or (
                query.op in ("list", "count_distinct") and _names_text_column(linked, m, value_columns))):
            continue  # "华东区客户的信用额度" on the sheet 客户信息: 客户 names the rows, not a column to group by
        if m.kind == "qualified":
            if query.op in ("count", "count_distinct", "list"):
                continue  # "库存表里有多少种物料": the word names the table's rows, no column is computed
            names = column_names(m.columns)
            return Refusal(f"「{m.text}」是指「{'、'.join(names)}」吗？请写明列名。",
                           f"Does '{m.text}' mean '{', '.join(names)}'? Name the column.", {"columns": names},
                           linked.table)
        column = resolve_mention(m, linked)
        if isinstance(column, Refusal):
            if all(c.index in value_columns for c in m.columns) or (
                    m.kind == "partial" and any(c.index in value_columns for c in m.columns)):
                continue  # "区域华东", "合同HT-2024-005": the column named next to its value
            if query.op.startswith("count") and m.kind == "partial" and not counted_measure(m, linked):
                continue  # "how many goals" over Goals For / Goals Against: a measure to pick, never a row count
            return column
        if column.is_date and column not in named_dates:
            named_dates.append(column)
        if column.index in value_columns or column.is_date or column == query.group:
            continue  # named to qualify a value, a date range, or the group
        if column not in remaining:
            remaining.append(column)
    return remaining, named_dates


def _names_text_column(linked: Linked, skip: ColumnMention, value_columns: set[int]) -> bool:
    """Whether the question names a text column exactly besides ``skip`` and the columns of its values
    ("项目的项目经理都有谁": the list is of 项目经理; 项目 only names the rows)."""
    return any(m is not skip and m.kind == "exact" and all(c.kind == "text" and c.index not in value_columns
                                                           for c in m.columns) for m in linked.mentions)


def _lookup_or_finish(query: TableQuery, linked: Linked, remaining: list[ColumnInfo],
                      named_dates: list[ColumnInfo]) -> TableQuery | Refusal:
    """Units sold, every row's values, a date asked for; else the operation's columns (:func:`finish_query`)."""
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
    if query.op == "lookup" and not remaining and (linked.asks_date or (named_dates and query.filters)):
        return _date_lookup(query, named_dates)  # "尤静是哪天入职的", "周浩然的入职日期"
    if linked.asks_date and query.op == "lookup" and not any(c.is_measure for c in remaining):
        # "沈琳负责的里程碑是哪天": a date is asked; the named text columns say which rows, the date is the answer
        looked = _date_lookup(query, named_dates)
        if isinstance(looked, Refusal):
            return looked
        looked.targets = [*remaining, *looked.targets]
        return looked
    finished = finish_query(query, remaining, linked)
    if isinstance(finished, TableQuery) and finished.op in ("max", "min") and finished.group is None \
            and not finished.targets and ASKS_ROW.search(linked.text):
        # "which episode had the most viewers?" asks for a row; the largest number of viewers is not its answer
        return Refusal("问题问的是哪一行，而不是最大/最小值本身；请写明要返回哪一列。",
                       "The question asks which row, not the extreme value itself; name the column to return.",
                       {"columns": column_names(query.table.columns)}, query.table)
    return finished


#: Column names that hold a quantity of units ("卖出了多少台" sums one of them).
_QUANTITY = re.compile(r"数量|销量|件数|台数|quantity|qty|units", re.IGNORECASE)


def _sold_units(query: TableQuery, linked: Linked) -> TableQuery | Refusal:
    """"扫地机器人一共卖出了多少台": the sum of the table's one quantity column."""
    quantities = [c for c in query.table.columns if c.is_measure and _QUANTITY.search(c.name)]
    if len(quantities) != 1:
        return Refusal("问题问的是卖出的件数，但表中没有唯一的数量列。",
                       "The question asks for units sold, but the table has no single quantity column.",
                       {"measure": column_names(quantities or measure_columns(query.table))}, query.table)
    query.op, query.measure = "sum", quantities[0]
    query.notes.append((f"卖出的件数：对「{quantities[0].name}」求和", f"units sold: sum of '{quantities[0].name}'"))
    return query


def _date_lookup(query: TableQuery, named_dates: list[ColumnInfo]) -> TableQuery | Refusal:
    """"尤静是哪天入职的": the date cell of the rows the conditions pick (the date column named, else the only one)."""
    dates = named_dates or [c for c in query.table.columns if c.is_date]
    if len(dates) != 1 or not query.filters:
        return Refusal("问题问的是日期，但不能确定是哪一列或哪一行。", "A date is asked, but not which column or row.",
                       {"date_columns": column_names(dates)}, query.table)
    query.targets = dates
    return query

