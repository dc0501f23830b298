"""Who and when a report is about, for its facts: read through :mod:`indexing.subjects`, the one reader of
a document's company, names, codes, kind and fiscal year.

Why one reader: scope (which document a question is about) and report facts (whose figure an answer
states) must agree on who a report is about; two readers of the same cover disagreed (a 10-K whose
subject named "FNCB Bancorp, Inc." had no entity in its facts, so its figures were never matched to a
question naming the company). This module only maps the subject to the stored facts' ``entity`` keys
and decides whether a document is a report at all.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from indexing.reports.labels import to_simplified
from indexing.subjects import (
    KIND_ANNUAL,
    KIND_FINANCIAL,
    KIND_QUARTERLY,
    KIND_SEMIANNUAL,
    DocumentSubject,
    extract_subject,
)
from officeqa.domain import Block, ParsedDocument

__all__ = ["is_report", "report_profile"]

_COVER_PAGES = 3
_REPORT = re.compile(
    r"年度报告|年报|半年度报告|季度报告|annual\s+report|form\s+10-k|annual\s+information\s+form|"
    r"management'?s\s+discussion\s+and\s+analysis|consolidated\s+financial\s+statements|"
    # Australian "Financial Report 30 June 2022", UK "Report and Accounts" / "Strategic Report" / "Directors' Report"
    r"financial\s+report|report\s+and\s+(?:financial\s+statements|accounts)|annual\s+accounts|strategic\s+report|"
    r"directors['’]?\s+report",
    re.IGNORECASE,
)
_KINDS = {
    KIND_ANNUAL: "annual",
    KIND_SEMIANNUAL: "semiannual",
    KIND_QUARTERLY: "quarterly",
    KIND_FINANCIAL: "annual",
}
_MAX_NAMES = 12


def _text(block: Block) -> str:
    return unicodedata.normalize("NFKC", block.text or "").strip()


def is_report(blocks: Sequence[Block]) -> bool:
    """Whether the document's first pages say it is an annual/periodic report or its financial statements."""
    head = " ".join(_text(b) for b in blocks if (b.page or 1) <= _COVER_PAGES)[:20_000]
    return bool(_REPORT.search(head) or _REPORT.search(to_simplified(head)))  # 年度報告 is 年度报告


def profile_of_subject(subject: DocumentSubject) -> dict[str, object]:
    """{"entity": {full_name, short_name, stock_code, english_name, names}, "year", "kind"} (keys only when
    the subject has them); ``names`` joins every name and code with "|"."""
    entity: dict[str, str] = {}
    if subject.entity:
        entity["full_name"] = subject.entity
    if subject.short_names:
        entity["short_name"] = subject.short_names[0]
    if subject.codes:
        entity["stock_code"] = subject.codes[0]
    if subject.english_name:
        entity["english_name"] = subject.english_name
    names = [*subject.names(), *subject.codes]
    if names:
        entity["names"] = "|".join(dict.fromkeys(names[:_MAX_NAMES]))
    profile: dict[str, object] = {"entity": entity, "kind": _KINDS.get(subject.kind, "annual")}
    if subject.fiscal_year is not None:
        profile["year"] = subject.fiscal_year
    return profile


_MONTHS = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
#: A fiscal year's end on a cover: "for the (financial) year ended 30 June 2022", "Financial Report 30 June 2022",
#: "year ended September 30, 2022", "截至2022年6月30日止年度"
_PERIOD_END = re.compile(
    rf"(?:year|period)\s+end(?:ed|ing)\s+(?:\d{{1,2}}\s+{_MONTHS}|{_MONTHS}\s+\d{{1,2}},?)\s+((?:19|20)\d\d)|"
    rf"report\s+(?:for\s+the\s+year\s+)?(?:\d{{1,2}}\s+{_MONTHS}|{_MONTHS}\s+\d{{1,2}},?)\s+((?:19|20)\d\d)|"
    r"截至((?:19|20)\d\d)年\d{1,2}月\d{1,2}日止(?:年度|财政年度)",
    re.IGNORECASE,
)


def cover_year(blocks: Sequence[Block]) -> int | None:
    """The fiscal year a report's cover names by its end date (a year ending 30 June 2022 is fiscal 2022), or None."""
    head = " ".join(_text(b) for b in blocks if (b.page or 1) <= _COVER_PAGES)[:20_000]
    match = _PERIOD_END.search(to_simplified(head))
    return int(next(g for g in match.groups() if g)) if match else None


def report_profile(document: ParsedDocument) -> dict[str, object]:
    """The report's profile from the document's subject (:func:`indexing.subjects.extract_subject`); a fiscal year the
    subject does not give is read from the cover's period end (an Australian "Financial Report 30 June 2022")."""
    profile = profile_of_subject(extract_subject(document))
    if "year" not in profile:
        year = cover_year(document.blocks)
        if year is not None:
            profile["year"] = year
    return profile
