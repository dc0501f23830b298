"""Match a column name written in an instruction to a table header, fuzzily and cheaply.

Why not exact matching: users write "地区" for a header "所属地区", "销售额" for
"销售金额(元)", "sales" for "Sales Amount". Headers are reduced to a core (units in
brackets dropped, width/case/space normalised), then scored by containment and
difflib's ratio; a small synonym table covers common office wordings.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from retrieval.rules.normalize import normalize

MIN_SCORE = 0.6

_UNIT_BRACKETS = re.compile(r"[(\[（【][^()\[\]（）【】]{0,12}[)\]）】]")
_NOISE = re.compile(r"[\s_:：/\\|\-.,，、]+")

# Groups of interchangeable words; a phrase and a header sharing a group score as a near match.
_SYNONYMS: list[frozenset[str]] = [frozenset(g) for g in (
    {"销售额", "销售金额", "销售收入", "营业额", "销量金额", "sales", "revenue", "sales amount"},
    {"地区", "区域", "大区", "片区", "region", "area"},
    {"金额", "数额", "amount", "total"},
    {"数量", "件数", "qty", "quantity"},
    {"单价", "价格", "price", "unit price"},
    {"部门", "科室", "department", "dept"},
    {"客户", "客户名称", "customer", "client"},
    {"产品", "产品名称", "商品", "品名", "product", "item"},
    {"城市", "city"},
    {"省份", "省", "province"},
    {"员工", "姓名", "人员", "name", "employee"},
    {"工资", "薪资", "薪酬", "salary", "wage"},
    {"日期", "date"},
)]


@lru_cache(maxsize=65_536)
def column_core(name: str) -> str:
    """A header reduced to what users would type: no unit brackets, no separators (cached: the linker asks for
    every column of every table in scope, per question)."""
    text = normalize(name)
    text = _UNIT_BRACKETS.sub("", text)
    return _NOISE.sub(" ", text).strip()


def column_score(phrase: str, header: str) -> float:
    """Similarity in [0, 1] between a phrase from an instruction and a header."""
    p, h = column_core(phrase), column_core(header)
    if not p or not h:
        return 0.0
    if p == h:
        return 1.0
    for group in _SYNONYMS:
        if p in group and h in group:
            return 0.95
    if p in h or h in p:
        short, long_ = sorted((p, h), key=len)
        return 0.8 + 0.15 * len(short) / len(long_)
    ratio = SequenceMatcher(None, p, h).ratio()
    for group in _SYNONYMS:
        if any(w in p for w in group) and any(w in h for w in group):
            ratio = max(ratio, 0.75)
    return ratio


def best_column(phrase: str, headers: list[str], min_score: float = MIN_SCORE) -> int | None:
    """Index of the header that best matches the phrase (first on ties), or None below ``min_score``."""
    best, best_score = None, min_score
    for i, header in enumerate(headers):
        score = column_score(phrase, header)
        if score > best_score or (best is None and score >= best_score):
            best, best_score = i, score
    return best


def mentioned_columns(instruction: str, headers: list[str]) -> list[int]:
    """Headers whose core occurs in the instruction, in order of appearance in the instruction."""
    text = normalize(instruction)
    hits = []
    for i, header in enumerate(headers):
        core = column_core(header)
        if core and len(core) >= 2:
            pos = text.find(core)
            if pos >= 0:
                hits.append((pos, i))
    return [i for _, i in sorted(hits)]
