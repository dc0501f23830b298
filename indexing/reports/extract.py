"""A parsed report's tables as typed facts, with the table's caption, section, unit and page.

The stored form is plain JSON under ``ParsedDocument.meta["report"]`` so it is written and removed with the
document on both backends (SQLite and PostgreSQL keep the parsed document; nothing else to migrate):

``{"version", "entity": {...}, "year", "kind", "currency" (ISO, when the text tells), "tables": [{"caption",
"section", "page", "unit", "currency", "parent_company", "role" ("key" / "statement" / "note" / null, see
``statements``), "rows": [row text, ...]}], "facts": [{"t": table,
"r": row, "label", "parent", "column", "period": {...}, "value", "text", "unit", "page"}]}``
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from indexing.reports.currency import report_currency
from indexing.reports.labels import clean_label
from indexing.reports.profile import is_report, report_profile
from indexing.reports.statements import closes_notes, opens_notes, parent_table, table_role
from indexing.reports.tables import RowFact, table_facts
from indexing.reports.text_tables import data_rows, fit_columns, header_periods, split_rows
from indexing.reports.units import scale_of, table_unit
from officeqa.domain import BlockType, ParsedDocument

__all__ = ["FORMAT_VERSION", "META_KEY", "extract_report"]

META_KEY = "report"
FORMAT_VERSION = 1
_CONTEXT_BLOCKS = 4
_CAPTION_CHARS = 60
_NOISE = re.compile(r"适用|不适用|是否|^单位|^币种|^编制单位|^□|^√|[？?]$")
_STATEMENT = re.compile(r"表$|statements?\s+of|balance\s+sheets?|财务指标|会计数据", re.IGNORECASE)
_CONTENTS = re.compile(r"^\s*(?:目\s*录|table\s+of\s+contents|contents)\s*$", re.IGNORECASE)
#: Per-share amounts are in currency units whatever scale the table's caption gives ("in thousands, except
#: per share data"): "Basic earnings (loss) per share (dollars) (1.03)" is $1.03, not 1.03 thousand.
_PER_SHARE = re.compile(r"per\s*(?:common\s*|ordinary\s*)?share|每股", re.IGNORECASE)


def _row_unit(label: str, unit: str | None) -> str | None:
    """The table's unit for a row, except a scaled unit (thousands, 万元) for a per-share row."""
    scale = scale_of(unit)
    if scale is not None and scale != 1 and _PER_SHARE.search(label):
        return None
    return unit


def _caption(context: list[str]) -> str:
    """The nearest short line above the table that names a statement, else the nearest short line."""
    for text in reversed(context):
        if len(text) <= _CAPTION_CHARS and _STATEMENT.search(text) and not _NOISE.search(text):
            return text
    for text in reversed(context):
        if len(text) <= _CAPTION_CHARS and not _NOISE.search(text):
            return text
    return ""


#: One date or year alone on a line: the first half of a header printed over two lines.
_ONE_DATE = re.compile(
    r"(?:as\s+(?:of|at)\s+)?(?:(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\s+\d{1,2},?\s+|\d{1,2}\s+(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\s+)?(?:19[89]\d|20[0-4]\d)",
    re.IGNORECASE,
)


def _without_note(cells: list[str], columns: list[Any], noted: bool) -> list[str]:
    """A row's value cells without the note number a "Note" column prints before them ("Revenue 5 64,862,110
    48,906,446" under "Note 2022 2021")."""
    if noted and len(cells) == len(columns) + 1 and re.fullmatch(r"\d{1,2}(?:\.\d{1,2})?", cells[0]):  # "5", "12.2"
        return cells[1:]
    return cells


def _sub_heading(text: str, current: dict[str, Any] | None) -> bool:
    """A heading inside an unruled statement that heads a group of its rows, not a new section."""
    return (
        current is not None
        and current.get("role") == "statement"
        and len(text) <= 60
        and not re.search(r"\d", text)
        and not _STATEMENT.search(text)
        and not opens_notes(text)
        and not closes_notes(text)
    )


