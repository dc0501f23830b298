"""Link every word of a table question to one table: columns, cell values, time ranges, conditions, operations.

Why account for every word: a question answered without one of its conditions gives a
confident wrong number (the issue's "7 of 10"). The linker consumes the question span by
span, in a fixed order (sheet name, column names, time expressions, top-k, cell values
with their negations, numeric conditions, group and ranking markers, operation words,
fillers, then partial column names); whatever is left is reported, and the planner
refuses rather than answer a question it did not fully read.

Everything here is deterministic and works on the normalised question (half-width,
Simplified, lower case); spans index into that text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import PurePath

from indexing.table_store import ColumnInfo, TableInfo, TableStore, ValueHit, value_core
from retrieval.handlers.columns import column_core
from retrieval.rules.normalize import normalize
from retrieval.tables.lexicon import (
    ARGMAX_WORDS,
    ASKS_DATE,
    FILLERS,
    GROUP_MARKERS,
    NEGATION_AFTER,
    NEGATION_BEFORE,
    OP_WORDS,
    ROW_NOUNS,
    SOLD_UNITS,
    TIME_UNITS,
    column_synonyms,
)
from retrieval.tables.timeexpr import TimeExpr, cn_number, find_time_exprs

__all__ = ["ColumnMention", "Linked", "NumericCondition", "ValueMention", "link_table"]

PERSON_HINTS = ("姓名", "员工", "销售员", "业务员", "负责人", "经手人", "经理", "人员", "联系人", "name", "salesperson",
                "employee", "rep", "owner", "manager")
_ASCII = re.compile(r"[a-z0-9]")
_CONNECTORS = ("和", "与", "及", "或", "、", ",", "以及", "and", "or", "/")
_GAP = re.compile(r"^[\s的为是在了]{0,3}$")
_NUMBER = r"(-?\d[\d,]{0,15}(?:\.\d{1,6})?|[零一二三四五六七八九十百千万亿两]{1,8})\s{0,1}(万|千|亿|k|w)?"
_UNIT = r"\s{0,1}(?:万元|元|块钱|块|美元|个|件|笔|单|条|人|%|rmb|usd|yuan)?"
_CMP_WORDS: list[tuple[str, str]] = [
    (">=", r"大于等于|大于或等于|不少于|不低于|至少|>=|≥|greater than or equal to|at least|no less than"),
    ("<=", r"小于等于|小于或等于|不超过|不高于|不多于|至多|<=|≤|less than or equal to|at most|no more than"),
    (">", r"大于|超过|高于|多于|>|greater than|more than|higher than|above|over|exceeding|exceeds"),
    ("<", r"小于|低于|少于|不足|<|less than|lower than|below|under"),
    ("=", r"等于|==|=|为|equal to|equals"),
]
_CMP = re.compile("(" + "|".join(alts for _, alts in _CMP_WORDS) + r")\s{0,2}" + _NUMBER + _UNIT)
_SUFFIX_CMP = re.compile(_NUMBER + _UNIT + r"\s{0,1}(及以上|或以上|以上|及以下|或以下|以下|以内)")
_BETWEEN = re.compile(r"(?:介于|在|between)?\s{0,1}" + _NUMBER + _UNIT + r"\s{0,2}(?:到|至|-|~|and)\s{0,2}" + _NUMBER
                      + _UNIT + r"\s{0,1}(?:之间|between)?")
_TOPK = [
    re.compile(r"(?:排名|排行|排)?前\s{0,1}(\d{1,3}|[一二三四五六七八九十两]{1,3})\s{0,1}(?:名|个|位|家|大|条|笔|单|种)?"),
    re.compile(r"(?<![a-z])(top|bottom)\s{1,2}(\d{1,3}|three|five|ten)(?![a-z0-9])"),
    re.compile(r"(最高|最大|最多|最低|最小|最少)的\s{0,1}(\d{1,3}|[一二三四五六七八九十两]{1,3})\s{0,1}(?:个|名|位|家|笔|单|条|种)"),
]
_EN_NUM = {"three": 3, "five": 5, "ten": 10}
_TIME_UNIT_WORDS = frozenset(w for words in TIME_UNITS.values() for w in words if not w.isascii())


@dataclass(slots=True)
class ColumnMention:
    """Columns named by one span of the question; several columns means the span is ambiguous."""

    start: int
    end: int
    text: str
    columns: list[ColumnInfo]
    kind: str  # "exact" | "synonym" | "partial"
    used: bool = False

    @property
    def column(self) -> ColumnInfo:
        return self.columns[0]


@dataclass(slots=True)
class ValueMention:
    """A cell value named in the question: (column, value) candidates, possibly negated."""

    start: int
    end: int
    text: str
    candidates: list[tuple[ColumnInfo, str]]
    negated: bool = False


@dataclass(slots=True)
class NumericCondition:
    start: int
    end: int
    text: str
    op: str  # > >= < <= = between
    value: Decimal
    value2: Decimal | None = None
    mention: ColumnMention | None = None


@dataclass(slots=True)
class Linked:
    """What one table makes of the question; ``coverage`` is how much of it this table explains."""

    table: TableInfo
    text: str
    mentions: list[ColumnMention] = field(default_factory=list)
    values: list[ValueMention] = field(default_factory=list)
    times: list[TimeExpr] = field(default_factory=list)
    numeric: list[NumericCondition] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    group_mention: ColumnMention | None = None
    group_unit: str | None = None  # month | quarter | year (on the date column)
    argmax: bool = False
    person_argmax: bool = False
    topk: int | None = None
    ascending: bool = False
    sheet_named: bool = False
    row_noun: bool = False
    leftover: list[str] = field(default_factory=list)
    unattached_negation: list[str] = field(default_factory=list)
    coverage: int = 0
    #: words of the file, sheet or table name the question uses ("订单" of 订单台账.xlsx, "claims" of a sheet
    #: "Claims"): they say which table is meant, and name its rows
    identity: list[str] = field(default_factory=list)
    #: characters the table's columns, values and numeric conditions explain (no time, no operation words)
    content: int = 0
    #: characters of the question the table's own names cover (see ``_affinity``)
    affinity: int = 0
    #: "卖出了多少台": the units sold, a quantity column's sum
    sold_units: bool = False
    #: "是哪天入职的": a date cell is asked for
    asks_date: bool = False
    #: the ranked group was read from part of a column name ("哪家单位" for 对方单位)
    partial_group: bool = False


class _Text:
    """The question with a consumed-character mask."""

    def __init__(self, text: str) -> None:
        self.text = text
        # spaces and punctuation never need explaining, but a span (a date range "7—9月") may cover them
        self.blank = [not ch.strip() or ch in ",.;:!?'\"()[]{}，。；：！？、“”‘’（）【】《》<>-—~" for ch in text]
        self.used = [False] * len(text)
        self.is_content = [False] * len(text)
        self.content = 0

    def free(self, start: int, end: int) -> bool:
        return start >= 0 and end <= len(self.text) and not any(self.used[start:end])

    def take(self, start: int, end: int, *, content: bool = False) -> None:
        for i in range(start, end):
            if not self.used[i] and not self.blank[i] and content:
                self.content += 1
                self.is_content[i] = True
            self.used[i] = True

    def find_all(self, word: str) -> list[int]:
        """Free, word-bounded (for ASCII edges) occurrences of ``word``."""
        out, pos = [], self.text.find(word)
        while pos >= 0:
            end = pos + len(word)
            if self.free(pos, end) and _bounded(self.text, pos, end):
                out.append(pos)
            pos = self.text.find(word, pos + 1)
        return out

    def pieces(self) -> list[str]:
        out: list[str] = []
        current: list[str] = []
        for ch, used, blank in zip(self.text, self.used, self.blank, strict=True):
            if used or blank:
                if current:
                    out.append("".join(current))
                current = []
            else:
                current.append(ch)
        if current:
            out.append("".join(current))
        return out


def _bounded(text: str, start: int, end: int) -> bool:
    if _ASCII.match(text[start]) and start > 0 and _ASCII.match(text[start - 1]):
        return False
    return not (_ASCII.match(text[end - 1]) and end < len(text) and _ASCII.match(text[end]))


def _column_terms(column: ColumnInfo) -> list[tuple[str, str]]:
    """(term, kind) pairs that name a column: its full core name, each header part, their synonyms."""
    cores = []
    full = column_core(column.name).replace(" / ", "").replace(" ", "") if len(column.path) > 1 else \
        column_core(column.name)
    cores.append(full)
    cores += [column_core(p) for p in column.path]
    terms: list[tuple[str, str]] = []
    for core in dict.fromkeys(c for c in cores if c):
        if len(core) >= 2:
            terms += [(form, "exact") for form in _forms(core)]
        for group in column_synonyms():
            if core in group:
                terms += [(form, "synonym") for w in group if w != core and len(w) >= 2 for form in _forms(w)]
    return terms


def _forms(word: str) -> list[str]:
    """A word and, for English, its plural ("salesperson" -> "salespersons", "city" -> "cities"), or for a
    plural its singular ("Stanley Cups" -> "Stanley Cup", "cities" -> "city")."""
    if not word.isascii() or not word[-1:].isalpha():
        return [word]
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return [word, word[:-1] + "ies"]
    if word.endswith("ies") and len(word) > 4:
        return [word, word[:-3] + "y"]
    if word.endswith(("ses", "xes", "ches", "shes")):
        return [word, word[:-2]]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return [word, word[:-1]]  # "Stanley Cups" is also named "Stanley Cup"
    if word.endswith(("s", "x", "ch", "sh")):
        return [word, word + "es"]
    return [word, word + "s"]


def _link_columns(t: _Text, table: TableInfo, kinds_wanted: tuple[str, ...]) -> list[ColumnMention]:
    """Exact names (or synonyms), longest span first; equal spans naming several columns stay ambiguous."""
    by_span: dict[tuple[int, int], dict[str, list[ColumnInfo]]] = {}
    for column in table.columns:
        for term, kind in _column_terms(column):
            if kind not in kinds_wanted:
                continue
            for pos in t.find_all(term):
                if term in _TIME_UNIT_WORDS and pos > 0 and (t.text[pos - 1].isdigit() or t.text[pos - 1] in
                                                             "一二三四五六七八九十两上下"):
                    continue  # "3月份" is a month, not the column 月份
                kinds = by_span.setdefault((pos, pos + len(term)), {})
                bucket = kinds.setdefault(kind, [])
                if column not in bucket:
                    bucket.append(column)
    mentions: list[ColumnMention] = []
    for (start, end), kinds in sorted(by_span.items(), key=lambda kv: (-(kv[0][1] - kv[0][0]), kv[0][0])):
        if not t.free(start, end):
            continue
        kind = "exact" if "exact" in kinds else "synonym"
        columns = list(kinds[kind])
        word = t.text[start:end]
        if kind == "synonym":
            # "金额" is a synonym of "订单金额" but also ends "回款金额": a word inside another column name competes
            # (an identifier such as 客户编号 does not compete with 客户名称 for "客户")
            identifiers = any(c.identifier for c in columns)
            columns += [c for c in table.columns if c not in columns and word in column_core(c.name).replace(" ", "")
                        and (identifiers or not c.identifier) and not _is_kind_column(c, word)]
        mentions.append(ColumnMention(start, end, word, columns, kind))
        t.take(start, end, content=True)
    return mentions


#: Column-name endings that make a column a classification of the word before them ("产品类别" is not "产品").
_KIND_SUFFIXES = ("类别", "类型", "分类", "种类", "type", "category", "class")


def _is_kind_column(column: ColumnInfo, word: str) -> bool:
    core = column_core(column.name).replace(" ", "")
    return core != word and core.endswith(_KIND_SUFFIXES)


def _merge_header_parts(mentions: list[ColumnMention]) -> list[ColumnMention]:
    """"2024年" and "第一季度" naming parts of a two-row header: the column named by both wins both mentions."""
    multi = [m for m in mentions if len(m.columns) > 1]
    for m in multi:
        for other in mentions:
            if other is m:
                continue
            common = [c for c in m.columns if c in other.columns]
            if common and len(common) < len(m.columns):
                m.columns = common
    return mentions


def _link_values(t: _Text, table: TableInfo, hits: list[ValueHit]) -> list[ValueMention]:
    by_column = {c.index: c for c in table.columns}
    spans: dict[tuple[int, int], list[tuple[ColumnInfo, str]]] = {}
    for hit in hits:
        if hit.table_id != table.table_id or hit.column not in by_column:
            continue
        for word in {hit.norm, hit.core}:
            if len(word) == 1 and word.isascii() and word.isalnum():
                # a one-letter grade or code ("评级为A", "等级是B") is a value only right after 为/是/=/:
                for pos in t.find_all(word):
                    if _bounded(t.text, pos, pos + 1) and _after_copula(t.text, pos):
                        bucket = spans.setdefault((pos, pos + 1), [])
                        if (by_column[hit.column], hit.value) not in bucket:
                            bucket.append((by_column[hit.column], hit.value))
                continue
            if len(word) < 2 or (word.isdigit() and len(word) < 4):
                continue
            for pos in t.find_all(word):
                bucket = spans.setdefault((pos, pos + len(word)), [])
                if (by_column[hit.column], hit.value) not in bucket:
                    bucket.append((by_column[hit.column], hit.value))
    out: list[ValueMention] = []
    for (start, end), candidates in sorted(spans.items(), key=lambda kv: (-(kv[0][1] - kv[0][0]), kv[0][0])):
        if not t.free(start, end):
            continue
        # "华东区" when the value is "华东": the place word belongs to the value
        tail = t.text[end:end + 2]
        # "电气类的备件" when the value is "电气": 类 says the value is a class of rows
        for suffix in ("地区", "大区", "区", "市", "省", "类"):
            if tail.startswith(suffix) and t.free(end, end + len(suffix)):
                end += len(suffix)
                break
        t.take(start, end, content=True)
        # one value per column: the same text as a value of several columns is ambiguous
        seen: dict[int, tuple[ColumnInfo, str]] = {}
        for column, value in candidates:
            seen.setdefault(column.index, (column, value))
        out.append(ValueMention(start, end, t.text[start:end], list(seen.values())))
    out.sort(key=lambda v: v.start)
    return out


def _after_copula(text: str, pos: int) -> bool:
    """True when ``text[pos]`` follows 为/是/等于/=/: (spaces allowed between)."""
    before = text[:pos].rstrip()
    return before.endswith(("为", "是", "等于", "=", ":", "：", "is"))


def _negate(t: _Text, values: list[ValueMention]) -> None:
    """A negation word right before a value (or a run of values joined by 和/、/or) negates them; 以外 after too."""
    text = t.text
    for i, value in enumerate(values):
        j = value.start
        while j > 0 and text[j - 1] in " 的":
            j -= 1
        for word in sorted(NEGATION_BEFORE, key=len, reverse=True):
            s = j - len(word)
            if s >= 0 and text[s:j] == word and t.free(s, j) and _bounded(text, s, j):
                t.take(s, j)
                _negate_run(t, values, i)
                break
        k = value.end
        while k < len(text) and text[k] == " ":
            k += 1
        for word in NEGATION_AFTER:
            if text.startswith(word, k) and t.free(k, k + len(word)):
                t.take(k, k + len(word))
                _negate_run(t, values, i, backwards=True)
                break


def _negate_run(t: _Text, values: list[ValueMention], index: int, *, backwards: bool = False) -> None:
    values[index].negated = True
    step = -1 if backwards else 1
    j = index
    while 0 <= j + step < len(values):
        a, b = (values[j], values[j + step]) if step == 1 else (values[j + step], values[j])
        gap = t.text[a.end:b.start].strip()
        if gap and gap not in _CONNECTORS:
            break
        t.take(a.end, b.start)
        values[j + step].negated = True
        j += step


def _parse_number(digits: str, scale: str | None) -> Decimal | None:
    value: Decimal | None
    if digits[0].isdigit() or digits[0] == "-":
        try:
            value = Decimal(digits.replace(",", ""))
        except InvalidOperation:
            return None
    else:
        n = cn_number(digits)
        value = Decimal(n) if n is not None else None
    if value is None:
        return None
    factor = {"万": 10_000, "w": 10_000, "千": 1_000, "k": 1_000, "亿": 100_000_000}.get(scale or "", 1)
    return value * factor


def _mention_before(mentions: list[ColumnMention], t: _Text, pos: int) -> ColumnMention | None:
    best = None
    for m in mentions:
        if m.end <= pos and _GAP.match(t.text[m.end:pos]) and (best is None or m.end > best.end):
            best = m
    return best


def _link_numeric(t: _Text, mentions: list[ColumnMention]) -> list[NumericCondition]:
    out: list[NumericCondition] = []
    text = t.text
    for m in _BETWEEN.finditer(text):
        if not t.free(m.start(), m.end()) or not (m.group(0).strip().startswith(("介于", "在", "between"))
                                                  or "之间" in m.group(0)):
            continue
        a, b = _parse_number(m.group(1), m.group(2)), _parse_number(m.group(3), m.group(4))
        if a is None or b is None:
            continue
        out.append(NumericCondition(m.start(), m.end(), m.group(0), "between", min(a, b), max(a, b),
                                    _mention_before(mentions, t, m.start())))
        t.take(m.start(), m.end(), content=True)
    for m in _CMP.finditer(text):
        if not t.free(m.start(), m.end()) or not _bounded(text, m.start(), m.start() + len(m.group(1))):
            continue
        value = _parse_number(m.group(2), m.group(3))
        if value is None:
            continue
        op = next(sym for sym, alts in _CMP_WORDS if re.fullmatch(alts, m.group(1)))
        out.append(NumericCondition(m.start(), m.end(), m.group(0), op, value, None,
                                    _mention_before(mentions, t, m.start())))
        t.take(m.start(), m.end(), content=True)
    for m in _SUFFIX_CMP.finditer(text):
        if not t.free(m.start(), m.end()):
            continue
        value = _parse_number(m.group(1), m.group(2))
        if value is None:
            continue
        word = m.group(3)
        op = ">=" if word.endswith("以上") else "<="
        out.append(NumericCondition(m.start(), m.end(), m.group(0), op, value, None,
                                    _mention_before(mentions, t, m.start())))
        t.take(m.start(), m.end(), content=True)
    return out


def _link_topk(t: _Text, linked: Linked) -> None:
    for pattern in _TOPK:
        for m in pattern.finditer(t.text):
            if not t.free(m.start(), m.end()):
                continue
            groups = [g for g in m.groups() if g]
            number = groups[-1] if pattern is not _TOPK[2] else groups[1]
            k = _EN_NUM.get(number) or cn_number(number)
            if not k:
                continue
            if pattern is _TOPK[1] and groups[0] == "bottom":
                linked.ascending = True
            if pattern is _TOPK[2] and groups[0] in ("最低", "最小", "最少"):
                linked.ascending = True
            linked.topk = k
            t.take(m.start(), m.end())
            return


def _mention_at(mentions: list[ColumnMention], t: _Text, pos: int, skip: tuple[str, ...] = ()) -> ColumnMention | None:
    """The column mention right after ``pos`` ("哪个区域"); words of the table's own name may stand between
    ("which expense category": "expense" names the table)."""
    for m in mentions:
        gap = t.text[pos:m.start] if m.start >= pos else None
        if gap is None:
            continue
        if re.fullmatch(r"[\s个一的]{0,2}|(?:the\s)?", gap) or (gap.strip() and gap.strip() in skip):
            return m
    return None


def _partial_at(t: _Text, table: TableInfo, pos: int) -> ColumnMention | None:
    """"哪家单位" with a column 对方单位: the two to four characters after ``pos`` that begin or end exactly one
    column name."""
    start = pos
    while start < len(t.text) and t.text[start] in " 的":
        start += 1
    for size in (4, 3, 2):
        end = start + size
        word = t.text[start:end]
        if len(word) < size or not t.free(start, end) or not _bounded(t.text, start, end):
            continue
        columns = [c for c in table.columns if (core := column_core(c.name).replace(" ", "")) != word
                   and (core.startswith(word) or core.endswith(word))]
        if len(columns) == 1:
            t.take(start, end, content=True)
            return ColumnMention(start, end, word, columns, "partial")
    return None


def _link_group_and_rank(t: _Text, linked: Linked) -> None:
    text = t.text
    skip = tuple(identity_words(linked.table))
    for word in sorted(ARGMAX_WORDS, key=len, reverse=True):
        for pos in t.find_all(word):
            end = pos + len(word)
            mention = _mention_at(linked.mentions, t, end, skip)
            unit = _unit_at(t, end)
            if mention is None and unit is None and word not in ("which", "what"):
                mention = _partial_at(t, linked.table, end)
                if mention is not None:
                    linked.mentions.append(mention)
                    linked.partial_group = True
            if mention is not None:
                linked.group_mention, linked.argmax = mention, True
                t.take(pos, end)
                return
            if unit is not None:
                linked.group_unit, linked.argmax = unit[0], True
                t.take(pos, unit[1])
                return
    for word in _ASKS_WHICH:
        for pos in t.find_all(word):
            if pos + len(word) >= len(text.rstrip("?？。 ")) and (_maxmin_before(text, pos)):
                # "最高的产品是哪个": the extreme is asked for, its group is the column named before
                linked.argmax = True
                t.take(pos, pos + len(word))
                return
    for word in ("是谁", "谁", "who"):
        for pos in t.find_all(word):
            linked.person_argmax = linked.argmax = True
            t.take(pos, pos + len(word))
            return
    for word in sorted(GROUP_MARKERS, key=len, reverse=True):
        for pos in t.find_all(word):
            end = pos + len(word)
            mention = _mention_at(linked.mentions, t, end)
            if mention is not None and (linked.topk or linked.argmax) and all(c.is_measure for c in mention.columns):
                continue  # "top 3 salespersons by amount": the ranking's measure, not a grouping
            if mention is not None and (linked.group_mention is None
                                        or mention.columns == linked.group_mention.columns):
                # "按区域汇总…各区域的…": a second marker of the same grouping is consumed too
                linked.group_mention = linked.group_mention or mention
                t.take(pos, end)
                continue
            unit = _unit_at(t, end)
            if unit is not None and linked.group_unit in (None, unit[0]):
                linked.group_unit = unit[0]
                t.take(pos, unit[1])
    del text


_ASKS_WHICH = ("是哪一个", "是哪一家", "是哪一位", "是哪个", "是哪家", "是哪位", "是哪种", "是哪类", "是什么")
_EXTREMES = ("最高", "最大", "最多", "最低", "最小", "最少", "最贵", "最便宜")


def _maxmin_before(text: str, pos: int) -> bool:
    return any(w in text[:pos] for w in _EXTREMES)


def _unit_at(t: _Text, pos: int) -> tuple[str, int] | None:
    rest = t.text[pos:pos + 8]
    skip = len(rest) - len(rest.lstrip())
    if t.text[pos + skip:pos + skip + 1] == "个":
        skip += 1
    for unit, words in TIME_UNITS.items():
        for word in sorted(words, key=len, reverse=True):
            start = pos + skip
            if t.text.startswith(word, start) and t.free(start, start + len(word)) \
                    and _bounded(t.text, start, start + len(word)):
                return unit, start + len(word)
    return None


def _consume_words(t: _Text, words: tuple[str, ...]) -> list[str]:
    found = []
    for word in sorted(words, key=len, reverse=True):
        for pos in t.find_all(word):
            if t.free(pos, pos + len(word)):
                t.take(pos, pos + len(word))
                found.append(word)
    return found


def _vocabulary() -> list[str]:
    words = [w for group in OP_WORDS.values() for w in group] + list(ROW_NOUNS) + list(FILLERS)
    return sorted(set(words), key=len, reverse=True)


def _inside_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] sits inside a longer known word ("订单" in "订单数")."""
    for word in _vocabulary():
        if len(word) <= end - start:
            break
        pos = text.find(word, max(0, end - len(word)))
        while 0 <= pos <= start:
            if pos + len(word) >= end:
                return True
            pos = text.find(word, pos + 1)
    return False


