"""The columns an operation works on: the measure, the targets, the ranked groups (the planner's last step).

Why: once filters and grouping are read, what is left of the named columns decides the query; a measure
named twice, a column named without a value, a ranking of a measure that cannot be added are refused here,
each with the candidates to choose from.
"""

from __future__ import annotations

import re

from indexing.table_store import ColumnInfo
from retrieval.handlers.columns import column_core
from retrieval.tables.identity import identity_words, person_columns
from retrieval.tables.lexicon import PEOPLE_COUNT
from retrieval.tables.linked import ColumnMention, Linked
from retrieval.tables.query import AGGREGATES, Refusal, TableQuery, column_names, is_additive, measure_columns

__all__ = ["counted_measure", "counted_word", "finish_query"]

#: "…销售额占年度销售总额的比例": 占 right after what is measured (not after 和/与: "销售额和占比" names two columns).
_SHARE_QUESTION = re.compile(
    r"(?<![和与及、,，\s])占[^，。？?]{0,24}?(?:的)?(?:比例|比重|百分比)|(?<![和与及、,，\s])占比|所占"
)
_SHARE_COLUMN = re.compile(r"比例|比重|占比|百分比|[%％]")


#: "是多少", "how much": the question asks for the amount itself, not the row that holds it.
_ASKS_AMOUNT = re.compile(r"多少|几|how much|how many|what is|what's|what was", re.IGNORECASE)

#: Words that make a list's rows people ("技术部有哪些人", "which employees").
_PEOPLE_ROWS = re.compile(r"哪些人|哪些员工|哪几个人|哪几位|哪些同事|which (?:people|employees|staff)")


def _row_names(linked: Linked) -> list[ColumnInfo]:
    """What names a list's rows when no column is named: the key a plural named ("which items"), the name column
    of the table's own noun ("预算超过50万元的项目有哪些": 项目名称), or the one unique identifier of rows a row
    noun names ("list orders with revenue above 5000": Order No)."""
    table = linked.table
    if linked.row_key is not None:
        return [linked.row_key]
    words = [*linked.identity, *(m.text for m in linked.mentions if m.kind == "partial")]
    names = [c for c in table.columns for w in words
             if column_core(c.name).replace(" ", "").lower() in (w + "名称", w + "名", w + "name")]
    if len(set(c.index for c in names)) == 1:
        return names[:1]
    keys = [c for c in table.columns if c.kind == "text" and c.identifier and c.distinct == table.row_count]
    return keys if linked.row_noun and len(keys) == 1 else []


def _per_period_or_total(query: TableQuery) -> Refusal | None:
    """"迟到次数超过3次的有谁" on a monthly summary (a row per person and month): in one month, or in total? Both
    are read; the rows say only the first, so the question is refused with the two readings."""
    table, target = query.table, query.targets[0]
    periodic = any(c.is_date and c.granularity in ("month", "quarter", "year") for c in table.columns)
    repeated = target.distinct is not None and target.distinct < table.row_count
    counted = [f for f in query.filters if f.other is None and f.op in (">", ">=", "<", "<=", "between")
               and is_additive(f.column)]
    if not (periodic and repeated and counted):
        return None
    words = counted[0].text or counted[0].column.name
    return Refusal(f"表「{table.name}」每个「{target.name}」有多行（按期间）：「{words}」是指某一期，还是合计？",
                   f"'{target.name}' has a row per period in '{table.name}': does '{words}' mean in one period or "
                   f"in total?", {"operations": ["per_row", "sum"]}, table)


