"""Pure checks behind the eval harness: does a text hold the gold evidence, is an answer right.

Why pure functions over plain data: the harness, its tests and anyone reading a report must
agree on what "correct" means, so each rule is one small function with literal-input tests.

Matching is done on a normalised form: NFKC (full-width folded), lower case, whitespace and the
table cell separator "|" removed, and thousands separators dropped between digits — so
"1,286,000.00" in an answer matches "1286000" in an expectation and a table row matches however
its cells were joined.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from officeqa.scripts import HAN

__all__ = [
    "ExpectationResult",
    "check_expectation",
    "contains",
    "holds_evidence",
    "normalize",
    "numbers_in",
    "says_not_found",
    "states_figure",
]

_SPACE_OR_BAR = re.compile(r"[\s|]+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# A number standing on its own: not glued to letters, codes (GYS-006), dates (2024-03-29), times or phones. A
# minus sign after a space or bracket is a sign, not a code's dash ("a return of (-5.97%)"), and a figure in pence
# ("0.19p") stands on its own too.
_NUMBER = re.compile(
    r"(?:(?<=[\s(（]-)|(?<=^-)|(?<![A-Za-z0-9_.\-/:]))(\d+(?:,\d{3})*(?:\.\d+)?)"
    r"(?![A-OQ-Za-oq-z0-9_\-/:]|p[A-Za-z]|\.\d)\s*(万亿|亿|万|千|百万|million|billion|k\b)?",
    re.IGNORECASE,
)
_SCALE = {"万": 10_000, "千": 1_000, "百万": 1_000_000, "亿": 100_000_000, "万亿": 10**12, "million": 1_000_000,
          "billion": 1_000_000_000, "k": 1_000}
_NOT_FOUND = re.compile(
    r"未找到|没有找到|找不到|未检索到|没有检索到|未提及|没有提及|未涉及|没有涉及|无相关|没有相关|未包含|没有包含|未能找到|"
    r"未查到|没有查到|无法回答|无法确定|没有提供|未提供|无法给出确定的答案|"
    r"not found|no (?:relevant |matching )?(?:information|content|answer)|"
    r"(?:does|do) not (?:mention|contain|say|include|cover)|(?:cannot|can't|could not|couldn't) (?:find|answer)|"
    r"no indexed content|not (?:mentioned|covered|stated)|no exact answer",
    re.IGNORECASE,
)
# A figure as an answer states it: a number with thousands separators or decimals, or of five digits and more
# (years such as 2019 and page numbers are not figures).
_FIGURE = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d{5,})(?![\w])")
POINTS_SHARE = 0.6
_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
_CJK = re.compile(f"[{HAN}]")


def normalize(text: str) -> str:
    """The comparison form of a text (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return _SPACE_OR_BAR.sub("", _THOUSANDS.sub("", folded))


def contains(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` once both are normalised."""
    wanted = normalize(needle)
    return bool(wanted) and wanted in normalize(haystack)


def holds_evidence(text: str, evidence: str) -> bool:
    """Whether ``text`` holds a gold evidence text.

    Evidence written as a table row ("成都 | 二类 | 370 | 530") matches a line that has those cells in
    that order, however the row is rendered: "成都 | 二类 | 370 | 530" in a parsed table, or
    "城市: 成都, 城市类别: 二类, 普通员工（元/晚）: 370, …" in a chunk or quote. Other evidence must occur
    as a whole.
    """
    if " | " not in evidence:
        return contains(text, evidence)
    cells = [normalize(cell) for cell in evidence.split(" | ") if normalize(cell)]
    for line in text.splitlines() or [text]:
        folded, position = normalize(line), 0
        for cell in cells:
            found = folded.find(cell, position)
            if found < 0:
                break
            position = found + len(cell)
        else:
            return True
    return False


def numbers_in(text: str) -> list[Decimal]:
    """Every number the text states, scaled by a following 万/亿/million…; "9,876.54万" -> 98765400."""
    folded = unicodedata.normalize("NFKC", text)
    found: list[Decimal] = []
    for match in _NUMBER.finditer(folded):
        try:
            value = Decimal(match.group(1).replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the pattern only admits digits
            continue
        found.append(value)
        unit = (match.group(2) or "").lower()
        if unit in _SCALE:
            found.append(value * _SCALE[unit])
    return found


def states_figure(text: str) -> bool:
    """Whether the answer states a figure (an amount or a decimal), which a "not in this report" answer must not."""
    return bool(_FIGURE.search(unicodedata.normalize("NFKC", text)))


def says_not_found(text: str) -> bool:
    """Whether an answer says the documents do not hold the answer (either language), or says nothing."""
    return not text.strip() or bool(_NOT_FOUND.search(text))


def _number_present(spec: Mapping[str, Any], values: Sequence[Decimal]) -> bool:
    """Whether ``values`` hold the spec's figure, or one of its ``alternatives`` (the same amount as a table
    printed it: "in thousands" tables state 4,695,943 for $4,695,943,000), each within the tolerance."""
    tol = Decimal(str(spec.get("tol", 0)))
    rel = Decimal(str(spec.get("rel_tol", 0)))
    for raw in (spec["value"], *spec.get("alternatives", ())):
        target = Decimal(str(raw))
        allowed = max(tol, abs(target) * rel)
        if any(abs(v - target) <= allowed for v in values):
            return True
    return False


def _alternatives(fact: str | Sequence[str]) -> list[str]:
    return [fact] if isinstance(fact, str) else list(fact)


def _in_language(text: str, language: str) -> bool:
    """Whether the answer's own words are in ``language`` (quotes may be in any language)."""
    if language == "en":
        return len(_LATIN_WORD.findall(text)) >= 3
    if language == "zh":
        return bool(_CJK.search(text))
    return True


@dataclass(slots=True)
class ExpectationResult:
    """The verdict on one answer: correct or not, why not, and the outcome class of value questions."""

    correct: bool
    outcome: str | None  # "exact" | "refused" | "wrong" for tasks that expect a value; None otherwise
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"correct": self.correct, "outcome": self.outcome, "failures": self.failures}


VALUE_KEYS = ("exact", "number", "numbers")


def check_expectation(expect: Mapping[str, Any], answer: str, language: str | None = None) -> ExpectationResult:
    """Check ``answer`` against a task's expectation; every key present must hold.

    Keys: ``exact`` (a string, or a list of accepted strings, that must appear), ``numbers`` (each
    ``{"value", "tol"?, "rel_tol"?, "alternatives"?}`` must be stated), ``regex``, ``facts`` (each a string or a list
    of accepted spellings, all must appear), ``forbidden`` (none may appear), ``not_found`` (the
    answer must say the documents do not cover it), ``no_figure`` (the answer states no amount or
    decimal), ``points`` (at least :data:`POINTS_SHARE` of these key points appear: summaries),
    ``language`` ("zh"/"en": the answer's language field and its own words).
    """
    failures: list[str] = []
    refused = says_not_found(answer)
    if "exact" in expect:
        accepted = _alternatives(expect["exact"])
        if not any(contains(answer, a) for a in accepted):
            failures.append(f"missing exact value {' / '.join(accepted)}")
    specs = list(expect.get("numbers", []))
    if "number" in expect:
        specs.append(expect["number"] if isinstance(expect["number"], Mapping) else {"value": expect["number"]})
    if specs:
        values = numbers_in(answer)
        for spec in specs:
            if not _number_present(spec, values):
                failures.append(f"missing number {spec['value']}")
    if "regex" in expect and not re.search(expect["regex"], unicodedata.normalize("NFKC", answer)):
        failures.append(f"no match for /{expect['regex']}/")
    for fact in expect.get("facts", []):
        accepted = _alternatives(fact)
        if not any(contains(answer, a) for a in accepted):
            failures.append(f"missing fact {' / '.join(accepted)}")
    for bad in expect.get("forbidden", []):
        if contains(answer, bad):
            failures.append(f"contains forbidden {bad}")
    if expect.get("not_found") and not refused:
        failures.append("does not say the documents do not cover it")
    if expect.get("no_figure") and states_figure(answer):
        failures.append("states a figure")
    points = list(expect.get("points", []))
    if points:
        covered = sum(contains(answer, p) for p in points)
        if covered < POINTS_SHARE * len(points):
            failures.append(f"covers {covered} of {len(points)} key points")
    wanted_language = expect.get("language")
    if wanted_language:
        if language is not None and language != wanted_language:
            failures.append(f"language {language}, expected {wanted_language}")
        elif not _in_language(answer, wanted_language):
            failures.append(f"answer text is not in {wanted_language}")
    correct = not failures
    outcome = None
    if any(key in expect for key in VALUE_KEYS):
        outcome = "exact" if correct else ("refused" if refused else "wrong")
    return ExpectationResult(correct, outcome, failures)


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None (None when there are none)."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
