"""What each side's currency vocabulary accepts today: a table's caption (``indexing.reports.currency.iso_currency``)
and a figure question's "in <currency>" (``retrieval.reports.question.read_question``).

Why pinned: the two overlap (both map ISO codes and "U.S. dollars"-style names to ISO codes) but are not the same
vocabulary. Folding the question side onto ``iso_currency`` would widen it (SEK, NOK, DKK, INR, "euros", "人民币",
"US$", ... would start to restrict a question's figures to one currency) and narrow it ("in U.S dollars", one dot,
is USD only on the question side). A refactor that changes a row here changes what users get; it must be meant.
"""

from __future__ import annotations

import pytest

from indexing.reports.currency import iso_currency
from retrieval.reports.question import read_question

#: name as written -> (caption side, question side as "What was revenue in <name> in 2023?")
TABLE: dict[str, tuple[str | None, str | None]] = {
    **{code: (code, code) for code in
       ("USD", "EUR", "GBP", "AUD", "CAD", "JPY", "CNY", "HKD", "CHF", "NZD", "SGD")},
    "usd": ("USD", "USD"),
    "SEK": ("SEK", None),
    "NOK": ("NOK", None),
    "DKK": ("DKK", None),
    "INR": ("INR", None),
    "XYZ": (None, None),
    "U.S. dollars": ("USD", "USD"),
    "U.S dollars": (None, "USD"),
    "US dollars": ("USD", "USD"),
    "US dollar": ("USD", "USD"),
    "US. dollars": (None, None),
    "United States dollars": ("USD", None),
    "Australian dollars": ("AUD", "AUD"),
    "Canadian dollars": ("CAD", "CAD"),
    "New Zealand dollars": ("NZD", None),
    "Hong Kong dollars": ("HKD", None),
    "Singapore dollars": ("SGD", None),
    "euros": ("EUR", None),
    "yen": ("JPY", None),
    "pounds sterling": ("GBP", None),
    "Swiss francs": ("CHF", None),
    "RMB": ("CNY", None),
    "人民币": ("CNY", None),
    "美元": ("USD", None),
    "港币": ("HKD", None),
    "US$": ("USD", None),
    "A$": ("AUD", None),
    "C$": ("CAD", None),
    "HK$": ("HKD", None),
    "£": ("GBP", None),
    "€": ("EUR", None),
    "$": (None, None),  # which dollar is not said
    "dollars": (None, None),
}


@pytest.mark.parametrize(("name", "expected"), sorted(TABLE.items()))
def test_each_side_maps_a_currency_name_as_pinned(name: str, expected: tuple[str | None, str | None]) -> None:
    caption, question = expected
    assert iso_currency(name) == caption
    assert read_question(f"What was revenue in {name} in 2023?").currency == question


@pytest.mark.parametrize(
    "question",
    [
        "What was revenue (USD) in 2023?",
        "2023年营业收入是多少美元？",
        "Revenue in 2023 in millions",
        "USD revenue 2023",
    ],
)
def test_a_question_names_its_currency_only_after_in(question: str) -> None:
    assert read_question(question).currency is None


def test_a_caption_is_read_whole_and_unnamed_dollars_stay_unknown() -> None:
    assert iso_currency("in thousands of U.S. dollars") == "USD"
    assert iso_currency("币种：人民币") == "CNY"
    assert iso_currency("in thousands of $") is None
    assert iso_currency(None) is None
