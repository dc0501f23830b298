"""Column names in a table question: exact names, synonyms, header parts, partial and counted names.

Why: a column the question names is a measure to compute, a grouping or a condition's column; a word that
only begins a column name ("客户" of 客户名称) still names it, but a word that merely modifies a measure
("销售" of 销售金额) must not become a column of its own.
"""

from __future__ import annotations

import re
from functools import lru_cache

from indexing.table_store import ColumnInfo, TableInfo
from retrieval.handlers.columns import column_core
from retrieval.tables.lexicon import TIME_UNITS, column_synonyms
from retrieval.tables.linked import ColumnMention, Linked, QuestionText

__all__ = ["column_terms", "counted_columns", "drop_measure_modifiers", "link_columns", "merge_header_parts",
           "partial_columns", "row_key_nouns", "starts_column_word", "word_forms"]

_TIME_UNIT_WORDS = frozenset(w for words in TIME_UNITS.values() for w in words if not w.isascii())


def column_terms(column: ColumnInfo) -> list[tuple[str, str]]:
    """(term, kind) pairs that name a column: its full core name, each header part, their synonyms (cached by the
    column's name and header path: asked for every column of every table in scope, per question)."""
    return list(_column_terms(column.name, tuple(column.path)))


@lru_cache(maxsize=65_536)
def _column_terms(name: str, path: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    cores = []
    full = column_core(name).replace(" / ", "").replace(" ", "") if len(path) > 1 else column_core(name)
    cores.append(full)
    cores += [column_core(p) for p in path]
    terms: list[tuple[str, str]] = []
    for core in dict.fromkeys(c for c in cores if c):
        if len(core) >= 2:
            terms += [(form, "exact") for form in word_forms(core)]
        for group in column_synonyms():
            if core in group:
                terms += [(form, "synonym") for w in group if w != core and len(w) >= 2 for form in word_forms(w)]
    return tuple(terms)


def word_forms(word: str) -> list[str]:
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


def link_columns(t: QuestionText, table: TableInfo, kinds_wanted: tuple[str, ...]) -> list[ColumnMention]:
    """Exact names (or synonyms), longest span first; equal spans naming several columns stay ambiguous."""
    by_span: dict[tuple[int, int], dict[str, list[ColumnInfo]]] = {}
    for column in table.columns:
        for term, kind in column_terms(column):
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


def merge_header_parts(mentions: list[ColumnMention]) -> list[ColumnMention]:
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


def starts_column_word(text: str, pos: int, table: TableInfo) -> bool:
    """Whether the character at ``pos`` begins or ends a two-character piece of a column name ("项目" of 项目名称)."""
    pairs = [text[pos:pos + 2], text[max(0, pos - 1):pos + 1]]
    pairs = [p for p in pairs if len(p) == 2 and not p.isascii()]
    return any(p in column_core(c.name) for c in table.columns for p in pairs)


def drop_measure_modifiers(mentions: list[ColumnMention]) -> list[ColumnMention]:
    """"销售金额": a synonym match ("销售" for 销售员) that ends where a measure's name begins modifies that
    measure; it names no column of its own."""
    measure_starts = {m.start for m in mentions if m.columns and all(c.is_measure for c in m.columns)}
    return [m for m in mentions
            if not (m.kind == "synonym" and m.end in measure_starts and not any(c.is_measure for c in m.columns))]


def _names_a_column(word: str, table: TableInfo) -> bool:
    """Whether ``word`` begins or ends a column name or is a column synonym: only such a word can modify the
    measure after it ("销售金额"); any other word there ("低于安全库存", a comparison with another column) is
    a condition the linker does not read, and must be reported, not swallowed."""
    terms = {term for column in table.columns for term, _ in column_terms(column)}
    cores = [column_core(c.name).replace(" ", "") for c in table.columns]
    return word in terms or any(core.startswith(word) or core.endswith(word) for core in cores) or any(
        word in group for group in column_synonyms())


def partial_columns(
    t: QuestionText, table: TableInfo, mentions: list[ColumnMention] | None = None
) -> list[ColumnMention]:
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
            kind = "qualified" if all(_qualified(c, word) for c in columns) else "partial"
            for pos in t.find_all(word):
                out.append(ColumnMention(pos, pos + len(word), word, columns, kind))
                t.take(pos, pos + len(word), content=True)
    return out


#: Words that restrict what follows them in a column name: "安全库存" is not the stock, "预算金额" not the amount.
_QUALIFIERS = ("安全", "最低", "最高", "最小", "最大", "目标", "预算", "计划", "预计", "期初", "期末", "上月", "上年",
               "去年", "平均", "标准", "额定", "累计", "应付", "应收", "已付", "未付")


def _qualified(column: ColumnInfo, word: str) -> bool:
    """"库存" read as 安全库存: the column's name is the word after a restricting qualifier."""
    core = column_core(column.name).replace(" ", "")
    return core.endswith(word) and core[: -len(word)] in _QUALIFIERS


def row_key_nouns(mentions: list[ColumnMention], table: TableInfo, linked: Linked) -> list[ColumnMention]:
    """"network tickets", "the most tickets" with a column Ticket that holds one key per row: the plural names
    the rows (a row noun), not the column (which would ask "group by Ticket?")."""
    out = []
    for m in mentions:
        column = m.column
        core = column_core(column.name).strip()
        key = column.kind == "text" and (column.identifier or column.distinct == table.row_count)
        if len(m.columns) == 1 and key and m.text.isascii() and m.text != core and m.text.endswith("s"):
            linked.row_noun = True
            linked.row_key = column  # "which items": a list names these keys
            continue
        out.append(m)
    return out



_COUNTED = re.compile(r"^(.{1,6}?)([次天人件台个项])数$")


def counted_columns(t: QuestionText, table: TableInfo) -> list[ColumnMention]:
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
