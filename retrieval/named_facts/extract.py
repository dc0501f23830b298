"""All named facts of one stored report, chosen per field, cached by document id.

Why at question time and not at indexing: the fields are read from the stored parsed document in a few
tenths of a second (the first pages' tables and lines, sentence patterns over the text), so indexing stays as fast
as it was; a document id is its content hash, so what was read once stays true for the process.

Which reading wins for a field: a key-value row (公司简介, the cover) over a sentence over a people table over a
signature, and the first in page order among equals (公司简介 comes before any later table that repeats a label).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import replace

from officeqa.domain import ParsedDocument
from retrieval.named_facts.audit import audit_facts
from retrieval.named_facts.facts import NamedFact
from retrieval.named_facts.layout import layout_facts
from retrieval.named_facts.officers import officer_facts
from retrieval.named_facts.prose import prose_facts
from retrieval.named_facts.roles import role_facts

__all__ = ["FactCache", "read_facts"]

_RANK = {"table": 0, "line": 1, "sentence": 2, "people": 3, "signature": 4}
_CACHED = 256
_EMPLOYER_NUMBER = re.compile(r"\s+\d{2}-\d{7}$")
#: What an audit opinion's value must name: its kind. "审计意见：我们审计了…财务报表" is the heading of the report's
#: scope paragraph, not an opinion (a label reader takes any text after 审计意见).
_OPINION_KIND = re.compile(r"(?:无保留|保留|否定|无法表示)意见|unmodified|unqualified|qualified|adverse|disclaimer",
                           re.IGNORECASE)


def read_facts(document: ParsedDocument) -> dict[str, list[NamedFact]]:
    """Field -> the document's readings of it, best first (see the module docstring)."""
    readings = [*layout_facts(document.blocks), *prose_facts(document.blocks), *role_facts(document.blocks),
                *audit_facts(document.blocks), *officer_facts(document.blocks)]
    by_field: dict[str, list[NamedFact]] = {}
    for fact in map(_cleaned, readings):
        if fact.field == "audit_opinion" and not _OPINION_KIND.search(fact.value):
            continue
        by_field.setdefault(fact.field, []).append(fact)
    for field, facts in by_field.items():
        facts.sort(key=lambda f: (_RANK.get(f.source, 9), f.page if f.page is not None else 1 << 30))
        unique: dict[str, NamedFact] = {}
        for fact in facts:
            unique.setdefault(fact.value, fact)
        by_field[field] = list(unique.values())
    return by_field


def _cleaned(fact: NamedFact) -> NamedFact:
    """A 10-K cover prints the state of incorporation beside the IRS employer number ("Nevada 47-5205835")."""
    if fact.field == "incorporation":
        value = _EMPLOYER_NUMBER.sub("", fact.value)
        if value != fact.value:
            return replace(fact, value=value)
    return fact


class FactCache:
    """Named facts by document id (a content hash: what was read stays true), bounded."""

    def __init__(self) -> None:
        self._facts: dict[str, Mapping[str, list[NamedFact]]] = {}
        self._lock = threading.Lock()

    def facts(self, doc_id: str, document: ParsedDocument) -> Mapping[str, list[NamedFact]]:
        with self._lock:
            known = self._facts.get(doc_id)
        if known is not None:
            return known
        facts = read_facts(document)
        with self._lock:
            if len(self._facts) >= _CACHED:
                self._facts.pop(next(iter(self._facts)))
            self._facts[doc_id] = facts
        return facts
