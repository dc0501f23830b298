"""Read a handler's parameters from the (normalised) instruction: operation, columns, condition.

Why phrases and not column indexes: routing happens before any document is opened,
so this module only cuts the instruction into content phrases ("按地区汇总销售额" ->
group "地区", value "销售额", op sum); the table handlers resolve the phrases against
real headers fuzzily. Function words (verbs, particles, operation words) split the
instruction; what remains are the phrases. All patterns are bounded.
"""

from __future__ import annotations

import re
from typing import Any

from officeqa.scripts import HAN, has_han

# Operation words, checked in this order (the first family found wins).
_OPS: list[tuple[str, tuple[str, ...]]] = [
    ("avg", ("平均", "均值", "average", "avg", "mean")),
    ("max", ("最高", "最大", "最多", "max", "maximum", "highest", "largest", "biggest")),
    ("min", ("最低", "最小", "最少", "min", "minimum", "lowest", "smallest")),
    ("count", ("多少条", "几条", "条数", "多少个", "几个", "多少笔", "几笔", "多少单", "几单", "个数",
               "记录数", "订单数", "行数", "how many", "number of", "count")),
    ("sum", ("汇总", "合计", "求和", "总和", "总计", "总额", "加总", "小计", "sum", "total")),
]

_GROUP_MARKERS_CN = ("按照", "根据", "按", "各个", "各", "每一个", "每个", "每种", "每类", "分")
_GROUP_MARKERS_EN = ("grouped by", "group by", "broken down by", "breakdown by", "for each", "for every", "by",
                     "per", "each", "across")

# Function words that separate phrases (longest first when compiled).
_CN_STOP = (
    "请问", "请", "帮我", "帮忙", "麻烦", "给我", "一下", "计算", "统计", "算一下", "算算",
    "看看", "看一下", "列出", "显示", "汇总", "合计", "求和", "总和", "总计", "总额", "加总",
    "小计", "平均值", "平均", "均值", "最大值", "最小值", "最大", "最小", "最高", "最低",
    "最多", "最少", "按照", "根据", "按", "各个", "各", "每一个", "每个", "每种", "每类",
    "分别是", "分别", "分组", "进行", "的", "是多少", "多少", "是什么", "有多少", "一共",
    "总共", "多少条", "几条", "条数", "个数", "表格", "表中", "表里", "里面", "中的", "里的",
    "所有", "全部", "以及", "和", "及", "了", "吧", "呢", "吗", "是", "有哪些", "哪些",
    "都有什么", "有什么", "不重复", "去重后", "去重", "唯一", "取值", "列表", "清单", "值",
    "情况", "数据", "各自", "分布", "对应",
)
_EN_STOP = {
    "what", "is", "are", "the", "a", "an", "of", "me", "show", "give", "list", "tell", "please", "calculate", "compute",
    "sum", "total", "totals", "average", "avg", "mean", "max", "maximum", "min", "minimum", "highest", "lowest",
    "largest", "smallest", "by", "per", "each", "for", "every", "group", "grouped", "broken", "down", "breakdown",
    "and", "in", "across", "all", "table", "sheet", "how", "many", "number", "count", "rows", "records", "distinct",
    "unique", "values", "value", "column", "there", "do", "we", "have", "get", "find", "which", "different", "up",
    "add", "to",
    "whats", "what's", "that", "this", "with", "where", "whose",
}
_CN_STOP_RE = re.compile("|".join(sorted((re.escape(w) for w in _CN_STOP), key=len, reverse=True)))
_PUNCT = re.compile(r"[\s,，。.!！?？:：;；、\"'“”‘’()（）\[\]【】]+")
_ASCII = re.compile(r"[a-z]")

# Conditions for count: "<column> <op> <value>".
_COND_OPS: list[tuple[str, str]] = [
    (">=", r">=|≥|大于等于|大于或等于|不少于|不低于|至少|at least|no less than"),
    ("<=", r"<=|≤|小于等于|小于或等于|不超过|不高于|不多于|至多|at most|no more than"),
    (">", r">|大于|超过|高于|多于|greater than|more than|higher than|above|over|exceeds|exceeding"),
    ("<", r"<|小于|低于|少于|不足|less than|lower than|below|under"),
    ("!=", r"!=|≠|不等于|不是|不为|is not|not equal to"),
    ("==", r"==|=|等于|为|是|equals|equal to|is"),
]


def _op_alternatives(alts: str) -> str:
    """English operator words match whole words only ("is" not inside "this")."""
    parts = alts.split("|")
    return "|".join(rf"(?<![a-z]){p}(?![a-z])" if p[0].isalpha() and p.isascii() else p for p in parts)