def _consume_vocabulary(t: _Text, linked: Linked) -> None:
    """Operation words, row nouns, negations and fillers in ONE longest-first pass ("汇总" before "总")."""
    vocabulary: list[tuple[str, str]] = [(w, f"op:{op}") for op, words in OP_WORDS.items() for w in words]
    vocabulary += [(w, "row") for w in ROW_NOUNS]
    vocabulary += [(w, "negation") for w in NEGATION_BEFORE + NEGATION_AFTER]
    vocabulary += [(w, "filler") for w in FILLERS]
    seen: set[tuple[str, str]] = set()
    for word, kind in sorted(vocabulary, key=lambda wk: -len(wk[0])):
        if (word, kind) in seen:
            continue
        seen.add((word, kind))
        for pos in t.find_all(word):
            if len(word) == 1 and _starts_column_word(t.text, pos, linked.table):
                continue  # "项" of "项目" (a column 项目名称) is no row noun
            t.take(pos, pos + len(word))
            if kind.startswith("op:") and kind[3:] not in linked.ops:
                linked.ops.append(kind[3:])
            elif kind == "row":
                linked.row_noun = True
            elif kind == "negation":
                linked.unattached_negation.append(word)


def _starts_column_word(text: str, pos: int, table: TableInfo) -> bool:
    """Whether the character at ``pos`` begins or ends a two-character piece of a column name ("项目" of 项目名称)."""
    pairs = [text[pos:pos + 2], text[max(0, pos - 1):pos + 1]]
    pairs = [p for p in pairs if len(p) == 2 and not p.isascii()]
    return any(p in column_core(c.name) for c in table.columns for p in pairs)


