"""Cell values in a table question: values of the table, yes/no columns used as conditions, their negations.

Why: a value names the rows the question is about ("华东", "未报销"); a negation word before or after it
("除了华东以外") turns the condition around, and a value that is also a value of another column stays
ambiguous rather than guessed.
"""

from __future__ import annotations

import re

from indexing.table_store import ColumnInfo, TableInfo, TableStore, ValueHit
from retrieval.handlers.columns import column_core
from retrieval.rules.normalize import normalize
from retrieval.tables.lexicon import NEGATION_AFTER, NEGATION_BEFORE
from retrieval.tables.link_columns import word_forms
from retrieval.tables.linked import ASCII_WORD, QuestionText, ValueMention, bounded

__all__ = ["link_flags", "link_values", "negate_values", "negation_as_value"]

_CONNECTORS = ("和", "与", "及", "或", "、", ",", "以及", "and", "or", "/")


_PEOPLE_NOUNS = ("员工", "职工", "同事", "性", "士", "生", "人", "employees")


def _people_kind(word: str, column: ColumnInfo) -> bool:
    return not word.isascii() and column.distinct is not None and column.distinct <= 3


def _one_character_value(t: QuestionText, word: str, column: ColumnInfo) -> list[int]:
    """Where a one-character cell value is one: a letter grade or code right after 为/是/=/: ("评级为A"), or
    "女员工" / "男同事" (a value of a two- or three-valued column before a people noun)."""
    if word.isascii() and word.isalnum():
        return [pos for pos in t.find_all(word) if bounded(t.text, pos, pos + 1) and _after_copula(t.text, pos)]
    if _people_kind(word, column):
        return [pos for pos in t.find_all(word) if t.text.startswith(_PEOPLE_NOUNS, pos + 1)]
    return []


def link_values(t: QuestionText, table: TableInfo, hits: list[ValueHit]) -> list[ValueMention]:
    by_column = {c.index: c for c in table.columns}
    spans: dict[tuple[int, int], list[tuple[ColumnInfo, str]]] = {}
    for hit in hits:
        if hit.table_id != table.table_id or hit.column not in by_column:
            continue
        for word in {hit.norm, hit.core}:
            if len(word) == 1:
                for pos in _one_character_value(t, word, by_column[hit.column]):
                    bucket = spans.setdefault((pos, pos + 1), [])
                    if (by_column[hit.column], hit.value) not in bucket:
                        bucket.append((by_column[hit.column], hit.value))
                continue
            if len(word) < 2 or (word.isdigit() and len(word) < 4):
                continue
            for form in word_forms(word) if word.isascii() and " " not in word else [word]:
                for pos in t.find_all(form):  # "hotels" for a cell "Hotel"
                    bucket = spans.setdefault((pos, pos + len(form)), [])
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
            if tail.startswith(suffix) and t.free(end, end + len(suffix)) and not tail.startswith("区域"):
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


def negate_values(t: QuestionText, values: list[ValueMention]) -> None:
    """A negation word right before a value (or a run of values joined by 和/、/or) negates them; 以外 after too."""
    text = t.text
    for i, value in enumerate(values):
        j = value.start
        while j > 0 and text[j - 1] in " 的":
            j -= 1
        j = _before_prepositions(text, j)  # "not in Engineering", "excluding the West": the negation before them
        for word in sorted(NEGATION_BEFORE, key=len, reverse=True):
            s = j - len(word)
            if s >= 0 and text[s:j] == word and t.free(s, j) and bounded(text, s, j):
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


_PREPOSITIONS = re.compile(r"(?:\b(?:in|from|at|of|the|to|for|on|based in|working in|work in)\s+)+$")


def _before_prepositions(text: str, end: int) -> int:
    """Where a run of English prepositions ending at ``end`` starts (``end`` when there is none)."""
    match = _PREPOSITIONS.search(text[:end] + " ")
    if match is None or match.start() >= end:
        return end
    start = match.start()
    while start > 0 and text[start - 1] == " ":
        start -= 1
    return start


def _negate_run(t: QuestionText, values: list[ValueMention], index: int, *, backwards: bool = False) -> None:
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


#: Cell-value pairs of a yes/no column ("Reimbursed": Yes / No, "是否报销": 是 / 否), the "yes" value first.
_FLAG_PAIRS = (("yes", "no"), ("y", "n"), ("true", "false"), ("是", "否"), ("有", "无"))
#: Words right before a yes/no column's name that ask for its "no" rows ("not reimbursed", "未报销").
_FLAG_NEGATIONS = ("还没有", "还没", "还未", "尚未", "没有", "没", "未", "不", "not", "never", "non-")
#: Words right before a yes/no column's name that ask about the column itself, not for its "yes" rows.
_FLAG_ASKS = ("是否", "有没有", "whether", "if", "by", "按")


def link_flags(t: QuestionText, table: TableInfo, store: TableStore) -> list[ValueMention]:
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
        if column.name.isascii() and " " in core:
            terms += [core.replace(" ", "-")]  # "full-time employees" for a column "Full-time"
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
                if before.endswith(word) and (not word.isascii() or cut == 0 or not ASCII_WORD.match(before[cut - 1])) \
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


#: "还没开始", "尚未完成": the ways a question negates a verb that a cell writes as "未开始", "未完成".
_NEGATED_VERB = re.compile(r"(?:还没有|还没|还未|尚未|没有|没)(?=[\u4e00-\u9fff])")


def negation_as_value(text: str, table: TableInfo, store: TableStore) -> str:
    """The question with "还没/尚未/没有 X" written "未X" when the table holds a cell "未X" there; else unchanged."""
    if not _NEGATED_VERB.search(text):
        return text
    rewritten = _NEGATED_VERB.sub("未", text)
    hits = store.values_in([table.table_id], rewritten)
    if any(h.norm.startswith("未") and len(h.norm) >= 2 and h.norm not in text for h in hits):
        return rewritten
    return text
