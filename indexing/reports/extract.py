"""A parsed report's tables as typed facts, with the table's caption, section, unit and page.

The stored form is plain JSON under ``ParsedDocument.meta["report"]`` so it is written and removed with the
document on both backends (SQLite and PostgreSQL keep the parsed document; nothing else to migrate):

``{"version", "entity": {...}, "year", "kind", "tables": [{"caption", "section", "page", "unit", "currency",
"parent_company", "rows": [row text, ...]}], "facts": [{"t": table, "r": row, "label", "parent", "column",
"period": {...}, "value", "text", "unit", "page"}]}``
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from indexing.reports.profile import is_report, report_profile
from indexing.reports.tables import table_facts
from indexing.reports.units import table_unit
from officeqa.domain import BlockType, ParsedDocument

__all__ = ["FORMAT_VERSION", "META_KEY", "extract_report"]

META_KEY = "report"
FORMAT_VERSION = 1
_CONTEXT_BLOCKS = 4
_CAPTION_CHARS = 60
_NOISE = re.compile(r"适用|不适用|是否|^单位|^币种|^编制单位|^□|^√|[？?]$")
_STATEMENT = re.compile(r"表$|statements?\s+of|balance\s+sheets?|财务指标|会计数据", re.IGNORECASE)
_PARENT = re.compile(r"母公司(?!所有者|股东)|parent company|non-consolidated", re.IGNORECASE)


def _caption(context: list[str]) -> str:
    """The nearest short line above the table that names a statement, else the nearest short line."""
    for text in reversed(context):
        if len(text) <= _CAPTION_CHARS and _STATEMENT.search(text) and not _NOISE.search(text):
            return text
    for text in reversed(context):
        if len(text) <= _CAPTION_CHARS and not _NOISE.search(text):
            return text
    return ""


def extract_report(document: ParsedDocument) -> dict[str, Any] | None:
    """The report's facts, or None when the document is not a report or has no numeric tables."""
    blocks = document.blocks
    if not is_report(blocks):
        return None
    profile = report_profile(blocks, document.title)
    tables: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    context: list[str] = []
    section = ""
    for block in blocks:
        if block.type == BlockType.HEADING:
            section = unicodedata.normalize("NFKC", block.text or "").strip()
            context = [section]
            continue
        if block.type != BlockType.TABLE:
            text = unicodedata.normalize("NFKC", block.text or "").strip()
            if text:
                context = [*context[-(_CONTEXT_BLOCKS - 1):], text]
            continue
        found = table_facts(block.header_rows or [], block.rows or [])
        if not found:
            continue
        caption = block.caption or _caption(context)
        unit, currency = table_unit([section, *context, block.caption or ""])
        index = len(tables)
        rows: list[str] = []
        row_index: dict[str, int] = {}
        for fact in found:
            if fact.row_text not in row_index:
                row_index[fact.row_text] = len(rows)
                rows.append(fact.row_text)
            entry: dict[str, Any] = {"t": index, "r": row_index[fact.row_text], "label": fact.label,
                                     "column": fact.column, "value": fact.value, "text": fact.text,
                                     "unit": fact.unit or (None if fact.percent else unit), "page": block.page}
            if fact.parent:
                entry["parent"] = fact.parent
            if fact.period is not None:
                entry["period"] = fact.period.to_json()
            facts.append(entry)
        tables.append({"caption": caption, "section": section, "page": block.page,
                       "page_end": block.meta.get("page_end"), "unit": unit, "currency": currency,
                       "parent_company": bool(_PARENT.search(f"{caption} {section}")), "rows": rows})
        context = []
    if not facts:
        return None
    return {"version": FORMAT_VERSION, **profile, "tables": tables, "facts": facts}
