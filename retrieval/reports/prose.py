"""Counts an annual report prints only in its prose ("we owned over 1,300 patents", "approximately 294,000
employees"), read at question time from the report's page texts, with no model.

Why apart from the table facts: a count of things (patents, employees, stores) is rarely a table row; it is
a number directly followed by the counted noun in a sentence. The rule is strict because a wrong figure is
worse than none:
- the question asks for a count of a noun ("number of patents", "how many employees", "patent portfolio");
- a candidate is a number followed by that noun (or, for people, a word for staff: employees, colleagues,
  people…) with only words of the question between them ("1,300 awarded and pending patents" is not a count
  of patents when the question does not say "awarded" or "pending");
- every other word the question restricts the count with ("active pharmaceutical patents", "employees let
  go") is printed on the candidate's page;
- one value must be printed more often than any other; a tie is not answered.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from officeqa.words import word_set
from retrieval.reports.entities import aliases
from retrieval.reports.facts import Report
from retrieval.reports.pick import Cited, ReportAnswer

__all__ = ["Count", "asked_count", "prose_count", "prose_dividend"]

_SPAN = re.compile(
    r"(?:\bvalue\s+of|\bhow\s+many|\bnumber\s+of|\bcount\s+of)\s+(.+?)"
    r"(?=\s+(?:at\s+the\s+end|according|as\s+of|as\s+at|in\s+the\s+(?:annual|last)|within|listed|did|does|do|"
    r"has|have|had|was|were|is|are)\b|[?]|$)",
    re.IGNORECASE,
)
_GROUP_END = re.compile(r"\b(?:at|on|in|by|as|for|during|from|with|to|of|within|per)\b|[(),]", re.IGNORECASE)
#: Collection words: "patent portfolio" counts patents, "store count" counts stores.
_COLLECTION = ("portfolio", "count", "headcount")
#: Words of a count question that restrict nothing (``officeqa/assets/words/count_fillers.txt``).
_GENERIC = word_set("count_fillers")
_STAFF = (
    "employees", "people", "colleagues", "staff", "professionals", "personnel", "workforce",
    "headcount", "workers", "team members", "ftes",
)  # fmt: skip
#: Nouns whose "value" is money: a count of loans is not the value of the loan portfolio
#: (``officeqa/assets/words/money_nouns.txt``).
_MONEY_NOUNS = word_set("money_nouns")
_NUMBER = r"(?<![\d.,$€£¥-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(k\b|thousand\b|million\b)?"
_SCALE = {"k": Decimal(1000), "thousand": Decimal(1000), "million": Decimal(1_000_000)}
_WORD = re.compile(r"[a-z][a-z&-]*")


@dataclass(frozen=True, slots=True)
class Count:
    """What a count question asks: the counted nouns (plural) and the words that restrict the count."""

    nouns: tuple[str, ...]
    qualifiers: tuple[str, ...]
    modifiers: frozenset[str]  # words allowed between the number and the noun
    collection: str | None = None  # "portfolio": a candidate's sentence must name it too
    reduction: bool = False  # "employees let go": a number led by "reduction of", "cut", "laid off"


def _fold(text: str) -> str:
    """NFKC, lower case, curly apostrophes straight: questions and pages compared alike."""
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def _plural(word: str) -> str:
    """The plural a report prints a counted noun in ("patent portfolio" counts "patents", "company" "companies")."""
    if word.endswith("s"):
        return word
    return word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"


def asked_count(plain_question: str) -> Count | None:
    """The count a question asks for (``plain_question``: folded, the company's names removed), or None."""
    folded = _fold(plain_question)
    match = _SPAN.search(folded)
    if match is None:
        return None
    span = match.group(1).strip()
    inner = re.search(r"\bnumber\s+of\s+(.+)", span)
    if inner is not None:
        span = inner.group(1)
    words = _WORD.findall(span)
    group = _WORD.findall(_GROUP_END.split(span, maxsplit=1)[0])
    if not group:
        return None
    collection = next((w for w in group if w in _COLLECTION), None)
    if collection is not None and group.index(collection) > 0:
        head = group[group.index(collection) - 1]
    elif collection == "headcount" or inner is not None or match.group(0).startswith(("how", "number", "count")):
        plural = [w for w in group if w in _STAFF or (w.endswith("s") and not w.endswith("ss"))]
        head = collection or (plural[-1] if plural else group[-1])
    else:
        return None  # "value of total revenue": not a count
    noun = _plural(head)
    if noun in _MONEY_NOUNS:
        return None
    staff = noun in _STAFF or head in _STAFF or collection == "headcount"
    nouns = _STAFF if staff else (noun,)
    qualifiers = tuple(
        w for w in dict.fromkeys(words)
        if w not in _GENERIC and w not in _STAFF and w != head and w != collection and len(w) >= 3
    )  # fmt: skip
    if (staff or noun in _JOBS) and _REDUCED.search(folded[match.start() :]):
        kept = tuple(q for q in qualifiers if q not in _REDUCTION_WORDS)
        return Count(_JOBS, kept, frozenset(words), None, reduction=True)
    return Count(nouns, qualifiers, frozenset(words), collection if collection != "headcount" else None)


#: A workforce reduction asked ("employees let go", "jobs cut") and printed ("a reduction of almost 9,000
#: positions", "eliminated 300 roles"); a planned or announced one is not one made.
_REDUCED = re.compile(
    r"\b(?:let\s+go|laid\s+off|lay-?offs?|dismissed|made\s+redundant|redundan\w*|job\s+cuts?|cut|reduced|eliminated)\b"
)
_REDUCTION_WORDS = {"let", "laid", "off", "layoffs", "dismissed", "made", "redundant", "cut", "cuts", "reduced",
                    "eliminated", "job", "jobs", "redundancies"}  # fmt: skip
_JOBS = ("positions", "jobs", "roles", "employees", "staff", "ftes", "workers", "people")
_REDUCTION_LEAD = (
    r"(?:reductions?|cut|cuts|cutting|eliminat\w+|lay(?:ing)?\s+off|laid\s+off|redundancies|let\s+go)\s+"
    r"(?:of\s+)?(?:(?:about|almost|approximately|around|nearly|over|some|roughly|more\s+than)\s+)?"
)
_PLANNED = re.compile(r"\b(?:plan\w*|target\w*|expect\w*|intend\w*|announc\w*|will)\s+(?:[\w-]+\s+){0,2}$")


@dataclass(frozen=True, slots=True)
class _Seen:
    """One sighting of a candidate value: the page and the sentence (cut to 300 characters) printing it."""

    value: Decimal
    page: int | None
    sentence: str


def _value(number: str, scale: str | None) -> Decimal | None:
    """The whole number printed (times "thousand", "million"), or None for a bare year or a fraction."""
    try:
        value = Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None
    if scale:
        value *= _SCALE[scale]
    elif "," not in number and "." not in number and 1900 <= value <= 2100:
        return None  # a year, not a count
    return value if value == value.to_integral_value() else None


def _sentences(text: str) -> list[str]:
    """A page's text split into sentences, paragraphs and bullet items: a count is read within one."""
    return [s.strip() for s in re.split(r"(?<=[.;!?])\s+(?=[A-Z•\d(])|\n{2,}|•", text) if s.strip()]


def _page_has(page_words: set[str], qualifier: str) -> bool:
    """Whether the page prints the qualifier: a short one as a word, a longer one as any word's start (so
    "pharma" is printed by "pharmaceutical")."""
    if len(qualifier) <= 3:
        return qualifier in page_words
    return any(w.startswith(qualifier) for w in page_words)


def _candidates(count: Count, report: Report) -> list[_Seen]:
    """Every number printed as the count asked (the noun after it, only asked words between, stated as the
    company's), on pages that print every qualifier of the question."""
    nouns = "|".join(re.escape(n) for n in count.nouns)
    lead = _REDUCTION_LEAD if count.reduction else ""
    pattern = re.compile(lead + _NUMBER + r"\s+((?:[a-z][a-z-]*\s+){0,3}?)(?:" + nouns + r")\b")
    seen: list[_Seen] = []
    for page, text in report.pages:
        folded = _fold(text)
        page_words = set(_WORD.findall(folded))
        if not all(_page_has(page_words, q) for q in count.qualifiers):
            continue
        for printed in _sentences(unicodedata.normalize("NFKC", text)):
            sentence = _fold(printed)
            if count.collection is not None and count.collection not in sentence:
                continue
            for found in pattern.finditer(sentence):
                between = set(_WORD.findall(found.group(3)))
                if between - count.modifiers or not _stated(count, sentence, found, report):
                    continue  # "160 new patents": a kind the question does not ask for
                value = _value(found.group(1), found.group(2))
                if value is not None and not sentence[found.end() : found.end() + 2].startswith("%"):
                    seen.append(_Seen(value, page, printed[:300]))
    return seen


#: What states a count the company has: a verb of having before the number ("we had 405 employees", "our
#: portfolio contains 2,300 patents", "Kruger Products has 2,700 employees"), or employing around it.
_HAVING = re.compile(
    r"\b(?:have|has|had|own\w*|hold\w*|held|serves?|served|operat\w*|contain\w*|compris\w*|totall?ed|"
    r"totals|consist\w*|maintain\w*|workforce|headcount)\b"
)
_OTHERS = re.compile(r"\b(?:that|which|who)\s+(?:\w+\s+)?employ")
_SUBJECT = re.compile(r"\b(?:we|our|the\s+company|the\s+group)\b")
_EMPLOYING = re.compile(r"\bemploy(?:s|ed|ing)?\b")
#: A number of people hired, recruited, cut or honoured is not how many the company has.
_NOT_HELD = re.compile(r"\b(?:hir\w*|recruit\w*|reduc\w*|cut|laid|eliminat\w*|award\w*|recogni\w*|added|new)\b")


def _stated(count: Count, sentence: str, found: re.Match[str], report: Report) -> bool:
    """Whether the sentence states the count as the company's, for the report's year."""
    before, after = sentence[max(0, found.start() - 90) : found.start()], sentence[found.end() : found.end() + 45]
    if count.reduction:
        return not _PLANNED.search(sentence[: found.start()])
    years = [int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", after)]
    if report.year and years and max(years) < report.year:
        return False  # "and 220 employees at December 31, 2021"
    if _NOT_HELD.search(before) or _OTHERS.search(before) or ("team" in before and "team" not in count.modifiers):
        return False  # hired, cut; "a customer that employs 500 people"; "our R&D team consists of 73 employees"
    if found.group(0).endswith("people") and not _EMPLOYING.search(sentence):
        return False  # "fewer than 200,000 people in the United States" is no workforce
    if _EMPLOYING.search(before) or re.match(r"\s+(?:were\s+)?employed\b", after):
        return True
    names = [a for a in aliases(report) if len(a) >= 3]
    subject = _SUBJECT.search(before) or any(a in before for a in names)
    return bool(subject and _HAVING.search(before))


def _most_printed(seen: Sequence[_Seen]) -> _Seen | None:
    """The first sighting of the value printed more often than any other; None on a tie or nothing."""
    tally = Counter(s.value for s in seen).most_common(2)
    if not tally or (len(tally) > 1 and tally[0][1] == tally[1][1]):
        return None
    return next(s for s in seen if s.value == tally[0][0])


def _answer(report: Report, seen: _Seen, shown: str, unit: str | None) -> ReportAnswer:
    """The figure answer quoting the sentence that prints it, cited with its page."""
    original = " ".join(seen.sentence.split())
    text = (
        f"{shown} (printed in the report's text, not in a table): \"{original}\"\n"
        f"Source: {report.name}, page {seen.page}: {original}"
    )
    cited = Cited(report.path, report.name, seen.page, original)
    return ReportAnswer(text, "figure", "en", [cited], str(seen.value), unit)


def prose_count(plain_question: str, report: Report, english: bool) -> ReportAnswer | None:
    """The count the report's prose prints for the question, or None (not asked, not found, or ambiguous)."""
    if not english or not report.pages:
        return None
    count = asked_count(plain_question)
    if count is None:
        return None
    chosen = _most_printed(_candidates(count, report))
    return _answer(report, chosen, f"{chosen.value:,}", None) if chosen is not None else None


def prose_dividend(plain_question: str, report: Report, currency: str | None, english: bool) -> ReportAnswer | None:
    """The dividend per share the report's prose prints ("a dividend of $1.08 per common share for 2022"), the
    value printed most often for the report's year; special, one-time and preferred-share dividends are not it,
    nor a sentence about earlier years only or about one declared after the year.

    A per-share figure has a period: a quarterly or interim dividend ("a regular quarterly cash dividend of
    $0.27 per common share") answers only a question that asks for the quarterly / interim one, and an annual
    question never gets it (four quarters are not one figure). Only in the currency the question asks when it
    asks one and the report says which it uses."""
    if not english or not report.pages or not _DIVIDEND_ASKED.search(plain_question):
        return None
    if currency is not None and report.currency != currency:
        return None
    part_asked = bool(_PART_YEAR.search(plain_question))
    seen: list[_Seen] = []
    for page, text in report.pages:
        for printed in _sentences(unicodedata.normalize("NFKC", text)):
            years = [int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", printed)]
            outside = bool(report.year and years and (max(years) < report.year or min(years) > report.year))
            if _SPECIAL.search(printed) or outside:  # earlier years only, or one declared after the year
                continue
            for m in _DIVIDEND.finditer(printed):  # "an increase in the dividend of $0.015 per share" is a change
                if _CHANGE.search(printed[max(0, m.start() - 50) : m.start()]):
                    continue
                if bool(_PART_YEAR.search(printed)) == part_asked:
                    seen.append(_Seen(Decimal(m.group(1)), page, printed[:300]))
    chosen = _most_printed(seen)
    if chosen is None:
        return None
    period = " (full year)"
    if part_asked:
        period = " (quarterly)" if re.search(r"quarter", chosen.sentence, re.IGNORECASE) else " (interim)"
    return _answer(report, chosen, f"{chosen.value} per share{period}", None)


#: A part-year dividend: "quarterly", "for the quarter", "interim", "first-half".
_PART_YEAR = re.compile(r"\bquarter(?:ly|s)?\b|\binterim\b|\bhalf[- ]year\w*|\bfirst[- ]half\b", re.IGNORECASE)


_CHANGE = re.compile(r"\b(?:increas\w*|decreas\w*|rais\w*|rise|cut|lower\w*|higher|chang\w*)\b", re.IGNORECASE)
_DIVIDEND_ASKED = re.compile(r"\bdividends?\s+per\s+(?:common\s+|ordinary\s+)?share", re.IGNORECASE)
_DIVIDEND = re.compile(
    r"\bdividends?\s+of\s+(?:US|U\.S\.\s*)?\$\s?(\d+\.\d{2,4})\s+per\s+(?:common\s+|ordinary\s+)?share", re.IGNORECASE
)
#: Not the dividend per (common) share: a special or one-time one, or one on preferred shares.
_SPECIAL = re.compile(r"\bspecial\b|one-time|one-off|preferred|preference", re.IGNORECASE)