def _row_heading(text: str, columns: list[Any] | None, noted: bool) -> bool:
    """A line set as a heading that is a row of the open text table ("(Loss)/Profit before income tax (1,239,019)
    1,260,803" printed bold): its figures fit the table's columns, so the statement goes on under it."""
    if columns is None:
        return False
    return any(fit_columns(columns, len(_without_note(cells, columns, noted))) for _label, cells in split_rows(text))


def _unit_cells(block: Any) -> list[str]:
    """The table's own header cells and the label of its first rows: a statement prints its unit there as
    often as above it ("December 31, | (Dollars in thousands, except per share data) | 2022 | 2021")."""
    cells = [c for row in (block.header_rows or []) for c in row if c]
    cells += [c for row in (block.rows or [])[:2] for c in row if c]
    return [c for c in cells if len(c) <= 80]


def _row_page(page_rows: Any, row: int, first: int | None) -> int | None:
    """The page a body row is printed on, for a table stitched across pages (``meta["page_rows"]``)."""
    page = first
    for start, on_page in page_rows or []:
        if row >= start:
            page = on_page
    return page


def extract_report(document: ParsedDocument) -> dict[str, Any] | None:
    """The report's facts, or None when the document is not a report or has no numeric tables."""
    blocks = document.blocks
    if not is_report(blocks):
        return None
    profile = report_profile(document)
    tables: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    context: list[str] = []
    section = ""
    in_notes = False  # after "Notes to the consolidated financial statements" / 财务报表附注
    for block in blocks:
        if block.type == BlockType.HEADING:
            section = unicodedata.normalize("NFKC", block.text or "").strip()
            context = [section]
            in_notes = opens_notes(section) or (in_notes and not closes_notes(section))
            continue
        if block.type != BlockType.TABLE:
            text = unicodedata.normalize("NFKC", block.text or "").strip()
            if text:
                context = [*context[-(_CONTEXT_BLOCKS - 1) :], text]
            continue
        found = table_facts(block.header_rows or [], block.rows or [])
        if not found:
            continue
        caption = block.caption or _caption(context)
        if _CONTENTS.match(caption) or _CONTENTS.match(section):
            continue  # page numbers of a table of contents are not figures
        unit, currency = table_unit([section, *context, block.caption or "", *_unit_cells(block)])
        index = len(tables)
        rows: list[str] = []
        row_index: dict[str, int] = {}
        for fact in found:
            if fact.row_text not in row_index:
                row_index[fact.row_text] = len(rows)
                rows.append(fact.row_text)
            entry: dict[str, Any] = {
                "t": index,
                "r": row_index[fact.row_text],
                "label": fact.label,
                "column": fact.column,
                "value": fact.value,
                "text": fact.text,
                "unit": fact.unit or (None if fact.percent else _row_unit(fact.label, unit)),
                "page": _row_page(block.meta.get("page_rows"), fact.row, block.page),
            }
            if fact.parent:
                entry["parent"] = fact.parent
            if fact.period is not None:
                entry["period"] = fact.period.to_json()
            facts.append(entry)
        tables.append(
            {
                "caption": caption,
                "section": section,
                "page": block.page,
                "page_end": block.meta.get("page_end"),
                "unit": unit,
                "currency": currency,
                "parent_company": parent_table(caption, section),
                "role": table_role(caption, section, in_notes),
                "rows": rows,
            }
        )
        context = []
    _text_tables(blocks, tables, facts)
    if not facts:
        return None
    currency = report_currency("\n".join(b.text or "" for b in blocks))
    if currency:
        profile["currency"] = currency
    return {"version": FORMAT_VERSION, **profile, "tables": tables, "facts": facts}


