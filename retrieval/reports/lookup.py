"""Find the facts a question asks for: the metric (printed label, synonym or a segment row under its table's
metric), the column (amount, share, a metric column), the period, and the table to prefer.

Why scores and not a first hit: "连接器产品的营业收入" names both a segment row (连接器) and a metric (营业收入);
the row whose label AND table context are in the question covers more of it and wins. Ties go to the key
data table (主要会计数据, highlights), then to the statement the question names, then consolidated over
parent-company tables, then to the earlier page.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from indexing.reports.labels import label_key
from indexing.reports.statements import KEY, NOTE, STATEMENT
from retrieval.reports.facts import Fact
from retrieval.reports.metrics import aliases_in, canonical_of

__all__ = ["Match", "best_matches", "column_term", "group_words", "names_table", "role_rank", "table_rank"]

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
    r"(19[89]\d|20[0-4]\d)|年度|年末|年|金额|本期|上期|期末|期初|fiscal|q[1-4]|fy|"
    r"[£$€¥]|['’]?000s?|rmb|hk\$|us\$|人民币|千元|万元|百万元|元|thousands|millions|pence|cents|"
    r"调整前|调整后|重述前|重述后|as\s+restated|restated|as\s+(?:previously|originally)\s+reported|as\s+reported|"
    r"(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter|quarter|第[一二三四]季度|季度|上半年|下半年|半年度|中期|"
    r"(?:three|six|nine)\s+months(?:\s+ended)?|\d{1,2}\s+weeks(?:\s+ended)?|"
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


#: Labels that name no metric of their own: a table's "Total" row is the total of whatever the table lists (a note's
#: auditors' fees), so a question's "total" never matches it alone.
_NAMELESS = frozenset({"total", "totals", "subtotal", "合计", "总计", "小计", "net", "balance", "other", "其他"})


def _label_score(key: str, label: str, question_key: str, found_aliases: Sequence[tuple[str, str]]) -> tuple[int, str]:
    if key in _NAMELESS or (key.isascii() and len(key) < 3):  # a row labelled "to" or "a" names nothing
        return 0, key
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
    return _token_score(label, question_key), key


_LABEL_FILLERS = frozenset({"and", "the", "for", "from", "of", "to", "in", "by", "at", "on", "an"})


def _stem(word: str) -> str:
    """A label word without its inflection ("provided" -> "provid", "activities" -> "activiti"), so the
    question's "provide" / "activity" holds it."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


#: Words a long label may carry that the question leaves out without asking another figure: "Net cash used in
#: operating activities" asked as "cash used in operating activities", "Profit attributable to owners of the
#: Company" asked as "profit attributable to owners", "Profit after income tax for the year" as "profit after
#: income tax". Only from labels of four words or more.
_QUALIFIERS = frozenset({"net", "company", "group", "parent", "entity", "consolidated", "year", "period"})
_LONG_LABEL = 4
#: Sign words of a label ("Net income (loss)", "(Loss)/Profit before tax"): the question names one of the pair
_SIGN_WORDS = frozenset({"loss", "losses", "profit", "income", "gain", "gains", "earnings", "expense", "benefit"})


def _variants(word: str) -> tuple[str, ...]:
    """The forms of a label word a question may print: itself, its stem, and without a final "d" / "s" ("used" asked
    as "use", "activities" as "activity")."""
    forms = [word, _stem(word)]
    if word.endswith(("d", "s")) and len(word) >= 4:
        forms.append(word[:-1])
    if word.endswith("ies") and len(word) >= 6:
        forms.append(word[:-3] + "y")
    return tuple(forms)


