"""The named fields of a report (法定代表人, 会计师事务所, auditor, CFO, …): how reports label them and how
questions ask for them, read from ``officeqa/assets/words/report_fields.txt``, and folding so that a printed
label ("公司的外文名称（如有）：") and a question ("外文名称是什么") compare alike.

Why a word list and not constants: other 年报 and 10-Ks print the same fields under a few more spellings;
a deployment adds one to the list without reading code.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from officeqa.words import phrase_table

__all__ = ["FIELDS", "PERSON_FIELDS", "Field", "asked_fields", "fold", "label_field"]

#: Fields whose value is a person (a name is checked for a name's shape; roles are also read from signatures).
PERSON_FIELDS = frozenset(
    ["legal_rep", "chairman", "board_secretary", "securities_rep", "company_head", "ceo", "cfo", "accounting_head",
     "signing_accountants"]
)
_OPTIONAL = re.compile(r"[（(]\s*(?:如有|if any|如适用)\s*[)）]", re.IGNORECASE)
_EDGES = re.compile(r"^[\s:：()（）]+|[\s:：()（）]+$")


@dataclass(frozen=True, slots=True)
class Field:
    """One named field: its key, the labels reports print it under, the words questions ask with."""

    key: str
    labels: tuple[str, ...]
    asks: tuple[str, ...]


def fold(text: str) -> str:
    """Full-width to half-width, lower case, no spaces, no "（如有）", no colons or brackets at the ends."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    text = _OPTIONAL.sub("", text)
    text = re.sub(r"\s+", " ", text).strip()
    if re.search(r"[\u4e00-\u9fff]", text):
        text = text.replace(" ", "")
    return _EDGES.sub("", text)


@cache
def _fields() -> dict[str, Field]:
    table = phrase_table("report_fields")
    labels, asks = table.get("label", {}), table.get("ask", {})
    return {key: Field(key, tuple(fold(p) for p in labels.get(key, ())), tuple(fold(p) for p in asks.get(key, ())))
            for key in dict.fromkeys([*labels, *asks])}


FIELDS: dict[str, Field] = _fields()


@cache
def _label_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for field in FIELDS.values():
        for label in field.labels:
            index.setdefault(label, field.key)
    return index


def label_field(cell: str) -> str | None:
    """The field a printed label names ("公司的法定代表人" -> "legal_rep"), or None."""
    return _label_index().get(fold(cell))


def asked_fields(question: str) -> list[str]:
    """The fields a question asks for, in the order it names them; a field whose ask word lies inside a longer
    ask word of another field is not counted ("签字会计师" asks for the accountants, not the firm)."""
    folded = fold(question)
    spans: list[tuple[int, int, str]] = []
    asks = sorted(((a, f.key) for f in FIELDS.values() for a in f.asks), key=lambda item: -len(item[0]))
    for ask, key in asks:
        for match in _find(folded, ask):
            if not any(s <= match and match + len(ask) <= e for s, e, _ in spans):
                spans.append((match, match + len(ask), key))
    spans.sort()
    return list(dict.fromkeys(key for _, _, key in spans))


def _find(text: str, word: str) -> list[int]:
    """Start offsets of ``word`` in ``text``; an ASCII word only as a whole word ("ceo" not in "ceos'")."""
    if not word:
        return []
    if word.isascii():
        return [m.start() for m in re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text)]
    return [m.start() for m in re.finditer(re.escape(word), text)]