def _drop_measure_modifiers(mentions: list[ColumnMention]) -> list[ColumnMention]:
    """"销售金额": a synonym match ("销售" for 销售员) that ends where a measure's name begins modifies that
    measure; it names no column of its own."""
    measure_starts = {m.start for m in mentions if m.columns and all(c.is_measure for c in m.columns)}
    return [m for m in mentions
            if not (m.kind == "synonym" and m.end in measure_starts and not any(c.is_measure for c in m.columns))]


def _names_a_column(word: str, table: TableInfo) -> bool:
    """Whether ``word`` begins or ends a column name or is a column synonym: only such a word can modify the
    measure after it ("销售金额"); any other word there ("低于安全库存", a comparison with another column) is
    a condition the linker does not read, and must be reported, not swallowed."""
    terms = {term for column in table.columns for term, _ in _column_terms(column)}
    cores = [column_core(c.name).replace(" ", "") for c in table.columns]
    return word in terms or any(core.startswith(word) or core.endswith(word) for core in cores) or any(
        word in group for group in column_synonyms())


def _partial_columns(t: _Text, table: TableInfo, mentions: list[ColumnMention] | None = None) -> list[ColumnMention]:
    """Left-over words that begin or end a column name ("金额" for "回款金额", "客户" for "客户名称").

    A word right before a linked measure modifies it ("销售金额": 销售 + 金额), it does not name another
    column ("销售员"): it is left alone."""
    out: list[ColumnMention] = []
    measure_starts = {m.start for m in mentions or [] if any(c.is_measure for c in m.columns)}
    for piece in sorted(set(t.pieces()), key=len, reverse=True):
        word = piece.strip()
        if len(word) < 2:
            continue
        if any(pos + len(word) in measure_starts for pos in t.find_all(word)) and _names_a_column(word, table):
            for pos in t.find_all(word):
                t.take(pos, pos + len(word))
            continue
        columns = []
        for column in table.columns:
            core = column_core(column.name).replace(" ", "")
            if core != word and (core.startswith(word) or core.endswith(word)):
                columns.append(column)
        if not columns and not word.isascii():
            # "计划在哪天完成" with a column 计划完成日期: a word inside exactly one column name names it
            inside = [c for c in table.columns if word in column_core(c.name).replace(" ", "")]
            columns = inside if len(inside) == 1 else []
        names = (word + "名称", word + "名", word + "name")
        named = [c for c in columns if column_core(c.name).replace(" ", "") in names]
        if len(columns) > 1 and len(named) == 1:
            columns = named  # "产品" of 产品名称 and 产品类别: the product is its name
        if columns:
            for pos in t.find_all(word):
                out.append(ColumnMention(pos, pos + len(word), word, columns, "partial"))
                t.take(pos, pos + len(word), content=True)
    return out


