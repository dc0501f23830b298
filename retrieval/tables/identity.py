"""The table's own names in a question: words of its file, sheet, name and caption, and its people columns.

Why: "订单" of 订单台账.xlsx says which table is meant and names its rows; how much of the question such
words cover ranks one table against another.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePath

from indexing.table_store import ColumnInfo, TableInfo
from retrieval.handlers.columns import column_core
from retrieval.rules.normalize import normalize
from retrieval.tables.lexicon import FILLERS, OP_WORDS, name_synonyms
from retrieval.tables.link_columns import word_forms
from retrieval.tables.linked import QuestionText, bounded
from retrieval.tables.timeexpr import find_time_exprs

__all__ = ["affinity", "file_names", "identity_words", "link_file_name", "link_identity", "person_columns"]

PERSON_HINTS = ("姓名", "员工", "销售员", "业务员", "负责人", "经手人", "经理", "人员", "联系人", "name", "salesperson",
                "employee", "rep", "owner", "manager")


def identity_words(table: TableInfo) -> list[str]:
    """Words of the table's file name, sheet, name and caption (normalised, two characters or more, no years),
    longest first: what a user calls the table ("订单台账", "订单", "expense claims", "claims"), and the file
    name itself ("sales.csv").

    Cached by those names: the linker asks three times per table in scope, for every question."""
    return list(_all_identity_words(table.path, table.sheet or "", table.name or "", table.caption or ""))


@lru_cache(maxsize=16_384)
def _all_identity_words(path: str, sheet: str, name: str, caption: str) -> tuple[str, ...]:
    words = _identity_words(PurePath(path).stem, sheet, name, caption)
    return tuple(sorted({*words, *_file_names(path)}, key=len, reverse=True))


@lru_cache(maxsize=16_384)
def _identity_words(*names: str) -> tuple[str, ...]:
    from officeqa.text_tokens import tokenize_for_bm25

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
    out += [other for group in name_synonyms() if group & set(out) for other in group if len(other) >= 2]
    return tuple(sorted(set(out), key=len, reverse=True))


def file_names(table: TableInfo) -> list[str]:
    """The table's whole file name, extension included ("sales.csv"), when it has one."""
    return list(_file_names(table.path))


@lru_cache(maxsize=16_384)
def _file_names(path: str) -> tuple[str, ...]:
    """Cached by path: the linker asks for every table in scope, for every question (a path parse each)."""
    return (normalize(PurePath(path).name),) if PurePath(path).suffix else ()


def link_file_name(t: QuestionText, table: TableInfo) -> None:
    """Consume the table's whole file name first ("sales.csv中amount的合计"): its stem may also read as a column
    word ("sales"), and its extension is no unknown word of the question."""
    for name in file_names(table):
        for pos in t.find_all(name):
            t.take(pos, pos + len(name))


def link_identity(t: QuestionText, table: TableInfo) -> list[str]:
    """Consume the table's name words; a word inside a column name ("供应商" of 供应商名称, "年度" of
    占年度销售总额比例) is left for the column."""
    cores = [column_core(c.name).replace(" ", "") for c in table.columns]
    found = []
    for word in identity_words(table):
        if any(word in core for core in cores):
            continue
        for form in word_forms(word):
            for pos in t.find_all(form):
                if _begins_count_word(t.text, pos, pos + len(form)):
                    continue  # "订单数": the count word, not the table's name
                t.take(pos, pos + len(form))
                found.append(form)
    return found


def _begins_count_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] begins a count word there ("订单" of "订单数"): the rows are counted, and the word
    is left for the count."""
    return any(text.startswith(word, start) for words in OP_WORDS.values() for word in words
               if len(word) > end - start and word.endswith("数"))


def affinity(text: str, table: TableInfo, content: list[bool]) -> int:
    """Characters of the question that the table's file, sheet or table name covers ("订单" of 订单明细) and
    that no column or value already explains: how much more the question says which table it means."""
    covered = list(content)
    for word in identity_words(table):
        for form in word_forms(word):
            pos = text.find(form)
            while pos >= 0:
                if bounded(text, pos, pos + len(form)):
                    covered[pos:pos + len(form)] = [True] * len(form)
                pos = text.find(form, pos + 1)
    return sum(covered) - sum(content)


def person_columns(table: TableInfo) -> list[ColumnInfo]:
    """Text columns that name people (for "谁…最高"): a person word in the name, or a name ending in 人 (报销人,
    申请人, 责任人)."""
    return [c for c in table.columns if c.kind == "text" and not c.identifier
            and (any(h in normalize(c.name) for h in PERSON_HINTS) or normalize(c.name).endswith("人"))]
