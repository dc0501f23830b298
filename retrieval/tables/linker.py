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
from functools import cache, lru_cache

from indexing.table_store import TableInfo, TableStore, ValueHit
from retrieval.handlers.columns import column_core
from retrieval.rules.normalize import normalize
from retrieval.tables.identity import affinity, link_file_name, link_identity
from retrieval.tables.lexicon import (
    ASKS_DATE,
    FILLERS,
    NEGATION_AFTER,
    NEGATION_BEFORE,
    OP_WORDS,
    ROW_NOUNS,
    ROW_VERBS,
    SOLD_UNITS,
)
from retrieval.tables.link_columns import (
    column_terms,
    counted_columns,
    drop_measure_modifiers,
    link_columns,
    merge_header_parts,
    partial_columns,
    row_key_nouns,
    starts_column_word,
)
from retrieval.tables.link_compare import link_column_comparisons
from retrieval.tables.link_heads import link_counted_head, link_number_units
from retrieval.tables.link_numbers import link_numeric, link_topk
from retrieval.tables.link_rank import link_group_and_rank
from retrieval.tables.link_translate import translate_values
from retrieval.tables.link_values import link_flags, link_values, negate_values, negation_as_value
from retrieval.tables.linked import Linked, QuestionText
from retrieval.tables.timeexpr import find_time_exprs

__all__ = ["link_table"]


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


@cache
def _sorted_vocabulary() -> tuple[tuple[str, str, bool], ...]:
    """(word, kind, is a row verb) longest first, ties in list order: built once, not once per table."""
    vocabulary: list[tuple[str, str, bool]] = [(w, f"op:{op}", False) for op, words in OP_WORDS.items() for w in words]
    vocabulary += [(w, "row", False) for w in ROW_NOUNS]
    vocabulary += [(w, "negation", False) for w in NEGATION_BEFORE + NEGATION_AFTER]
    vocabulary += [(w, "filler", False) for w in FILLERS]
    vocabulary += [(w, "filler", True) for w in ROW_VERBS]
    return tuple(sorted(vocabulary, key=lambda wk: -len(wk[0])))


@lru_cache(maxsize=1024)
def _vocabulary_in(text: str) -> tuple[tuple[str, str, bool], ...]:
    """The vocabulary entries the text contains, in pass order: once per question, not once per table in scope."""
    return tuple(entry for entry in _sorted_vocabulary() if entry[0] in text)


def _consume_vocabulary(t: QuestionText, linked: Linked) -> None:
    """Operation words, row nouns, negations and fillers in ONE longest-first pass ("汇总" before "总").

    Row verbs count as fillers only for a table none of whose column names holds them; words the question does
    not contain are skipped before anything else (the pass runs once per table in scope)."""
    cores = [column_core(c.name).replace(" ", "") for c in linked.table.columns]
    seen: set[tuple[str, str]] = set()
    for word, kind, row_verb in _vocabulary_in(t.text):
        if (word, kind) in seen or (row_verb and any(word in core for core in cores)):
            continue
        seen.add((word, kind))
        for pos in t.find_all(word):
            if len(word) == 1 and starts_column_word(t.text, pos, linked.table):
                continue  # "项" of "项目" (a column 项目名称) is no row noun
            t.take(pos, pos + len(word))
            if kind.startswith("op:") and kind[3:] not in linked.ops:
                linked.ops.append(kind[3:])
            elif kind == "row":
                linked.row_noun = True
            elif kind == "negation":
                linked.unattached_negation.append(word)