def link_table(question: str, table: TableInfo, store: TableStore, hits: list[ValueHit] | None = None) -> Linked:
    """Link a question (raw; normalised here) to one stored table."""
    text = normalize(question)
    negated = _negation_as_value(text, table, store)
    if negated != text:
        text, hits = negated, None  # "还没开始" read as the cell value "未开始": the hits are looked up again
    t = _Text(text)
    linked = Linked(table=table, text=text)
    flags = _link_flags(t, table, store)
    linked.mentions = _row_key_nouns(_link_columns(t, table, ("exact",)), table, linked)
    terms = {term for column in table.columns for term, _ in _column_terms(column)}
    for name in {normalize(n) for n in (table.sheet, table.name, table.caption) if n}:
        if len(name) >= 2 and name not in ROW_NOUNS:
            for pos in t.find_all(name):
                if name in terms:  # a sheet called "客户" with a column "客户名称": the word links the column
                    linked.sheet_named = True
                elif not _inside_word(text, pos, pos + len(name)):
                    t.take(pos, pos + len(name), content=True)
                    linked.sheet_named = True
    for expr in find_time_exprs(text):
        if t.free(expr.start, expr.end):
            t.take(expr.start, expr.end)
            linked.times.append(expr)
    _link_topk(t, linked)
    if hits is None:
        hits = store.values_in([table.table_id], text)
    linked.values = sorted(_link_values(t, table, hits) + flags, key=lambda v: v.start)
    linked.mentions = _merge_header_parts(linked.mentions + _link_columns(t, table, ("synonym",)))
    linked.mentions = _drop_measure_modifiers(linked.mentions)
    _negate(t, linked.values)
    linked.numeric = _link_numeric(t, linked.mentions)
    _link_group_and_rank(t, linked)
    linked.mentions += _counted_columns(t, table)
    pos = 0
    while (m := SOLD_UNITS.search(text, pos)) is not None:  # every start: "units were sold" may overlap a column
        if m.end() > m.start() and t.free(m.start(), m.end()):
            t.take(m.start(), m.end())
            linked.sold_units = True
            pos = m.end()
        else:
            pos = m.start() + 1
    for word in sorted(ASKS_DATE, key=len, reverse=True):
        for pos in t.find_all(word):
            t.take(pos, pos + len(word))
            linked.asks_date = True
    linked.identity = _link_identity(t, table)
    if linked.identity:
        linked.row_noun = True  # "多少份采购合同", "the most claims": the table's own name names its rows
    before_vocabulary = [u or b for u, b in zip(t.used, t.blank, strict=True)]
    _consume_vocabulary(t, linked)
    linked.mentions += _partial_columns(t, table, linked.mentions)
    # report what is left as the question wrote it: the whole run of words around an unknown one
    runs: list[str] = []
    current: list[str] = []
    unknown = False
    for ch, was_used, now_used in zip(text, before_vocabulary, t.used, strict=True):
        if was_used:
            if current and unknown:
                runs.append("".join(current).strip())
            current, unknown = [], False
            continue
        current.append(ch)
        unknown = unknown or not now_used
    if current and unknown:
        runs.append("".join(current).strip())
    linked.leftover = [r for r in runs if r]
    has_date = any(c.is_date for c in table.columns)
    linked.content = t.content
    linked.affinity = _affinity(text, table, t.is_content)
    linked.coverage = t.content + linked.affinity + (1 if (linked.times or linked.group_unit) and has_date else 0)
    return linked