def finish_query(query: TableQuery, remaining: list[ColumnInfo], linked: Linked) -> TableQuery | Refusal:
    """The operation's columns from the named columns left over: numeric ones, identifiers and the others."""
    numeric = [c for c in remaining if c.kind == "decimal"]
    identifiers = [c for c in remaining if c.identifier]
    others = [c for c in remaining if c not in numeric and c not in identifiers]
    op = query.op
    if op == "rank":
        return _rank(query, numeric, identifiers, others, linked)
    if op in AGGREGATES:
        return _finish_aggregate(query, numeric, identifiers, others, linked)
    if op == "count":
        return _finish_count(query, numeric, others, linked)
    if op in ("count_distinct", "list"):
        targets = others or identifiers
        people = person_columns(query.table)
        if not targets and op == "list" and _PEOPLE_ROWS.search(linked.text) and len(people) == 1:
            targets = people  # "技术部有哪些人": the people of those rows
        elif not targets and op == "list":
            targets = _row_names(linked)
        if len(targets) != 1:
            what = "统计哪一列的不同值个数" if op == "count_distinct" else "列出哪一列的值"
            return Refusal(f"要{what}？", "Which column?" if op == "list" else "Count distinct values of which column?",
                           {"columns": column_names([c for c in query.table.columns if c.kind == "text"])},
                           query.table)
        query.targets = targets
        if op == "count_distinct" and _one_keyed_row(query):
            return _one_row_refusal(query)
        return _per_period_or_total(query) or query
    return _finish_lookup(query, remaining)


def _finish_aggregate(query: TableQuery, numeric: list[ColumnInfo], identifiers: list[ColumnInfo],
                      others: list[ColumnInfo], linked: Linked) -> TableQuery | Refusal:
    """Sum, average, maximum, minimum of the one measure; "单价最低的备件" asks for the row, not the number."""
    table = query.table
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
    if query.op in ("max", "min") and query.group is None and _extreme_of(linked, others):
        # "总收入最高的产品", "请假最多的部门": the group with the extreme total, as "哪个产品的总收入最高"
        query.op, query.group, query.measure = "rank", others[0], None
        return _rank(query, [measure], identifiers, [], linked)
    if others and query.group is None:
        names = column_names(others)
        return Refusal(f"问题还提到了「{'、'.join(names)}」，但没有给出它的值；是要按它分组吗？",
                       f"The question also names '{', '.join(names)}' without a value: group by it?",
                       {"group_by": names}, table)
    return query


def _repeats_elsewhere(column: ColumnInfo, linked: Linked) -> bool:
    """"How many teams are listed in PHI?" over games: the teams in PHI, not their games. Only when the column
    repeats (a unique one counts its rows, as before) and holds none of the values named (those rows are counted)."""
    repeats = column.distinct is not None and column.distinct < linked.table.row_count
    return repeats and not any(c.index == column.index for v in linked.values for c, _ in v.candidates)


_EXTREME_THEN = r"(?:最高|最大|最多|最低|最小|最少)\s{0,1}的\s{0,1}"


def _extreme_of(linked: Linked, others: list[ColumnInfo]) -> bool:
    """"<measure>最高的<column>": one text column named right after the extreme word, at the question's end."""
    if len(others) != 1 or others[0].kind != "text":
        return False
    words = [m.text for m in linked.mentions if others[0] in m.columns]
    tail = r"\s{0,1}(?:是哪个|是哪家|是哪一个|是什么|是谁)?[?？。]?\s*$"
    return any(re.search(_EXTREME_THEN + re.escape(w) + tail, linked.text) for w in words)


#: Verbs the linker reads as "a count column counts something" ("won the Cup the most times"); in a plain count with
#: no such column they name what is counted, which the table does not hold.
_COUNTED_VERB = re.compile(r"\b(?:wins|won|times|earned|received)\b")


def _one_keyed_row(query: TableQuery) -> bool:
    """Whether a condition picks rows by a column of unique values (one golfer of a one-row-per-golfer table)."""
    return any(f.op == "=" and f.column.distinct is not None and f.column.distinct >= query.table.row_count
               for f in query.filters)


def _one_row_refusal(query: TableQuery) -> Refusal:
    """"how many championships Ernie Els won" over one row per golfer: the distinct count of one row is 1 by
    construction; the number asked is in a cell (or a list in it), not a count of values."""
    name = query.targets[0].name
    return Refusal(f"条件只选出一行，「{name}」的不同值个数必为 1：要的是哪一列的数？",
                   f"The condition picks one row, so the distinct count of '{name}' is 1 by construction: which "
                   "column holds the number asked?", {"columns": column_names(query.table.columns)}, query.table)


def _counted_object(column: ColumnInfo, linked: Linked) -> bool:
    """"How many Stanley Cups do the teams have in total?": the numeric column is what "how many" / "number of"
    counts (its name right after them), so it is summed; the row noun ("teams") only says whose they are."""
    return any(counted_word(linked, m.text) for m in linked.mentions if column in m.columns)


