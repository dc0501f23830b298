"""Judge an answer of the question service against a held-out table question: exact, refused or wrong.

A computed answer (a table or rule answer, ``answer.mode == "rule"``) is judged on what it computed
(``metadata["handler"]``), falling back to its text; an answer that only quotes passages
(extractive) is exact when the quotes hold every gold item, and otherwise counts as refused: it
claims no value. A ``refuse`` question is wrong when a computed answer claims a value.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_GROUPED = re.compile(r"(?<=\d),(?=\d{3})")


def numbers_in(text: str) -> list[Decimal]:
    """Every number in ``text`` (grouped digits read as one number)."""
    out = []
    for match in _NUMBER.findall(_GROUPED.sub("", text)):
        try:
            out.append(Decimal(match))
        except InvalidOperation:
            continue
    return out


def _claims(answer: Any) -> bool:
    """Whether the answer states a computed value (a table or rule answer that is not a refusal)."""
    handler = answer.metadata.get("handler") or {}
    if answer.mode != "rule":
        return False
    return handler.get("outcome") != "refused" and bool(handler.get("items"))


def _handler_value(handler: dict[str, Any]) -> Decimal | None:
    data = handler.get("data") or {}
    if "value" in data and data.get("op") != "rank":
        try:
            return Decimal(str(data["value"]))
        except InvalidOperation:
            return None
    return None


def judge(question: dict[str, Any], answer: Any) -> str:
    """'exact', 'refused' or 'wrong' for one question of ``orders_questions.jsonl``."""
    kind, expected = question["kind"], question["expected"]
    text = answer.text
    claims = _claims(answer)
    if kind == "refuse":
        return "wrong" if claims else "refused"
    if kind == "number":
        if answer.mode != "rule":
            return "refused"
        handler = answer.metadata.get("handler") or {}
        if handler.get("outcome") == "refused" or not handler.get("items"):
            return "refused"
        value = _handler_value(handler)
        gold = Decimal(str(expected))
        if value is not None:
            if question.get("category") == "share" and abs(value) <= 1 < abs(gold):
                value *= 100  # a share may be computed as a fraction; the gold is a percentage
            if question.get("category") in ("avg", "share") and gold.as_tuple().exponent < 0:
                value = value.quantize(gold)  # an average is gold to the cent; the answer may show more places
            return "exact" if value == gold else "wrong"
        first = text.split("\n来源")[0].split("\nSource")[0]
        return "exact" if gold in numbers_in(first) else "wrong"
    items = [expected] if kind == "text" else list(expected)
    if kind == "ranked":
        positions = [text.find(i) for i in items]
        ok = all(p >= 0 for p in positions) and positions == sorted(positions)
        if kind == "ranked" and len(items) == 1 and claims:
            ok = ok and _first_named(text, items[0], answer)
    else:
        ok = all(i in text for i in items)
    if ok:
        return "exact"
    return "wrong" if claims else "refused"


def _first_named(text: str, item: str, answer: Any) -> bool:
    """For an argmax, the computed first item is the gold one (not merely mentioned somewhere)."""
    handler = answer.metadata.get("handler") or {}
    rows = handler.get("items") or []
    if rows:
        return str(rows[0].get("value", "")) == item or item in str(rows[0].get("value", ""))
    return item in text