#: Cell-value pairs of a yes/no column ("Reimbursed": Yes / No, "是否报销": 是 / 否), the "yes" value first.
_FLAG_PAIRS = (("yes", "no"), ("y", "n"), ("true", "false"), ("是", "否"), ("有", "无"))
#: Words right before a yes/no column's name that ask for its "no" rows ("not reimbursed", "未报销").
_FLAG_NEGATIONS = ("还没有", "还没", "还未", "尚未", "没有", "没", "未", "不", "not", "never", "non-")
#: Words right before a yes/no column's name that ask about the column itself, not for its "yes" rows.
_FLAG_ASKS = ("是否", "有没有", "whether", "if", "by", "按")


def _link_flags(t: _Text, table: TableInfo, store: TableStore) -> list[ValueMention]:
    """A yes/no column named as a verb or adjective is a condition on it: "expenses not reimbursed" are the rows
    whose Reimbursed is No, "reimbursed to Ethan" those whose Reimbursed is Yes; "未报销" for a column "是否报销".

    Why: the column name is the only word the question has for the condition; read as a bare column mention it
    asks "group by it?" and the question is refused although it says exactly which rows it means."""
    out: list[ValueMention] = []
    for column in table.columns:
        if column.kind != "text" or column.distinct not in (None, 2):
            continue
        core = column_core(column.name).replace(" ", "") if not column.name.isascii() else \
            column_core(column.name).strip()
        terms = [core[2:]] if core.startswith("是否") and len(core) >= 4 else []
        terms += [core] if len(core) >= 2 and not core.startswith("是否") else []
        hits = [(term, pos) for term in terms for pos in t.find_all(term)]
        if not hits:
            continue
        values = {normalize(v): v for v, _ in store.column_values(table.table_id, column.index, 3)}
        pair = next((p for p in _FLAG_PAIRS if set(values) == set(p)), None)
        if pair is None:
            continue
        for term, pos in hits:
            before = t.text[:pos].rstrip()
            if before.endswith(_FLAG_ASKS) or not t.free(pos, pos + len(term)):
                continue
            start, negated = pos, False
            for word in _FLAG_NEGATIONS:
                cut = len(before) - len(word)
                if before.endswith(word) and (not word.isascii() or cut == 0 or not _ASCII.match(before[cut - 1])) \
                        and t.free(cut, pos):
                    start, negated = cut, True
                    break
            for word in ("已经", "已") if not negated else ():  # "已报销": the yes rows, said with 已
                if before.endswith(word) and t.free(len(before) - len(word), pos):
                    start = len(before) - len(word)
                    break
            t.take(start, pos + len(term), content=True)
            value = values[pair[1] if negated else pair[0]]
            out.append(ValueMention(start, pos + len(term), t.text[start:pos + len(term)], [(column, value)]))
    return out