_COND_OP = re.compile("|".join(f"(?:{_op_alternatives(alts)})" for _, alts in _COND_OPS))
_COND_VALUE = re.compile(
    rf"\s{{0,2}}(?P<val>-?\d[\d,]{{0,15}}(?:\.\d{{1,6}})?%?|[a-z{HAN}][0-9a-z{HAN}]{{0,15}})"
)
_COND_COLUMN_CHARS = 24
_MAX_GROUP_MARKERS = 20
_MAX_OPERATORS = 50  # operator candidates examined at most: bounds the cost on adversarial text
_SUFFIX_COND = re.compile(
    r"(?P<val>\d[\d,]{0,15}(?:\.\d{1,6})?)\s{0,2}(?:万元|元|万|块)?\s{0,2}(?P<op>以上|以下|及以上|及以下)"
)
_NUM_VAL = re.compile(r"^-?\d[\d,]{0,15}(?:\.\d{1,6})?%?$")


def detect_op(text: str) -> str:
    """The aggregation the instruction asks for; "sum" when it names none."""
    for op, words in _OPS:
        for w in words:
            if _ASCII.match(w[0]):
                if re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", text):
                    return op
            elif w in text:
                return op
    return "sum"


def phrases(text: str) -> list[str]:
    """Content phrases left once function words and punctuation are removed, in order."""
    out: list[str] = []
    for piece in _PUNCT.split(text):
        if not piece:
            continue
        if _ASCII.search(piece) and not has_han(piece):
            continue  # English handled word by word in _en_phrases
        out += [p.strip() for p in _CN_STOP_RE.split(piece) if p.strip()]
    return out + _en_phrases(text)


def _en_phrases(text: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9_'-]{0,30}", text)
    out: list[str] = []
    current: list[str] = []
    for w in words:
        if w in _EN_STOP:
            if current:
                out.append(" ".join(current))
            current = []
        else:
            current.append(w)
    if current:
        out.append(" ".join(current))
    return out


def _group_phrase(text: str) -> str | None:
    """The phrase right after a group marker ("按地区", "各部门", "by region", "for each department")."""
    for marker in _GROUP_MARKERS_EN:
        m = re.search(rf"(?<![a-z]){marker}\s(?:the\s)?(?P<g>[a-z][a-z0-9_ -]{{0,30}})", text)
        if m:
            got = _en_phrases(m.group("g"))
            if got:
                return got[0]
    for marker in _GROUP_MARKERS_CN:
        pos = text.find(marker)
        for _ in range(_MAX_GROUP_MARKERS):
            if pos < 0:
                break
            rest = text[pos + len(marker): pos + len(marker) + _COND_COLUMN_CHARS]
            got = [p for p in _CN_STOP_RE.split(_PUNCT.split(rest)[0]) if p.strip()]
            if got and rest and not _CN_STOP_RE.match(rest):
                return got[0].strip()
            pos = text.find(marker, pos + 1)
    return None


def aggregate_params(text: str) -> dict[str, Any]:
    op = detect_op(text)
    group = _group_phrase(text)
    rest = [p for p in phrases(text) if p != group]
    return {"op": op, "group_by": group, "value": rest[0] if rest else None, "phrases": rest}


def count_params(text: str) -> dict[str, Any]:
    params: dict[str, Any] = {"condition": None}
    # Linear scan: find an operator, read the value after it and the column phrase just before it.
    for tries, m in enumerate(_COND_OP.finditer(text)):
        if tries >= _MAX_OPERATORS:
            break
        v = _COND_VALUE.match(text, m.end())
        before = text[max(0, m.start() - _COND_COLUMN_CHARS): m.start()]
        if not v or not before.strip():
            continue
        op = next(sym for sym, alts in _COND_OPS if re.fullmatch(alts, m.group(0)))
        value = v.group("val")
        if not _NUM_VAL.match(value):
            value = next((p for p in _CN_STOP_RE.split(value) if p.strip()), "").strip()
            value = value.rstrip("的")
        if value and not (op in ("==", "!=") and value in ("多少", "几", "什么")):
            col_phrases = phrases(before)
            params["condition"] = {"column": col_phrases[-1] if col_phrases else None, "op": op, "value": value}
            break
    if params["condition"] is None:
        s = _SUFFIX_COND.search(text)
        if s:
            op = ">=" if s.group("op").endswith("以上") else "<="
            before = phrases(text[: s.start()])
            params["condition"] = {"column": before[-1] if before else None, "op": op, "value": s.group("val")}
    return params


def list_params(text: str) -> dict[str, Any]:
    got = phrases(text)
    return {"column": got[-1] if got else None, "phrases": got}


def extract_params(route: str, text: str) -> dict[str, Any]:
    """Parameters for a handler route, from the normalised instruction."""
    if route == "table_aggregate":
        return aggregate_params(text)
    if route == "count":
        return count_params(text)
    if route == "list_values":
        return list_params(text)
    return {}
