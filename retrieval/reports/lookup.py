"""Find the facts a question asks for: the metric (printed label, synonym or a segment row under its table's
metric), the column (amount, share, a metric column), the period, and the table to prefer.

Why scores and not a first hit: "连接器产品的营业收入" names both a segment row (连接器) and a metric (营业收入);
the row whose label AND table context are in the question covers more of it and wins. Ties go to the key
data table (主要会计数据, highlights), then to the statement the question names, then consolidated over
parent-company tables, then to the earlier page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from indexing.reports.labels import label_key
from retrieval.reports.facts import Fact
from retrieval.reports.metrics import aliases_in, canonical_of

__all__ = ["Match", "best_matches", "column_term", "group_words", "table_rank"]

_KEY_TABLE = re.compile(
    r"主要会计数据|主要财务指标|财务指标|highlights|selectedfinancial|resultsofoperations|"
    r"financialperformance",
    re.IGNORECASE,
)
_STATEMENTS = (
    "利润表",
    "资产负债表",
    "现金流量表",
    "所有者权益变动表",
    "statementsofoperations",
    "statementofoperations",
    "incomestatement",
    "balancesheet",
    "statementsoffinancialposition",
    "statementoffinancialposition",
    "cashflows",
    "resultsofoperations",
    "主要会计数据",
    "分季度",
)
_COLUMN_NOISE = re.compile(
    r"(19[89]\d|20[0-4]\d)|年度|年末|年|金额|本期|上期|期末|期初|fiscal|q[1-4]|"
    r"(?:years?\s+ended\s+|as\s+(?:of|at)\s+)?(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december)\s*\d{0,2},?|\d{1,2}\s+(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december)|(?:for\s+the\s+)?(?:years?|(?:three|six|twelve)\s+months)\s+ended|as\s+(?:of|at)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Match:
    """A row label the question names, how much of the question it covers, and its facts."""

    key: str
    score: int
    covered: tuple[str, ...]  # the question words the label (and its table context) explains
    facts: tuple[Fact, ...]


def column_term(column: str) -> str:
    """A column header without its period words: the metric a column names ("毛利率", "占营业收入比重")."""
    return label_key(_COLUMN_NOISE.sub("", column))


def _label_score(key: str, label: str, question_key: str, found_aliases: Sequence[tuple[str, str]]) -> tuple[int, str]:
    if len(key) >= 2 and key in question_key:
        return len(key) + 1, key  # the label as printed beats a synonym of the same length
    bare = key.replace("的", "")
    if len(bare) >= 4 and bare in question_key.replace("的", ""):
        return len(bare), key
    canonical = canonical_of(label)
    if canonical is not None:
        for name, alias in found_aliases:
            if name == canonical:
                return len(alias), alias
    return 0, ""


_GENERIC = {"financial", "information", "total", "the", "and", "for", "reconciliation", "other", "segment"}


def group_words(parent: str | None) -> list[str]:
    # Latin names only ("KPLP Financial Information"): a Chinese group row ("一、经营活动产生的现金流量") is a
    # heading of the statement, not an entity, and its words are the metric's own
    return [w for w in re.findall(r"[a-z]{3,}", (parent or "").lower()) if w not in _GENERIC]


def best_matches(question_key: str, facts: Sequence[Fact], raw_key: str = "") -> list[Match]:
    """Labels the question names, best first (ties broken later by table rank). ``raw_key`` is the question
    with the entity names left in: a group row ("KPLP Financial Information") the question names keeps
    only that group's facts."""
    found_aliases = aliases_in(question_key)
    by_key: dict[str, list[Fact]] = {}
    for fact in facts:
        by_key.setdefault(fact.key, []).append(fact)
    matches: list[Match] = []
    for key, group in by_key.items():
        score, covered = _label_score(key, group[0].label, question_key, found_aliases)
        if not score:
            continue
        if raw_key:
            named_group = [f for f in group if any(w in raw_key for w in group_words(f.parent))]
            group = named_group or group
        best_bonus, best_cover = 0, ""
        for fact in group:  # a segment row under a metric table: "连接器" in "(1)营业收入构成"
            context = fact.context_key + column_term(fact.column)
            for _name, alias in found_aliases:
                if alias in context and alias not in covered and covered not in alias and len(alias) > best_bonus:
                    best_bonus, best_cover = len(alias), alias
            term = column_term(fact.column)  # a metric column the question names ("毛利率")
            if len(term) >= 2 and term in question_key and term not in covered and len(term) > best_bonus:
                best_bonus, best_cover = len(term), term
        matches.append(Match(key, score + best_bonus, (covered, best_cover, key), tuple(group)))
    return sorted(matches, key=lambda m: -m.score)


def table_rank(fact: Fact, question_key: str, parent_asked: bool) -> tuple[int, ...]:
    """Sort key of a fact's table for a question (smaller is preferred)."""
    context = label_key(f"{fact.caption}{fact.section}")
    named = any(s in question_key and s in context for s in _STATEMENTS)
    return (
        0 if named else 1,
        0 if fact.parent_company == parent_asked else 1,
        0 if _KEY_TABLE.search(context) else 1,
        0 if fact.unit else 1,
        fact.page or 0,
    )