def _row_key_nouns(mentions: list[ColumnMention], table: TableInfo, linked: Linked) -> list[ColumnMention]:
    """"network tickets", "the most tickets" with a column Ticket that holds one key per row: the plural names
    the rows (a row noun), not the column (which would ask "group by Ticket?")."""
    out = []
    for m in mentions:
        column = m.column
        core = column_core(column.name).strip()
        key = column.kind == "text" and (column.identifier or column.distinct == table.row_count)
        if len(m.columns) == 1 and key and m.text.isascii() and m.text != core and m.text.endswith("s"):
            linked.row_noun = True
            continue
        out.append(m)
    return out


#: "还没开始", "尚未完成": the ways a question negates a verb that a cell writes as "未开始", "未完成".
_NEGATED_VERB = re.compile(r"(?:还没有|还没|还未|尚未|没有|没)(?=[\u4e00-\u9fff])")


def _negation_as_value(text: str, table: TableInfo, store: TableStore) -> str:
    """The question with "还没/尚未/没有 X" written "未X" when the table holds a cell "未X" there; else unchanged."""
    if not _NEGATED_VERB.search(text):
        return text
    rewritten = _NEGATED_VERB.sub("未", text)
    hits = store.values_in([table.table_id], rewritten)
    if any(h.norm.startswith("未") and len(h.norm) >= 2 and h.norm not in text for h in hits):
        return rewritten
    return text