def counted_measure(m: ColumnMention, linked: Linked) -> bool:
    """A mention of several measure columns that "how many" counts ("how many goals": Goals For, Against)."""
    return all(c.is_measure for c in m.columns) and counted_word(linked, m.text)


def counted_word(linked: Linked, word: str) -> bool:
    """Whether ``word`` is what "how many" / "number of" counts (right after them), not a word that qualifies
    something else ("库存表里有多少种物料": 库存 names the sheet)."""
    lead = r"(?:how many|how much|total number of|number of)\s+(?:the\s+)?"
    return re.search(lead + re.escape(word) + r"\b", linked.text) is not None


def _finish_count(query: TableQuery, numeric: list[ColumnInfo], others: list[ColumnInfo],
                  linked: Linked) -> TableQuery | Refusal:
    """A count of rows, unless the named column already counts things, or people or distinct values are asked."""
    measures = [c for c in numeric if c.is_measure]
    if len(measures) == 1 and not others and (_counted_object(measures[0], linked) or (not linked.row_noun and (
            is_additive(measures[0]) or "how many" in linked.text.lower()))):
        # "How many Stanley Cups in total?", "一共卖出多少数量": the named column already counts things
        query.op, query.measure, query.counted_sum = "sum", measures[0], True
        query.notes.append((f"「{measures[0].name}」本身是数量：对它求和", f"'{measures[0].name}' counts: summed"))
        return query
    if len(others) == 1 and not linked.row_noun and others[0].kind == "text" and not measures and (
            not linked.values or _repeats_elsewhere(others[0], linked)):
        query.op, query.targets, query.implicit_distinct = "count_distinct", others, True
        return _one_row_refusal(query) if _one_keyed_row(query) else query
    if measures:
        # "total number of hospital beds at X" with a column Total too, "aircraft in service" beside a column In
        # service: a measure is named but not what is counted; rows counted would drop it (issue 35, item 2)
        names = column_names(measures)
        return Refusal(f"「{'、'.join(names)}」是数值列：要对它求和，还是统计行数？",
                       f"Sum '{', '.join(names)}', or count the rows? The question names the measure but does not "
                       "say which.", {"measure": names}, query.table)
    if _COUNTED_VERB.search(linked.text):
        # "how many wins were there in total?" over games: the wins are not a column; counting the games is wrong
        words = sorted(set(_COUNTED_VERB.findall(linked.text)))
        return Refusal(f"「{'、'.join(words)}」不是表的列：不知道要数什么。",
                       f"'{', '.join(words)}' is not a column of the table: what is counted is not clear.",
                       {"not_understood": words}, query.table)
    people = person_columns(query.table)
    if PEOPLE_COUNT.search(linked.text) and len(people) == 1 and not measures:
        # "质量部有几个人" on a monthly attendance sheet: people, not their monthly rows
        query.op, query.targets = "count_distinct", people
        query.notes.append((f"人数：「{people[0].name}」的不同值", f"people: distinct '{people[0].name}'"))
        return _per_period_or_total(query) or query
    if PEOPLE_COUNT.search(linked.text) and not people:
        return _headcount(query)
    return query


#: A numeric column that counts people ("Headcount", "人数").
_HEADCOUNT = re.compile(r"head\s?count|人数|员工数|职工数|staff|employees|people|members", re.IGNORECASE)


def _headcount(query: TableQuery) -> TableQuery | Refusal:
    """"How many staff are in the Rome office?" over one row per office: the rows are offices, not people; the
    column that counts people is summed, else the question is refused (a row count would be wrong)."""
    counts = [c for c in query.table.columns if c.is_measure and _HEADCOUNT.search(c.name)]
    if len(counts) == 1:
        query.op, query.measure = "sum", counts[0]
        query.notes.append((f"人数：对「{counts[0].name}」求和", f"people: sum of '{counts[0].name}'"))
        return query
    return Refusal("问题问的是人数，但表中的行不是人，也没有唯一的人数列。",
                   "The question counts people, but the rows are not people and no single column counts them.",
                   {"measure": column_names(counts)}, query.table)