def _text_tables(blocks: list[Any], tables: list[dict[str, Any]], facts: list[dict[str, Any]]) -> None:
    """Unruled tables that came out as paragraphs: rows under a header paragraph of period columns."""
    from indexing.reports.values import parse_value

    section = ""
    columns: list[Any] | None = None
    current: dict[str, Any] | None = None
    group: str | None = None
    recent: list[str] = []  # the paragraphs since the heading: "(Expressed in thousands of United States dollars)"
    in_notes = False
    noted = False
    half = ""  # a header printed over two lines: "December 31, 2022" / "December 31, 2021 ASSETS"
    for block in blocks:
        text = unicodedata.normalize("NFKC", block.text or "").strip()
        if half and block.type in (BlockType.PARAGRAPH, BlockType.HEADING) and header_periods(text) is None:
            text = f"{half} {text}" if header_periods(f"{half} {text}") is not None else text
        half = text if _ONE_DATE.fullmatch(text) else ""
        if half:
            continue
        if block.type == BlockType.HEADING and _sub_heading(text, current):
            group = text.rstrip(":")  # "ASSETS", "LIABILITIES AND STOCKHOLDERS' EQUITY": the statement goes on
            continue
        if block.type == BlockType.HEADING and header_periods(text) is None and not _row_heading(text, columns, noted):
            section, columns, current, group = text, None, None, None
            recent = []
            in_notes = opens_notes(section) or (in_notes and not closes_notes(section))
            continue
        if block.type not in (BlockType.PARAGRAPH, BlockType.HEADING):  # a heading "Years Ended December 31, 2022 2021"
            continue
        recent = [*recent[-(_CONTEXT_BLOCKS - 1) :], text]
        found = header_periods(text)
        if found is not None and not data_rows(text):
            unit, currency = table_unit([section, *recent])
            columns, group = found, None
            noted = bool(re.search(r"\bnotes?\b|附注", text, re.IGNORECASE))  # "Consolidated Note 2022 2021"
            titles = [line[:80] for line in (section, *recent[:-1]) if _STATEMENT.search(line[:120])]
            caption = titles[-1] if titles else section
            current = {
                "caption": caption or section,
                "section": section,
                "page": block.page,
                "page_end": None,
                "unit": unit,
                "currency": currency,
                "parent_company": parent_table(caption or section, section),
                "role": table_role(caption or section, section, in_notes),
                "rows": [],
                "text": True,
            }
            continue
        if columns is None or current is None:
            continue
        rows = [
            (label, cells, fit)
            for label, found_cells in split_rows(text)
            if (fit := fit_columns(columns, len(cells := _without_note(found_cells, columns, noted))))
        ]
        if not rows and current["unit"] is None:  # "(in thousands)" printed under the header line
            current["unit"], current["currency"] = table_unit([text])
        if not rows:
            if len(text) <= 60 and not re.search(r"\d", text):
                group = text.rstrip(":")
            continue
        if current not in tables:
            tables.append(current)
        index = tables.index(current)
        for printed, cells, fitted in rows:
            row_text = " | ".join([printed, *cells])
            current["rows"].append(row_text)
            label = clean_label(printed)[0] or printed  # "Revenue (1)", "... per share (dollars)": as in ruled tables
            for (header, period), cell in zip(fitted, cells, strict=True):
                parsed = parse_value(cell)
                if parsed is None:
                    continue
                fact = RowFact(
                    label=label,
                    raw_label=label,
                    parent=group,
                    column=header,
                    period=period,
                    text=cell,
                    value=str(parsed.value),
                    percent=parsed.percent,
                    unit="%" if parsed.percent else None,
                    row_text=row_text,
                    row=0,
                )
                entry: dict[str, Any] = {
                    "t": index,
                    "r": len(current["rows"]) - 1,
                    "label": fact.label,
                    "column": header,
                    "value": fact.value,
                    "text": fact.text,
                    "unit": fact.unit or _row_unit(label, current["unit"]),
                    "page": block.page,
                    "period": period.to_json(),
                }
                if group:
                    entry["parent"] = group
                facts.append(entry)