_COUNTED = re.compile(r"^(.{1,6}?)([次天人件台个项])数$")


def _counted_columns(t: _Text, table: TableInfo) -> list[ColumnMention]:
    """"宋佳一共迟到了多少次" with a column 迟到次数: the verb and its unit name the column that counts it."""
    out = []
    for column in table.columns:
        match = _COUNTED.match(column_core(column.name).replace(" ", "")) if column.is_measure else None
        if match is None:
            continue
        stem, unit = match.groups()
        for found in re.finditer(re.escape(stem) + rf"了?\s?(?:多少|几)\s?{unit}", t.text):
            if t.free(found.start(), found.end()):
                t.take(found.start(), found.end(), content=True)
                out.append(ColumnMention(found.start(), found.end(), found.group(0), [column], "exact"))
    return out


def identity_words(table: TableInfo) -> list[str]:
    """Words of the table's file name, sheet, name and caption (normalised, two characters or more, no years),
    longest first: what a user calls the table ("订单台账", "订单", "expense claims", "claims")."""
    from officeqa.text_tokens import tokenize_for_bm25

    names = [PurePath(table.path).stem, table.sheet or "", table.name or "", table.caption or ""]
    words: set[str] = set()
    for name in names:
        text = normalize(name.replace("_", " ").replace("-", " "))
        for expr in sorted(find_time_exprs(text), key=lambda e: -e.start):
            text = text[:expr.start] + " " + text[expr.end:]  # "第三季度项目推进会纪要": a date in a name is no name
        text = text.strip()
        if not text or re.fullmatch(r"表\d+|table \d+|sheet\d*", text):
            continue
        words.add(text.strip())
        parts = [p for p in re.split(r"[\s()（）\[\]【】·.]+", text) if p]
        words.update(parts)
        for part in parts:
            if not part.isascii():
                words.update(tokenize_for_bm25(part))
    out = []
    for word in words:
        word = re.sub(r"^\d{2,4}年(度)?", "", word).strip()
        if len(word) >= 2 and not word.isdigit() and word not in FILLERS and not re.fullmatch(r"[\d.]+[年月]?", word):
            out.append(word)
    return sorted(set(out), key=len, reverse=True)


