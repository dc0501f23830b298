"""The candidate rows of a figure question in one report: the printed rows whose label names the question's
metric, primary statements and the key-figures table first, each with its column (period), value as printed,
unit and page, written as one model material.

Why: a figure question about a named company that the figure answerer could not settle (no row it was sure of,
a period or statement it doubted, a computation missing an input) goes to the model, and the model can only
answer from what it is shown. Retrieval over a long report often brings back the auditor's report or a note
that repeats the metric's words, not the statement page printing the figure; the stored facts know which rows
of which statements spell the metric. So their rows go into the prompt as materials, before the retrieved
chunks, under a token cap, and the model weighs them (DESIGN.md, "Precision first": the model decides, with
the evidence in front of it).

Which rows, best first: the labels the figure answerer itself matches (:func:`best_matches`: as printed, by a
synonym of ``report_metrics.txt``, or every label word in the question), then the rows of the key-figures table
and the primary statements sharing a content word (English) or two characters' run (Chinese) with the question
- a computed question's inputs ("gross margin (gross profit / revenue)") and a metric spelled apart from the
list ("total (loss)/income") are found so. A note's row comes only through a label match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from indexing.reports.labels import label_key
from retrieval.reports.entities import aliases
from retrieval.reports.facts import Fact, Report
from retrieval.reports.lookup import best_matches, role_rank, table_rank
from retrieval.reports.metrics import METRICS
from retrieval.reports.render import with_unit
from retrieval.reports.text_rows import TextRow

__all__ = [
    "CandidateRow",
    "PageRows",
    "candidate_rows",
    "disagreeing",
    "group_label",
    "named_reports",
    "page_groups",
    "question_terms",
]

#: How many rows one report contributes: enough for a metric printed in the key figures, the statement and a
#: note, and a computed question's two or three inputs; more crowds out the retrieved text.
MAX_ROWS = 12
#: Of the loosely matched rows (a shared word), only those of the key figures and primary statements.
_PRIMARY = 1
#: A table that can contradict the answered one: any but a note or a part of the company (role rank 3).
_OTHER_TABLES = 2
_STOP = frozenset(
    {"what", "which", "were", "was", "is", "are", "did", "does", "the", "and", "for", "from", "with", "that", "this",
     "year", "years", "ended", "fiscal", "full", "report", "reported", "company", "group", "much", "many", "how",
     "its", "their", "during", "amount", "figure", "value", "percentage", "share", "compared", "against",
     "between", "within", "december", "june", "march", "september", "grow", "growth", "change", "increase",
     "decrease", "ratio", "rate", "margin", "earn", "earned", "make", "made", "have", "has", "had", "give"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """One printed row of one table: its facts (one per period column), the table's caption and page."""

    label: str
    facts: tuple[Fact, ...]

    @property
    def page(self) -> int | None:
        return self.facts[0].page


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def named_reports(question: str, reports: Sequence[Report]) -> list[Report]:
    """The reports whose company the question names (any alias: name, short name, stock code, English name)."""
    folded = _fold(question)
    return [r for r in reports if any(a in folded for a in aliases(r))]


def _plain(question: str, names: Iterable[str]) -> str:
    """The question without the company's names and the years (they name no row)."""
    text = _fold(question)
    for name in sorted((_fold(n) for n in names if n), key=len, reverse=True):
        text = text.replace(name, " ")
    return re.sub(r"(19[89]\d|20[0-4]\d)|(?<![a-z])fy\s*'?\d{2}(?!\d)", " ", text)


def question_terms(question: str, names: Iterable[str]) -> tuple[list[str], list[str]]:
    """The question's content words (stems, English) and two-character runs (Chinese), without ``names`` (the
    company's) and years: what a row label printing the asked figure shares with the question."""
    plain = _plain(question, names)
    return sorted(_words(plain) - _proper_names(question)), sorted(_grams(plain))


@cache
def _metric_words() -> frozenset[str]:
    """Every word of the metric synonyms (``report_metrics.txt``): "Adjusted EBITDA" is a metric, not a name."""
    return frozenset(
        _stem(w) for spellings in METRICS.values() for s in spellings for w in re.findall(r"[a-z]{3,}", _fold(s))
    )


def _proper_names(question: str) -> set[str]:
    """Capitalised words after the question's first ("Benjamin Hornigold's total assets"): the company's name as
    the question spells it, even when the report's recorded names differ; a metric's own word is kept."""
    words = re.findall(r"(?<![\w'’])([A-Z][a-z]{2,})\b", question)[1:] if question[:1].isupper() else []
    return {_stem(w.lower()) for w in words} - _metric_words()


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z]{3,}", text) if w not in _STOP}


def _grams(text: str) -> set[str]:
    runs = re.findall(r"[\u4e00-\u9fff]{2,}", label_key(text))
    return {run[i : i + 2] for run in runs for i in range(len(run) - 1)}


