"""Metric names as users ask for them and as reports print them.

Why a table of synonyms and not only string matching against row labels: users say 归母净利润 for
"归属于上市公司股东的净利润", revenue for "营业总收入" or "Total net sales"; the row label alone would miss
them. Each entry is a canonical name and the spellings that mean it; a question term and a row label
match when both are spellings of one entry (or the label occurs in the question as printed). The entries
are data (``officeqa/assets/words/report_metrics.txt``), compared in :func:`label_key` form, which folds
traditional Chinese to simplified, so 年內虧損 and 年内亏损 are one spelling.
"""

from __future__ import annotations

from indexing.reports.labels import label_key
from officeqa.words import phrase_table

__all__ = ["METRICS", "aliases_in", "canonical_of"]

_TABLE = phrase_table("report_metrics")
#: canonical name -> spellings, in file order (``officeqa/assets/words/report_metrics.txt``)
METRICS: dict[str, tuple[str, ...]] = dict(_TABLE.get("metric", {}))
_PREFIXES: dict[str, tuple[str, ...]] = {
    name: tuple(label_key(p) for p in phrases) for name, phrases in _TABLE.get("prefix", {}).items()
}
_EXCLUDES: dict[str, tuple[str, ...]] = {
    name: tuple(label_key(p) for p in phrases) for name, phrases in _TABLE.get("exclude", {}).items()
}
_INDEX = {label_key(alias): name for name, aliases in METRICS.items() for alias in aliases}


def canonical_of(label: str) -> str | None:
    """The canonical metric a printed row label spells, or None: a spelling of the list, or a label that starts
    with one of a metric's prefixes ("Net income attributable to Acme Corp.") and holds none of its excludes."""
    key = label_key(label)
    found = _INDEX.get(key)
    if found is not None:
        return found
    for name, prefixes in _PREFIXES.items():
        if any(key.startswith(p) and len(key) > len(p) for p in prefixes) and not any(
            e in key for e in _EXCLUDES.get(name, ())
        ):
            return name
    return None


def aliases_in(question_key: str) -> list[tuple[str, str]]:
    """(canonical, alias key) for every alias the question (in :func:`label_key` form) contains, longest first."""
    found = [(name, key) for key, name in _INDEX.items() if len(key) >= 2 and key in question_key]
    return sorted(found, key=lambda item: -len(item[1]))
