"""Which named fields a question asks for, or none: the ask words of ``report_fields.txt`` minus the questions
they do not settle — someone else's field ("控股股东的法定代表人"), an amount or a duration ("会计师事务所的报酬
是多少", "how long has it been the auditor"), a person field asked without asking who.

Why decline rather than guess: a declined question goes on to retrieval, which quotes passages; a wrong name
stated as the answer is worse than no answer.
"""

from __future__ import annotations

import re
from functools import cache

from officeqa.words import phrase_table
from retrieval.named_facts.fields import PERSON_FIELDS, asked_fields, fold

__all__ = ["wanted_fields"]

#: Fields that are identifiers: "股票代码是多少" asks for the code, not an amount.
_IDENTIFIERS = frozenset(["stock_code", "short_name", "exchange", "website", "email", "full_name", "english_name",
                          "registered_address", "office_address"])
_PER_SHARE = re.compile(r"每\s*(?:10|十)?\s*股|per\s+(?:common\s+)?share", re.IGNORECASE)
_WHO = re.compile(r"谁|姓名|名字|哪位|是|叫|\bwho\b|\bwhom\b|\bname\b|\bnamed\b", re.IGNORECASE)


@cache
def _blocks() -> dict[str, tuple[str, ...]]:
    blocks = phrase_table("report_fields").get("block", {})
    return {key: tuple(fold(p) for p in phrases) for key, phrases in blocks.items()}


def _has(folded: str, words: tuple[str, ...]) -> bool:
    for word in words:
        if word.isascii():
            if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", folded):
                return True
        elif word in folded:
            return True
    return False


def wanted_fields(question: str) -> list[str]:
    """The fields to answer, in the order the question names them; empty when it is not such a question."""
    fields = asked_fields(question)
    if not fields:
        return []
    folded = fold(question)
    blocks = _blocks()
    if _has(folded, blocks.get("other_party", ())):
        return []
    amount = _has(folded, blocks.get("amount", ()))
    if amount and not set(fields) <= _IDENTIFIERS and not (fields == ["dividend_plan"] and _PER_SHARE.search(question)):
        return []
    if all(f in PERSON_FIELDS for f in fields) and not _WHO.search(question):
        return []
    return fields
