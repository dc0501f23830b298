"""A named fact read from a report: which field, the value as printed, the page, and the row or sentence quoted.

Why its own small module: the readers (``layout`` for key-value tables and lines, ``prose`` for sentences and
signatures) and the answer text all speak this one type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.named_facts.fields import fold

__all__ = ["NamedFact", "looks_like_person", "usable_value"]

_NOT_VALUES = frozenset(
    ["无", "不适用", "适用", "是", "否", "现任", "离任", "男", "女", "姓名", "name", "n/a", "none", "-", "—", "/"]
)
_CJK_NAME = re.compile(r"^[\u4e00-\u9fff]{2,4}(?:[·•][\u4e00-\u9fff]{1,6})?$")
#: Words that make a capitalised phrase a firm, a title or a heading rather than a person.
_NOT_PERSON_WORDS = frozenset(
    ["llp", "llc", "inc", "ltd", "limited", "corporation", "corp", "company", "co", "group", "officer", "chief",
     "president", "director", "chairman", "report", "statements", "board", "committee", "accountants", "partners",
     "the", "and", "of", "annual", "financial", "executive", "vice", "secretary", "treasurer", "signature",
     "signatures", "title", "date", "name", "capacity", "page"]
)
_LATIN_NAME = re.compile(r"^(?:(?:dr|mr|mrs|ms)\.?\s+)?[A-Z][A-Za-z'’\-]+(?:\s+(?:[A-Z]\.|[A-Z][A-Za-z'’\-]+)){1,3}$")


_CONTACT = re.compile(r"(?:telephone|phone|tel|fax|facsimile|e-?mail|电话|传真)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class NamedFact:
    """``field`` (a key of ``fields.FIELDS``) is ``value`` on ``page``; ``quote`` is the row or sentence."""

    field: str
    value: str
    label: str
    page: int | None
    quote: str
    source: str  # "table", "line", "sentence", "people" (a 姓名 | 职务 table), "signature"


def looks_like_person(value: str) -> bool:
    """A person's name: 2–4 Chinese characters (with a "·" part), or two to four capitalised words."""
    value = value.strip()
    if fold(value) in _NOT_VALUES:
        return False
    names = [n for n in re.split(r"[、,，;；/\s]+", value) if n] if re.search(r"[\u4e00-\u9fff]", value) else [value]
    if names and all(_CJK_NAME.match(n) for n in names):
        return True
    words = {w.strip(".,").lower() for w in value.split()}
    return bool(_LATIN_NAME.match(value)) and not words & _NOT_PERSON_WORDS


def usable_value(value: str) -> bool:
    """Something a label can be answered with: not empty, not a check box, not a placeholder, not a phone line."""
    folded = fold(value)
    return (bool(folded) and folded not in _NOT_VALUES and "□" not in value and "☐" not in value
            and not _CONTACT.match(folded))
