"""The one report an overview-like answer is about: the first report in scope, read from its stored facts.

Why one function: the headline-summary and segment-facts answerers each answer about exactly one report (the
first in scope, as the summary tree does) and must pick and read it the same way; kept here, they cannot drift.
"""

from __future__ import annotations

from typing import NamedTuple

from retrieval.answerers.summary import report_scope
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge
from retrieval.reports.answerer import ReportCache
from retrieval.reports.facts import Report
from retrieval.scope import Scope

__all__ = ["ScopedReport", "first_report"]


class ScopedReport(NamedTuple):
    """The reports in scope, and the first of them read: its document id and its facts."""

    scope: Scope
    doc_id: str
    report: Report


def first_report(cache: ReportCache, knowledge: Knowledge, ctx: QuestionContext) -> ScopedReport | None:
    """The first report in scope with its facts read (through ``cache``), or None when none is in the catalog or
    the first document in scope holds no report facts."""
    scope = report_scope(knowledge, ctx)
    documents = [(d, ctx.catalog[d].path) for d in scope.doc_ids[:1] if d in ctx.catalog]
    reports = cache.reports(knowledge.kb, documents, shown=knowledge.paths.shown)
    if not reports:
        return None
    return ScopedReport(scope, documents[0][0], reports[0])