def link_table(question: str, table: TableInfo, store: TableStore, hits: list[ValueHit] | None = None) -> Linked:
    """Link a question (raw; normalised here) to one stored table."""
    text = normalize(question)
    negated, grown, borrowed = translate_values(negation_as_value(text, table, store), table, store)
    if negated != text:
        text, hits = negated, None  # "还没开始" read as the cell value "未开始": the hits are looked up again
    t = QuestionText(text)
    linked = Linked(table=table, text=text, borrowed=borrowed)
    _free_of(t, linked)
    link_file_name(t, table)
    flags = link_flags(t, table, store)
    linked.mentions = row_key_nouns(link_columns(t, table, ("exact",)), table, linked)
    _link_sheet_names(t, linked)
    for expr in find_time_exprs(text):
        if t.free(expr.start, expr.end):
            t.take(expr.start, expr.end)
            linked.times.append(expr)
    link_topk(t, linked)
    if hits is None:
        hits = store.values_in([table.table_id], text)
    linked.values = sorted(link_values(t, table, hits) + flags, key=lambda v: v.start)
    linked.mentions = merge_header_parts(linked.mentions + link_columns(t, table, ("synonym",)))
    linked.mentions = drop_measure_modifiers(linked.mentions)
    negate_values(t, linked.values)
    linked.numeric = link_numeric(t, linked.mentions)
    linked.column_cmps = [(c.left, c.op, c.right, c.text) for c in link_column_comparisons(t, linked)]
    link_group_and_rank(t, linked)
    linked.mentions += counted_columns(t, table)
    _link_sold_units_and_dates(t, linked)
    linked.identity = link_identity(t, table)
    if linked.identity:
        linked.row_noun = True  # "多少份采购合同", "the most claims": the table's own name names its rows
    link_number_units(t, linked)
    link_counted_head(t, linked)
    before_vocabulary = [u or b for u, b in zip(t.used, t.blank, strict=True)]
    _consume_vocabulary(t, linked)
    linked.mentions += partial_columns(t, table, linked.mentions)
    linked.leftover = _leftover_runs(text, before_vocabulary, t.used)
    linked.affinity = affinity(text, table, t.is_content)
    linked.content = t.content - grown  # a translated value counts as the words the question wrote
    dated = (linked.times or linked.group_unit) and any(c.is_date for c in table.columns)
    linked.coverage = linked.content + linked.affinity + (1 if dated else 0)
    return linked


#: "free of advertising", "advertising-free": a negation of what follows (or precedes), never the cell "Free".
_FREE_OF = re.compile(r"\bfree\s+(?:of|from)\b|-free\b|\bfree-of\b", re.IGNORECASE)


def _free_of(t: QuestionText, linked: Linked) -> None:
    """Why: "how many websites are free of advertising" over a Cost column holding "Free" read as Cost = Free;
    the words negate the advertising, which no rule here turns into a condition, so the parse stays incomplete."""
    for m in _FREE_OF.finditer(t.text):
        if t.free(m.start(), m.end()):
            t.take(m.start(), m.end())
            linked.unattached_negation.append(m.group(0).strip())


def _link_sheet_names(t: QuestionText, linked: Linked) -> None:
    """The sheet, table name or caption named in the question says which table is meant."""
    table, text = linked.table, t.text
    terms = {term for column in table.columns for term, _ in column_terms(column)}
    cores = [column_core(c.name).replace(" ", "") for c in table.columns]
    for name in {normalize(n) for n in (table.sheet, table.name, table.caption) if n}:
        if len(name) >= 2 and name not in ROW_NOUNS:
            for pos in t.find_all(name):
                if name in terms or any(core.startswith(name) for core in cores):
                    # a sheet called "客户" with a column "客户名称", "预算" with 预算金额: the word links the column
                    linked.sheet_named = True
                elif not _inside_word(text, pos, pos + len(name)):
                    t.take(pos, pos + len(name), content=True)
                    linked.sheet_named = True


def _link_sold_units_and_dates(t: QuestionText, linked: Linked) -> None:
    """"卖出了多少台" asks for a quantity's sum; "是哪天入职的" asks for a date cell."""
    text = t.text
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


def _leftover_runs(text: str, before_vocabulary: list[bool], used: list[bool]) -> list[str]:
    """Report what is left as the question wrote it: the whole run of words around an unknown one."""
    runs: list[str] = []
    current: list[str] = []
    unknown = False
    for ch, was_used, now_used in zip(text, before_vocabulary, used, strict=True):
        if was_used:
            if current and unknown:
                runs.append("".join(current).strip())
            current, unknown = [], False
            continue
        current.append(ch)
        unknown = unknown or not now_used
    if current and unknown:
        runs.append("".join(current).strip())
    return [r for r in runs if r]