def _token_score(label: str, question_key: str) -> int:
    """An English label whose every word the question holds, in any order and with words between ("Total
    assets" in "total consolidated assets", "Cash and cash equivalents, end of year" asked as "cash at the end
    of the year"): scored below a label printed as one run in the question. Words the question holds beyond
    the label still go to the residual check, so "net interest income" never takes a "Net income" row. A sign
    word in parentheses ("Basic and diluted (losses)/earnings per share", "Net income (loss)") and a qualifier of a
    long label (``_QUALIFIERS``) may be left out."""
    if re.search(r"[\u4e00-\u9fff]", label):
        return 0
    folded = unicodedata.normalize("NFKC", label).lower()
    optional = set(re.findall(r"[a-z]{2,}", " ".join(re.findall(r"\(([^)]*)\)", folded))))
    words = [w for w in re.findall(r"[a-z]{2,}", folded) if w not in _LABEL_FILLERS]
    if len(words) >= _LONG_LABEL:
        optional |= _QUALIFIERS
    held = [w for w in words if any(v in question_key for v in _variants(w))]
    for group in re.findall(r"[a-z()]+(?:\s*/\s*[a-z()]+)+", folded):  # "(Loss)/Profit": either word names it
        alternatives = re.findall(r"[a-z]{2,}", group)
        if "(" in group or any(w in held for w in alternatives):  # "(expense)/benefit": a sign, never the metric
            optional.update(alternatives)
    missing = [w for w in words if w not in held]
    if len(held) < 2 or any(w not in optional for w in missing):
        return 0
    # a word left out costs its length: the label the question spells whole ("Net income (loss)") beats a longer one
    # it spells only in part ("Net income (loss) for the period" of a quarterly table)
    return sum(len(w) for w in held) - 1 - sum(len(w) for w in missing if w not in _SIGN_WORDS)


_GENERIC = {"financial", "information", "total", "the", "and", "for", "reconciliation", "other", "segment"}


def group_words(parent: str | None) -> list[str]:
    # Latin names only ("KPLP Financial Information"): a Chinese group row ("一、经营活动产生的现金流量") is a
    # heading of the statement, not an entity, and its words are the metric's own
    return [w for w in re.findall(r"[a-z]{3,}", (parent or "").lower()) if w not in _GENERIC]


def _names_group(raw_key: str, fact: Fact) -> bool:
    """Whether the question names the fact's group row ("KPLP Financial Information"): most of the group's own words,
    not one that the company's name happens to share ("Changes in working capital" under "Armadale Capital")."""
    words = [w for w in group_words(fact.parent) if w not in fact.key]
    return bool(words) and 2 * sum(w in raw_key for w in words) > len(words)


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
            # a group word that is the row's own metric ("Non-current assets" over "Total assets") names no group
            named_group = [f for f in group if _names_group(raw_key, f)]
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


_ROLE_RANK = {KEY: 0, STATEMENT: 1, None: 2, NOTE: 3}
_TABLE_WORDS_GENERIC = frozenset(
    {"consolidated", "financial", "statements", "statement", "notes", "table", "other", "following", "total",
     "years", "ended", "december", "thousands", "millions", "except", "share"}
)  # fmt: skip


def names_table(fact: Fact, question_key: str) -> bool:
    """Whether the question names the fact's table by a word of its caption or section that is not the row's
    own metric ("segment", "acquisition", 子公司): a note or part table is then what the question asks for."""
    context = unicodedata.normalize("NFKC", f"{fact.caption} {fact.section}").lower()
    for word in re.findall(r"[a-z]{5,}", context):
        if word not in _TABLE_WORDS_GENERIC and word[:5] not in fact.key and word[:5] in question_key:
            return True
    for run in re.findall(r"[\u4e00-\u9fff]{3,}", context):
        for i in range(len(run) - 2):
            gram = run[i : i + 3]
            if gram not in fact.key and gram in question_key:
                return True
    return False


def role_rank(fact: Fact) -> int:
    """0 for the key-figures table, 1 for a primary statement, 2 for other tables, 3 for a note or part table."""
    if fact.role != NOTE and _KEY_TABLE.search(label_key(f"{fact.caption}{fact.section}")):
        return 0
    return _ROLE_RANK.get(fact.role, 2)


def table_rank(fact: Fact, question_key: str, parent_asked: bool) -> tuple[int, ...]:
    """Sort key of a fact's table for a question (smaller is preferred): the statement the question names,
    consolidated (or parent company when asked), then the key-figures table, the primary statements, other
    tables, and notes / part tables last unless the question names them."""
    context = label_key(f"{fact.caption}{fact.section}")
    named = any(s in question_key and s in context for s in _STATEMENTS)
    role = role_rank(fact)
    if fact.role == NOTE and names_table(fact, question_key):
        role = 1
    return (
        0 if named else 1,
        0 if fact.parent_company == parent_asked else 1,
        role,
        0 if fact.unit else 1,
        fact.page or 0,
    )
