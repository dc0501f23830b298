"""Stored report facts (``indexing.reports``) as typed objects for the question side."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from indexing.reports.currency import iso_currency
from indexing.reports.labels import label_key
from indexing.reports.periods import Period
from indexing.reports.statements import parent_column, parent_table, table_role

__all__ = ["Fact", "Report", "load_report"]


@dataclass(frozen=True, slots=True)
class Fact:
    """One printed figure: row label under a column, exact value, unit, page and the quoted row."""

    label: str
    key: str
    parent: str | None
    column: str
    period: Period | None
    value: Decimal
    text: str
    unit: str | None
    page: int | None
    caption: str
    section: str
    parent_company: bool
    row: str
    table: int
    from_text: bool = False  # an unruled table read from paragraphs (its captions are less certain)
    currency: str | None = None  # ISO code the table's caption names, else the report's
    role: str | None = None  # the table's kind: "key" figures, a primary "statement", a "note", or None (others)

    @property
    def context_key(self) -> str:
        return label_key(f"{self.caption}{self.section}{self.parent or ''}")

    def year(self, report_year: int | None) -> int | None:
        if self.period is None:
            return report_year
        return self.period.resolved_year(report_year)


@dataclass(frozen=True, slots=True)
class Report:
    """One document's report facts and who/when it is about."""

    path: str
    name: str
    year: int | None
    kind: str
    entity: Mapping[str, str]
    facts: tuple[Fact, ...]
    text: str = ""  # the document's text, for "the report never mentions it"
    currency: str | None = None  # ISO code of the report's amounts, None when the report does not tell
    pages: tuple[tuple[int | None, str], ...] = ()  # (page, its prose) for counts printed only in sentences

    def years(self) -> list[int]:
        """The years the report gives figures for: those of many facts (a history table's 2000 is not one)."""
        counts: dict[int, int] = {}
        for fact in self.facts:
            if fact.period is not None and not fact.period.change:
                year = fact.year(self.year)
                if year is not None:
                    counts[year] = counts.get(year, 0) + 1
        floor = max(5, sum(counts.values()) // 50)
        return sorted(y for y, n in counts.items() if n >= floor)


def _role(table: Mapping[str, Any]) -> str | None:
    """The table's stored role; for facts stored before roles were, the role its caption and section tell."""
    if "role" in table:
        role = table.get("role")
        return role if isinstance(role, str) else None
    return table_role(str(table.get("caption", "")), str(table.get("section", "")), False)


#: A group row that is the first half of a sentence its rows finish: "Profit for the year is attributable to:" over
#: "Owners of Kelly Partners Group Holdings Limited" / "Non-controlling interests".
_OPEN_GROUP = re.compile(r"\b(?:attributable\s+to|to|by|of|from)\s*[:：]?\s*$", re.IGNORECASE)


def _continued(label: str, parent: object) -> str:
    """The row's label, after its group row when the group is a sentence the row finishes (``_OPEN_GROUP``):
    alone, "Owners of ..." names no figure; with its group it is the profit attributable to the owners."""
    if isinstance(parent, str) and _OPEN_GROUP.search(parent):
        return f"{parent.rstrip(' :：')} {label}"
    return label


def _parent(table: Mapping[str, Any], column: str) -> bool:
    """Whether a fact is the parent company's: its table is the company's own statement (stored, or read again from
    the caption for facts stored before that reading), or its column header names the company beside the group."""
    caption, section = str(table.get("caption", "")), str(table.get("section", ""))
    return bool(table.get("parent_company")) or parent_table(caption, section) or parent_column(column)


def load_report(
    path: str, name: str, data: Mapping[str, Any], text: str = "", pages: tuple[tuple[int | None, str], ...] = ()
) -> Report:
    """A :class:`Report` from the stored JSON (``ParsedDocument.meta["report"]``) and its prose by page."""
    tables, currency = list(data.get("tables") or []), data.get("currency")
    currency = currency if isinstance(currency, str) else None
    facts = []
    for raw in data.get("facts") or []:
        table = tables[raw["t"]] if raw.get("t", -1) < len(tables) else {}
        rows = table.get("rows") or []
        period = Period.from_json(raw["period"]) if raw.get("period") else None
        label = _continued(raw["label"], raw.get("parent"))
        facts.append(
            Fact(
                label=label,
                key=label_key(label),
                parent=raw.get("parent"),
                column=raw.get("column", ""),
                period=period,
                value=Decimal(raw["value"]),
                text=raw["text"],
                unit=raw.get("unit"),
                page=raw.get("page"),
                caption=table.get("caption", ""),
                section=table.get("section", ""),
                parent_company=_parent(table, raw.get("column", "")),
                row=rows[raw["r"]] if raw.get("r", -1) < len(rows) else "",
                table=int(raw.get("t", 0)),
                from_text=bool(table.get("text")),
                currency=iso_currency(table.get("currency")) or currency,
                role=_role(table),
            )
        )
    return Report(
        path=path, name=name, year=year if isinstance(year := data.get("year"), int) else None,
        kind=str(data.get("kind", "")),
        entity=dict(data.get("entity") or {}),
        facts=tuple(facts),
        text=text, currency=currency, pages=pages,
    )  # fmt: skip
