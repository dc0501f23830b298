"""Numbers in a table question: comparisons and ranges on a column ("超过5万", "between 10 and 20") and top-k.

Why: a numeric condition left unread answers over all rows; it is linked to the column named right before it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from retrieval.tables.linked import ColumnMention, Linked, NumericCondition, QuestionText, bounded
from retrieval.tables.timeexpr import cn_number

__all__ = ["link_numeric", "link_topk"]

_GAP = re.compile(r"^(?:[\s的为是在了]{0,3}|\s(?:of|is|was|are|were|of the)\s)$")  # "rating of at least 4"
_NUMBER = r"(-?\d[\d,]{0,15}(?:\.\d{1,6})?|[零一二三四五六七八九十百千万亿两]{1,8})\s{0,1}(万|千|亿|k|w)?"
_UNIT = r"\s{0,1}(?:万元|元|块钱|块|美元|个|件|笔|单|条|人|次|天|小时|台|分钟|%|rmb|usd|yuan)?"
_CMP_WORDS: list[tuple[str, str]] = [
    (">=", r"大于等于|大于或等于|不少于|不低于|至少|>=|≥|greater than or equal to|at least|no less than"),
    ("<=", r"小于等于|小于或等于|不超过|不高于|不多于|至多|<=|≤|less than or equal to|at most|no more than"),
    (">", r"大于|超过|高于|多于|>|greater than|more than|higher than|above|over|exceeding|exceeds"),
    ("<", r"小于|低于|少于|不足|<|less than|lower than|below|under"),
    ("=", r"等于|==|=|为|equal to|equals|是|is|of"),
]
#: Copulas that state equality only right after a column ("安全库存是30的", "score is 5"); elsewhere ("是2023年",
#: "one of 3") they say nothing about a column.
_COPULAS = ("是", "is", "of")
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


def _mention_before(mentions: list[ColumnMention], t: QuestionText, pos: int) -> ColumnMention | None:
    best = None
    for m in mentions:
        if m.end <= pos and _GAP.match(t.text[m.end:pos]) and (best is None or m.end > best.end):
            best = m
    return best


#: Units and nouns after a number that count rows ("5笔", "3 orders"): the condition is on a count per group.
_ROW_UNITS = re.compile(r"\s{0,1}(?:笔|单|条|次|张|份|个订单|项|claims?|orders?|tickets?|records?|rows?|entries|"
                        r"transactions?|times)(?![a-z])")


def _mention_after(mentions: list[ColumnMention], t: QuestionText, pos: int) -> ColumnMention | None:
    """"more than 10 units", "超过3天请假": the numeric column named right after the number is its column."""
    for m in mentions:
        if m.start >= pos and not t.text[pos:m.start].strip() and _numeric(m):
            return m
    return None


def _counts_rows(text: str, end: int, matched: str) -> bool:
    return matched.rstrip().endswith(("笔", "单", "条")) or _ROW_UNITS.match(text, end) is not None


def _numeric(mention: ColumnMention) -> bool:
    return all(c.kind == "decimal" for c in mention.columns)


def link_numeric(t: QuestionText, mentions: list[ColumnMention]) -> list[NumericCondition]:
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
        if not t.free(m.start(), m.end()) or not bounded(text, m.start(), m.start() + len(m.group(1))):
            continue
        value = _parse_number(m.group(2), m.group(3))
        mention = _mention_before(mentions, t, m.start()) or _mention_after(mentions, t, m.end())
        if value is None or (m.group(1) in _COPULAS and (mention is None or not _numeric(mention))):
            continue
        if mention is None and _counts_rows(t.text, m.end(), m.group(0)):
            continue  # "filed more than 5 claims", "超过5笔的客户": a count per group, not a value of a column
        op = next(sym for sym, alts in _CMP_WORDS if re.fullmatch(alts, m.group(1)))
        out.append(NumericCondition(m.start(), m.end(), m.group(0), op, value, None, mention))
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


def link_topk(t: QuestionText, linked: Linked) -> None:
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