def _finish_lookup(query: TableQuery, remaining: list[ColumnInfo]) -> TableQuery | Refusal:
    """No operation: a lookup of the named columns ("华北区第二季度的目标"); grouped, an additive measure is summed."""
    table = query.table
    if query.group is not None:
        measures = [c for c in remaining if c.is_measure]
        if len(measures) == 1 and len(remaining) == 1 and is_additive(measures[0]):
            query.op, query.measure = "sum", measures[0]
            query.notes.append(("未指明计算方式，按求和", "no operation named: summed"))
            return query
        return Refusal(f"按「{query.group.name}」分组后要计算什么（求和、计数、平均……）？",
                       f"Grouped by '{query.group.name}': compute what (sum, count, average...)?",
                       {"measure": column_names(measure_columns(table))}, table)
    if not remaining:
        return Refusal("问题没有说明要查哪一列或做什么计算（求和、计数、平均……）。",
                       "The question names no column to read and no computation (sum, count, average...).",
                       {"columns": column_names(table.columns)}, table)
    if not query.filters:
        return Refusal("没有给出筛选条件，无法确定是哪一行；是要求和还是列出全部？",
                       "No condition picks a row: sum it or list every row?", {"columns": column_names(remaining)},
                       table)
    query.targets = remaining
    # several rows of one additive measure ("华东区的金额是多少") are summed; a price or a rate is listed instead
    query.implicit_sum = len(remaining) == 1 and remaining[0].is_measure and is_additive(remaining[0])
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
                       {"measure": column_names(measure_columns(table))}, table)
    if len(measures) > 1:
        return Refusal(f"有多个可计算的数值列：{'、'.join(column_names(measures))}，请只指明一个。",
                       f"Several measure columns are named ({', '.join(column_names(measures))}); name one.",
                       {"measure": column_names(measures)}, table)
    if measures:
        return measures[0]
    candidates = measure_columns(table)
    if len(candidates) != 1:
        return Refusal(f"没有说明对哪一列计算；候选数值列：{'、'.join(column_names(candidates))}。",
                       f"Which column should be computed? Candidates: {', '.join(column_names(candidates))}.",
                       {"measure": column_names(candidates)}, table)
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
        refusal = _rank_group(query, others + identifiers)
        if refusal is not None:
            return refusal
    one_row_each = query.group is not None and query.group.distinct is not None and \
        query.group.distinct >= table.row_count  # each group is one row: its sum is its value
    if query.rank_agg == "sum" and query.measure is not None and not is_additive(query.measure) and \
            not one_row_each:
        return Refusal(f"「{query.measure.name}」不能相加，排名要按平均、最大还是最小？",
                       f"'{query.measure.name}' is not additive: rank by average, maximum or minimum?",
                       {"operations": ["avg", "max", "min"]}, table)
    if query.limit is None:
        query.limit = 1
    if query.limit > 1 and query.rank_agg in ("sum", "count") and _asks_total(linked):
        query.total_of_ranked = True
    return query


def _rank_group(query: TableQuery, columns: list[ColumnInfo]) -> Refusal | None:
    """No group named: the one other column named, else (with a measure) the top rows themselves."""
    candidates = [c for c in columns if c != query.measure]
    if len(candidates) == 1:
        query.group = candidates[0]
    elif not candidates and query.measure is not None:
        query.rank_agg = "rows"  # the top rows by the measure ("金额最高的5笔订单")
    else:
        return Refusal("排名按哪一列分组？" + (f"候选：{'、'.join(column_names(candidates))}。" if candidates else ""),
                       "Rank groups of which column?", {"group_by": column_names(candidates)}, query.table)
    return None


#: Words that ask for a total of what was ranked ("前五名客户合计"); 总 alone is left out (销售总额 names a column).
_TOTAL_WORDS = re.compile(r"合计|总计|共计|一共|总共|加起来|合起来|之和|in total|combined|altogether", re.IGNORECASE)


def _asks_total(linked: Linked) -> bool:
    text = linked.text
    for column in linked.table.columns:
        text = text.replace(column.name, " ")
    return _TOTAL_WORDS.search(text) is not None
