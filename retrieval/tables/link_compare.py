"""Comparisons between two columns of the same row: "库存数量低于最低库存", "实际金额高于预算", "actual above budget".

Why a module of its own: a comparison word between two numeric columns is a row condition ("实际金额 > 预算金额"),
not a number to compare with; left unread it makes the question refuse, read as a number comparison it would
not parse. The right-hand column is often shortened ("高于预算" for 预算金额), so a word that begins exactly one
numeric column's name names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexing.table_store import ColumnInfo
from retrieval.handlers.columns import column_core
from retrieval.tables.link_columns import column_terms
from retrieval.tables.linked import ColumnMention, Linked, QuestionText, bounded

__all__ = ["ColumnComparison", "link_column_comparisons"]

_WORDS: dict[str, str] = {}
for _op, _alts in ((">=", "不低于|不少于|不小于|大于等于|at least|no less than|not less than"),
                   ("<=", "不高于|不超过|不多于|不大于|小于等于|at most|no more than|not more than"),
                   (">", "高于|超过|大于|多于|超出|greater than|more than|higher than|larger than|above|"
                         "exceeds|exceeded|exceeding|over"),
                   ("<", "低于|小于|少于|不足|less than|lower than|smaller than|below|under")):
    for _word in _alts.split("|"):
        _WORDS[_word] = _op
_CMP = re.compile("|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True)))
_GAP = re.compile(r"(?:[\s的是了]|the\b|its\b|their\b){0,3}")
#: "现存数量比安全库存低": the comparison word comes after the second column
_BI = re.compile("比")
_BI_WORDS = {"高": ">", "多": ">", "大": ">", "贵": ">", "低": "<", "少": "<", "小": "<", "便宜": "<"}
_BI_AFTER = re.compile(r"[\s的还]{0,2}(便宜|高|多|大|贵|低|少|小)")


@dataclass(slots=True)
class ColumnComparison:
    """``left op right`` on each row; both columns numeric."""

    start: int
    end: int
    text: str
    left: ColumnInfo
    op: str
    right: ColumnInfo


def _numeric(columns: list[ColumnInfo]) -> ColumnInfo | None:
    return columns[0] if len(columns) == 1 and columns[0].kind == "decimal" else None


def _mention_before(linked: Linked, text: str, pos: int) -> ColumnMention | None:
    for m in linked.mentions:
        if m.end <= pos and _GAP.fullmatch(text[m.end:pos]) and _numeric(m.columns) is not None:
            return m
    return None


def _column_after(t: QuestionText, linked: Linked, pos: int) -> tuple[ColumnInfo, int, ColumnMention | None] | None:
    """The numeric column named right after ``pos``: a linked mention, else a word that begins exactly one
    numeric column's name or synonym ("预算" for 预算金额)."""
    pos += len(_GAP.match(t.text, pos).group(0))  # type: ignore[union-attr]
    for m in linked.mentions:
        column = _numeric(m.columns)
        if m.start == pos and column is not None:
            return column, m.end, m
    found: dict[int, list[ColumnInfo]] = {}
    for column in linked.table.columns:
        if column.kind != "decimal":
            continue
        words = [column_core(column.name).replace(" ", "")] + [term for term, _ in column_terms(column)]
        for word in words:
            for k in range(len(word), 1, -1):
                end = pos + k
                if t.text.startswith(word[:k], pos) and t.free(pos, end) and bounded(t.text, pos, end):
                    found.setdefault(end, [])
                    if column not in found[end]:
                        found[end].append(column)
                    break
    if not found:
        return None
    end = max(found)
    return (found[end][0], end, None) if len(found[end]) == 1 else None


def link_column_comparisons(t: QuestionText, linked: Linked) -> list[ColumnComparison]:
    """Every "<numeric column> <comparison word> <numeric column>" in the question; the two mentions become the
    comparison's (they name no measure to compute)."""
    out: list[ColumnComparison] = []
    for match in _CMP.finditer(t.text):
        start, end = match.span()
        if not t.free(start, end) or not bounded(t.text, start, end):
            continue
        left = _mention_before(linked, t.text, start)
        right = _column_after(t, linked, end)
        if left is None or right is None or right[0] == left.column:
            continue
        column, right_end, right_mention = right
        t.take(start, right_end, content=True)
        linked.mentions = [m for m in linked.mentions if m is not left and m is not right_mention]
        out.append(ColumnComparison(left.start, right_end, t.text[left.start:right_end], left.column,
                                    _WORDS[match.group(0)], column))
    return out + _link_bi(t, linked)


def _link_bi(t: QuestionText, linked: Linked) -> list[ColumnComparison]:
    """"A比B高/低": the comparison word follows the second column."""
    out: list[ColumnComparison] = []
    for match in _BI.finditer(t.text):
        start, end = match.span()
        left = _mention_before(linked, t.text, start) if t.free(start, end) else None
        right = _column_after(t, linked, end) if left is not None else None
        after = _BI_AFTER.match(t.text, right[1]) if right is not None else None
        if left is None or right is None or after is None or right[0] == left.column:
            continue
        t.take(start, after.end(), content=True)
        linked.mentions = [m for m in linked.mentions if m is not left and m is not right[2]]
        out.append(ColumnComparison(left.start, after.end(), t.text[left.start:after.end()], left.column,
                                    _BI_WORDS[after.group(1)], right[0]))
    return out
