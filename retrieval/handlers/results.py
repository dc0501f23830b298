"""What a deterministic handler returns: an answer text and items, each citing where it came from (a Location)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from officeqa.locations import Location

#: A handler cites places: :class:`officeqa.locations.Location` (file plus page / sheet / slide / table row),
#: the product's one location model, labelled "file · p. 3, sheet S, row 12" like every other citation.
Citation = Location


@dataclass(slots=True)
class HandlerItem:
    """One answer element (a phone number, a group's sum, a heading) with every place it was found."""

    value: str
    normalized: Any = None
    kind: str | None = None
    citations: list[Citation] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value}
        if self.normalized is not None:
            out["normalized"] = self.normalized
        if self.kind is not None:
            out["kind"] = self.kind
        out["citations"] = [c.to_json() for c in self.citations]
        if self.extra:
            out["extra"] = self.extra
        return out


@dataclass(slots=True)
class HandlerResult:
    """A handler's answer: the text shown to the user and the cited items behind it."""

    route: str
    answer_text: str
    items: list[HandlerItem] = field(default_factory=list)
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    # Table queries: "exact" (the value was computed by the stated query) or "refused" (what is ambiguous is said,
    # the candidates are in data["candidates"]); None for the other handlers.
    outcome: str | None = None
    query: str | None = None  # the query in words, in the question's language

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"route": self.route, "answer": self.answer_text,
                               "items": [i.to_json() for i in self.items]}
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.query is not None:
            out["query"] = self.query
        if self.skipped:
            out["skipped"] = self.skipped
        if self.warnings:
            out["warnings"] = self.warnings
        if self.data:
            out["data"] = self.data
        return out
