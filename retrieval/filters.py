"""Metadata filters for search: a whitelist of fields and operators, validated before use.

Why a whitelist: filters come from users, HTTP clients and (later) model output; passing
them to Chroma unchecked would let any metadata key or operator through and turn typos
into silently empty results. Accepted shape (all conditions must hold)::

    {"file_type": "pdf"}                              # shorthand for $eq
    {"doc_id": {"$in": ["ab12...", "cd34..."]}}
    {"sheet": {"$ne": "Summary"}, "page": 3}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from officeqa.errors import InvalidFilter

FIELDS: dict[str, type] = {
    "doc_id": str,
    "path": str,
    "file_type": str,
    "sheet": str,
    "page": int,
    "kind": str,
}
OPERATORS = ("$eq", "$in", "$ne")


Condition = tuple[str, str, Any]  # (field, operator, value)


def validate_filters(filters: Mapping[str, Any] | None) -> list[Condition]:
    """Check ``filters`` against the whitelist and return them as (field, op, value) triples."""
    if not filters:
        return []
    if not isinstance(filters, Mapping):
        raise InvalidFilter(f"filters must be an object of field -> condition, got {type(filters).__name__}")
    conditions: list[Condition] = []
    for name, condition in filters.items():
        if name not in FIELDS:
            raise InvalidFilter(f"unknown filter field {name!r}; allowed fields: {', '.join(FIELDS)}")
        if isinstance(condition, Mapping):
            if len(condition) != 1:
                raise InvalidFilter(f"filter on {name!r} must have exactly one operator, got {list(condition)}")
            op, value = next(iter(condition.items()))
        else:
            op, value = "$eq", condition
        if op not in OPERATORS:
            raise InvalidFilter(f"unknown operator {op!r} on {name!r}; allowed operators: {', '.join(OPERATORS)}")
        conditions.append((name, op, _coerce(name, op, value)))
    return conditions


def _coerce(name: str, op: str, value: Any) -> Any:
    kind = FIELDS[name]
    if op == "$in":
        if not isinstance(value, list | tuple) or not value:
            raise InvalidFilter(f"$in on {name!r} needs a non-empty list of values")
        return [_scalar(name, kind, v) for v in value]
    return _scalar(name, kind, value)


def _scalar(name: str, kind: type, value: Any) -> Any:
    if kind is int:
        if isinstance(value, bool):
            raise InvalidFilter(f"{name!r} takes an integer, got {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError) as exc:
            raise InvalidFilter(f"{name!r} takes an integer, got {value!r}") from exc
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise InvalidFilter(f"{name!r} takes a string, got {value!r}")
    return str(value)


def to_chroma_where(conditions: list[Condition]) -> dict[str, Any] | None:
    """The Chroma ``where`` clause for validated conditions (None when there are none)."""
    clauses = [{name: {op: value}} for name, op, value in conditions]
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def parse_cli_filter(text: str) -> tuple[str, dict[str, Any]]:
    """``field=value``, ``field=a,b`` ($in) or ``field!=value`` from the command line."""
    if "!=" in text:
        name, value = text.split("!=", 1)
        return name.strip(), {"$ne": value.strip()}
    if "=" not in text:
        raise InvalidFilter(f"filter {text!r} must look like field=value, field=a,b or field!=value")
    name, value = text.split("=", 1)
    values = [v.strip() for v in value.split(",")]
    return name.strip(), ({"$in": values} if len(values) > 1 else {"$eq": values[0]})
