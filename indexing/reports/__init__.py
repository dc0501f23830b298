"""Reports read as facts at index time (see ``extract``): the one hook is :func:`attach_report_facts`."""

from __future__ import annotations

from typing import Any

from indexing.reports.extract import FORMAT_VERSION, META_KEY, extract_report
from officeqa.domain import ParsedDocument

__all__ = ["FORMAT_VERSION", "META_KEY", "attach_report_facts", "extract_report", "report_of"]


def attach_report_facts(document: ParsedDocument) -> None:
    """Store the document's report facts in its meta (stored with it), or nothing when it is not a report."""
    report = extract_report(document)
    if report is not None:
        document.meta[META_KEY] = report


def report_of(document: ParsedDocument | None) -> dict[str, Any] | None:
    """The stored report facts of a parsed document (None: not a report, or indexed before facts existed)."""
    if document is None:
        return None
    report = document.meta.get(META_KEY)
    return report if isinstance(report, dict) and report.get("version") == FORMAT_VERSION else None
