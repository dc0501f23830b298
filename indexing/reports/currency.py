"""The currency a report's amounts are in, as an ISO code: from a table's own caption ("in thousands of
U.S. dollars", "币种：人民币") or, for the whole report, from how often each currency is named.

Why: "what is the cash flow from operations (in USD)" asked of an Australian report that prints "$" for
Australian dollars must not get the Australian figure as US dollars; a report whose currency cannot be told
gets no figure for a question that names one.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["iso_currency", "report_currency"]

_ISO = ("USD", "EUR", "GBP", "AUD", "CAD", "JPY", "CNY", "HKD", "CHF", "NZD", "SGD", "SEK", "NOK", "DKK", "INR")
_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("USD", re.compile(r"US\$|\bUSD\b|U\.\s?S\.\s+dollars?|\bUS\s+dollars?|United\s+States\s+dollars?|美元", re.I)),
    ("AUD", re.compile(r"A\$|\bAUD\b|Australian\s+dollars?", re.I)),
    ("CAD", re.compile(r"C\$|\bCAD\b|Canadian\s+dollars?", re.I)),
    ("NZD", re.compile(r"NZ\$|\bNZD\b|New\s+Zealand\s+dollars?", re.I)),
    ("HKD", re.compile(r"HK\$|\bHKD\b|Hong\s+Kong\s+dollars?|港元|港币", re.I)),
    ("SGD", re.compile(r"S\$|\bSGD\b|Singapore\s+dollars?", re.I)),
    ("GBP", re.compile(r"£|\bGBP\b|pounds?\s+sterling|\bsterling\b", re.I)),
    ("EUR", re.compile(r"€|\bEUR\b|\beuros?\b|欧元", re.I)),
    ("CHF", re.compile(r"\bCHF\b|Swiss\s+francs?", re.I)),
    ("JPY", re.compile(r"\bJPY\b|\byen\b|日元", re.I)),
    ("CNY", re.compile(r"人民币|\bRMB\b|\bCNY\b")),
)
#: A listing names the home currency of a report that prints "$" only (each mention counts as one).
_EXCHANGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("AUD", re.compile(r"\bASX\b|Australian\s+Securities\s+Exchange")),
    ("CAD", re.compile(r"\bTSX\b|Toronto\s+Stock\s+Exchange")),
    ("GBP", re.compile(r"London\s+Stock\s+Exchange|\bAIM\b")),
)
_SEC = re.compile(r"Form\s+10-K|Securities\s+and\s+Exchange\s+Commission", re.I)
_DOLLAR = re.compile(r"(?<![A-Za-z])\$")
_MIN_MENTIONS = 3
_DOMINANCE = 1.5
_SEC_FILER = 5


def iso_currency(name: str | None) -> str | None:
    """The ISO code a table caption's currency names ("U.S. dollars", "C$", "人民币"), None when it is
    unnamed or only "$" (which dollar is not said)."""
    if not name:
        return None
    text = unicodedata.normalize("NFKC", name).strip()
    if text.upper() in _ISO:
        return text.upper()
    for code, pattern in _NAMES:
        if pattern.search(text):
            return code
    return None


def report_currency(text: str) -> str | None:
    """The currency the report's amounts are in, or None when the text does not tell one currency apart.

    An SEC filer (10-K) that prints "$" reports in US dollars; otherwise the most named currency (listings
    count for their home currency), when it is named at least three times and half again as often as the
    next."""
    folded = unicodedata.normalize("NFKC", text)
    counts = {code: len(pattern.findall(folded)) for code, pattern in _NAMES}
    exchanges = {code: len(pattern.findall(folded)) for code, pattern in _EXCHANGES}
    dollars = len(_DOLLAR.findall(folded))
    if len(_SEC.findall(folded)) >= _SEC_FILER and not any(exchanges.values()) and dollars > counts["GBP"]:
        return "USD"
    for code, n in exchanges.items():
        counts[code] += n
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    (top, first), (_, second) = ranked[0], ranked[1]
    if first >= _MIN_MENTIONS and first >= _DOMINANCE * second:
        return top
    return None
