"""Grouping and ranking markers in a table question: "哪个区域最高", "按月汇总", "是谁", "which category".

Why: the marker says which column (or time unit) the answer is grouped by and whether the top group is asked for.
"""

from __future__ import annotations

import re

from indexing.table_store import TableInfo
from retrieval.handlers.columns import column_core
from retrieval.tables.identity import identity_words
from retrieval.tables.lexicon import ARGMAX_WORDS, GROUP_MARKERS, TIME_UNITS
from retrieval.tables.linked import ColumnMention, Linked, QuestionText, bounded

__all__ = ["link_group_and_rank"]

def _mention_at(
    mentions: list[ColumnMention], t: QuestionText, pos: int, skip: tuple[str, ...] = ()
) -> ColumnMention | None:
    """The column mention right after ``pos`` ("哪个区域"); words of the table's own name may stand between
    ("which expense category": "expense" names the table)."""
    for m in mentions:
        gap = t.text[pos:m.start] if m.start >= pos else None
        if gap is None:
            continue
        if re.fullmatch(r"[\s个一的]{0,2}|(?:the\s)?", gap) or (gap.strip() and gap.strip() in skip):
            return m
    return None


def _partial_at(t: QuestionText, table: TableInfo, pos: int) -> ColumnMention | None:
    """"哪家单位" with a column 对方单位: the two to four characters after ``pos`` that begin or end exactly one
    column name."""
    start = pos
    while start < len(t.text) and t.text[start] in " 的":
        start += 1
    for size in (4, 3, 2):
        end = start + size
        word = t.text[start:end]
        if len(word) < size or not t.free(start, end) or not bounded(t.text, start, end):
            continue
        columns = [c for c in table.columns if (core := column_core(c.name).replace(" ", "")) != word
                   and (core.startswith(word) or core.endswith(word))]
        if len(columns) == 1:
            t.take(start, end, content=True)
            return ColumnMention(start, end, word, columns, "partial")
    return None


def link_group_and_rank(t: QuestionText, linked: Linked) -> None:
    """The first ranking marker found (which/哪个 before a column or time unit, "最高的…是哪个", 谁) decides the
    ranking; without one, grouping markers (按, 各, by) set the grouping."""
    if _link_argmax(t, linked) or _link_asks_which(t, linked) or _link_who(t, linked):
        return
    _link_group_markers(t, linked)


def _link_argmax(t: QuestionText, linked: Linked) -> bool:
    """"哪个区域", "which month": the ranked group is the column (or time unit) right after the word."""
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
            if mention is not None and _plural_without_extreme(word, mention, linked):
                linked.ops.append("list")  # "which cities did the Sales team visit": every city, not the top one
                t.take(pos, end)
                return True
            if mention is not None and not _asks_extreme(linked):
                t.take(pos, end)  # "李子涵在哪个部门": the cell of that row, no ranking
                return True
            if mention is not None:
                linked.group_mention, linked.argmax = mention, True
                t.take(pos, end)
                return True
            if unit is not None:
                linked.group_unit, linked.argmax = unit[0], True
                t.take(pos, unit[1])
                return True
    return False


_EXTREME_WORDS = re.compile(r"\b(?:most|least|fewest|highest|lowest|largest|smallest|biggest|max|min|maximum|minimum|"
                            r"top|bottom|best|worst)\b")


_EXTREME_ZH = re.compile(r"最|第一|第二|第三|前\s{0,1}[\d一二三四五六七八九十两]|倒数|排名|多于|少于|超过|高于|低于")


def _asks_extreme(linked: Linked) -> bool:
    """Whether "哪个/which" ranks ("哪个部门的人最多") rather than asks for a cell ("李子涵在哪个部门")."""
    return bool(linked.topk) or _EXTREME_ZH.search(linked.text) is not None or \
        _EXTREME_WORDS.search(linked.text) is not None


def _plural_without_extreme(word: str, mention: ColumnMention, linked: Linked) -> bool:
    """"which cities" with no "most"/"highest": a plural asks for the list of values, not one ranked value."""
    return word in ("which", "what") and mention.text.endswith("s") and \
        column_core(mention.column.name).lower().replace(" ", "") != mention.text.replace(" ", "") and \
        linked.topk is None and _EXTREME_WORDS.search(linked.text) is None


def _link_asks_which(t: QuestionText, linked: Linked) -> bool:
    text = t.text
    for word in _ASKS_WHICH:
        for pos in t.find_all(word):
            if pos + len(word) >= len(text.rstrip("?？。 ")) and (_maxmin_before(text, pos)):
                # "最高的产品是哪个": the extreme is asked for, its group is the column named before
                linked.argmax = True
                t.take(pos, pos + len(word))
                return True
    return False


def _link_who(t: QuestionText, linked: Linked) -> bool:
    for word in ("是谁", "谁", "who"):
        for pos in t.find_all(word):
            linked.person_argmax = linked.argmax = True
            t.take(pos, pos + len(word))
            return True
    return False


def _link_group_markers(t: QuestionText, linked: Linked) -> None:
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


_ASKS_WHICH = ("是哪一个", "是哪一家", "是哪一位", "是哪个", "是哪家", "是哪位", "是哪种", "是哪类", "是什么")
_EXTREMES = ("最高", "最大", "最多", "最低", "最小", "最少", "最贵", "最便宜")


def _maxmin_before(text: str, pos: int) -> bool:
    return any(w in text[:pos] for w in _EXTREMES)


def _unit_at(t: QuestionText, pos: int) -> tuple[str, int] | None:
    rest = t.text[pos:pos + 8]
    skip = len(rest) - len(rest.lstrip())
    if t.text[pos + skip:pos + skip + 1] == "个":
        skip += 1
    for unit, words in TIME_UNITS.items():
        for word in sorted(words, key=len, reverse=True):
            start = pos + skip
            if t.text.startswith(word, start) and t.free(start, start + len(word)) \
                    and bounded(t.text, start, start + len(word)):
                return unit, start + len(word)
    return None