def _loose_score(label: str, words: set[str], grams: set[str]) -> int:
    """Characters of the question's content words (or two-character runs) the label shares."""
    folded = _fold(label)
    shared_words = sum(len(w) for w in _words(folded) & words)
    shared_grams = len(_grams(label) & grams)
    return shared_words + (2 * shared_grams if shared_grams >= 2 else 0)


def _rows(facts: Sequence[Fact]) -> list[CandidateRow]:
    """Facts grouped by printed row (table and label), in first-seen order."""
    grouped: dict[tuple[int, str, int | None], list[Fact]] = {}
    for fact in facts:
        grouped.setdefault((fact.table, fact.key, fact.page), []).append(fact)
    return [CandidateRow(group[0].label, tuple(group)) for group in grouped.values()]


def candidate_rows(question: str, report: Report, limit: int = MAX_ROWS) -> list[CandidateRow]:
    """The rows of ``report`` a figure question may be answered from, best first (at most ``limit``)."""
    plain = _plain(question, aliases(report))
    key = label_key(plain)
    ranked: list[Fact] = []
    for match in best_matches(key, report.facts, label_key(_fold(question)))[:4]:
        ranked.extend(sorted(match.facts, key=lambda f: table_rank(f, key, False)))
    words, grams = _words(plain), _grams(plain)
    loose = [(s, f) for f in report.facts if role_rank(f) <= _PRIMARY and (s := _loose_score(f.label, words, grams))]
    loose.sort(key=lambda item: (-item[0], role_rank(item[1]), item[1].page or 0))
    ranked.extend(f for _s, f in loose)
    rows: list[CandidateRow] = []
    seen: set[tuple[int, str, int | None]] = set()
    for row in _rows(ranked):
        ident = (row.facts[0].table, row.facts[0].key, row.page)
        if ident not in seen:
            seen.add(ident)
            rows.append(row)
    return rows[:limit]


def _row_line(row: CandidateRow, english: bool) -> str:
    cells = list(dict.fromkeys(f"{f.column.strip() or '—'}: {with_unit(f.text, f.unit, english)}" for f in row.facts))
    return f"- {row.label} | {' | '.join(cells)}"


@dataclass(slots=True)
class PageRows:
    """The candidate lines of one page, under the page's table caption or statement title."""

    page: int | None
    title: str
    lines: list[str]


def page_groups(
    rows: Sequence[CandidateRow], lines: Sequence[TextRow], english: bool, fits: Callable[[str], bool]
) -> list[PageRows]:
    """The rows, then the text lines, grouped by page in the order of their best line, as many lines as ``fits``
    allows for all groups' text together (best first); each group is one material, so the model's citation
    names the page the line is printed on."""
    texts = [(r.page, r.facts[0].caption or r.facts[0].section, _row_line(r, english)) for r in rows]
    texts += [(t.page, t.title, f"- {t.text}") for t in lines if all(t.text not in line for *_p, line in texts)]
    groups: dict[int | None, PageRows] = {}
    used: list[str] = []
    for page, title, line in texts:
        if not fits("\n".join([*used, title, line])):
            continue
        group = groups.setdefault(page, PageRows(page, title, []))
        if title and title not in group.title and title not in used:
            used.append(title)
            group.title = f"{group.title}; {title}" if group.title else title
        group.lines.append(line)
        used.append(line)
    return list(groups.values())


def group_label(name: str, group: PageRows, english: bool) -> str:
    """A page's material label: the file, the page, the table or statement title, and what the lines are (the
    text holds only the lines, so a quote of it is a printed row)."""
    kind = "rows as printed (row | column: value)" if english else "原文行（行 | 列：数值）"
    parts = [name, f"p. {group.page}" if group.page is not None else "", group.title, kind]
    return " · ".join(p for p in parts if p)


def disagreeing(question: str, report: Report, value: str, page: int | None) -> Fact | None:
    """A row of another table outside the notes that prints the answered metric (the same label) for the same
    period with a different value, or None.

    Why: "profit after income tax" printed in the parent entity's statement and in the group's five-year summary
    with two values; the figure answerer takes the first table by its rank, and which of them the question means
    is then a reading only the model (or the reader) can make, so the answer is handed over, not stated."""
    chosen = [f for f in report.facts if str(f.value) == value and f.page == page]
    if not chosen:
        return None
    fact = chosen[0]
    year = fact.year(report.year)
    for other in report.facts:
        if other.key != fact.key or other.table == fact.table or role_rank(other) > _OTHER_TABLES:
            continue
        if other.parent_company != fact.parent_company or _span(other) != _span(fact):
            continue  # the parent company's own statement, a quarter or a half year: another figure by design
        same_unit = other.unit == fact.unit or None in (other.unit, fact.unit)  # a caption's unit not read
        if other.year(report.year) == year and other.value != fact.value and same_unit:
            return other
    return None


def _span(fact: Fact) -> tuple[object, ...]:
    """What part of a year a fact's column covers, and whether it is a change or share column."""
    period = fact.period
    if period is None:
        return ()
    return (period.quarter, period.partial, period.change, period.share, period.point)