def _link_identity(t: _Text, table: TableInfo) -> list[str]:
    """Consume the table's name words; a word inside a column name ("供应商" of 供应商名称, "年度" of
    占年度销售总额比例) is left for the column."""
    cores = [column_core(c.name).replace(" ", "") for c in table.columns]
    found = []
    for word in identity_words(table):
        if any(word in core for core in cores):
            continue
        for form in _forms(word):
            for pos in t.find_all(form):
                t.take(pos, pos + len(form))
                found.append(form)
    return found


def _affinity(text: str, table: TableInfo, content: list[bool]) -> int:
    """Characters of the question that the table's file, sheet or table name covers ("订单" of 订单明细) and
    that no column or value already explains: how much more the question says which table it means."""
    covered = list(content)
    for word in identity_words(table):
        for form in _forms(word):
            pos = text.find(form)
            while pos >= 0:
                if _bounded(text, pos, pos + len(form)):
                    covered[pos:pos + len(form)] = [True] * len(form)
                pos = text.find(form, pos + 1)
    return sum(covered) - sum(content)


def person_columns(table: TableInfo) -> list[ColumnInfo]:
    """Text columns that name people (for "谁…最高")."""
    return [c for c in table.columns if c.kind == "text" and not c.identifier
            and any(h in normalize(c.name) for h in PERSON_HINTS)]


def value_words(value: str) -> str:
    return value_core(normalize(value))
