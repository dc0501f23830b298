"""Tables the PDF parser saw as text: unruled statement tables of English reports come out as paragraphs
("Revenue 1,681.4 1,465.2 1,516.0 216.2 (50.8) Cost of sales (1,547.3) ...") under a header paragraph
("(C$ millions, ...) Fiscal 2022 Fiscal 2021 Fiscal 2020 Fiscal 2021 Fiscal 2020").

Why strict: a row is taken only when its run of numbers has exactly as many values as the header has
period columns, so prose with numbers in it never becomes a fact. A year printed a second time in one
header is a comparison column ("Fiscal 2022 vs. Fiscal 2021" -> $ change), kept apart as a change.
"""

from __future__ import annotations

import re
import unicodedata

from indexing.reports.periods import Period

__all__ = ["data_rows", "fit_columns", "header_periods", "split_rows"]

_PAREN = re.compile(r"\([^()]{0,120}\)")
_PERIOD = re.compile(
    r"[$%]\s*change|(?:(?:fiscal|fy)\s*)?(?:(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\s+\d{1,2},?\s+)?(?:19[89]\d|20[0-4]\d)|\bq[1-4]\b",
    re.IGNORECASE,
)
_MONTH = re.compile(
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december)", re.IGNORECASE
)
_NUMBER = r"(?:\(?[-−]?\$?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\)?%?|-|—|–)"
_ROW = re.compile(
    rf"([A-Za-z][A-Za-z ,'’&/\-.()]*?[A-Za-z):])\s+((?:{_NUMBER})(?:\s+(?:{_NUMBER}))+)(?=\s+[A-Za-z]|\s*$)"
)


def header_periods(text: str) -> list[tuple[str, Period]] | None:
    """The period columns a header paragraph names, in order; None when it names fewer than two."""
    folded = _PAREN.sub(" ", unicodedata.normalize("NFKC", text))
    found = [m.group(0) for m in _PERIOD.finditer(folded)]
    if sum("change" not in t.lower() for t in found) < 2 or len(folded) > 40 * len(found) + 80:
        return None
    columns: list[tuple[str, Period]] = []
    seen: set[tuple[int | None, int | None]] = set()
    # "December 31, 2022 2021": the date printed once before the first year holds for every year column
    point = "end" if any(_MONTH.search(token) for token in found) else None
    for token in found:
        if "change" in token.lower():
            columns.append((token, Period(change=True)))
            continue
        year_match = re.search(r"(19[89]\d|20[0-4]\d)", token)
        year = int(year_match.group(1)) if year_match else None
        quarter_match = re.search(r"q([1-4])", token, re.IGNORECASE)
        quarter = int(quarter_match.group(1)) if quarter_match else None
        key = (year, quarter)
        if quarter is not None and year is None:
            relative = -1 if key in seen else 0
            period = Period(relative=relative, quarter=quarter)
        else:
            period = Period(year=year, point=point, quarter=quarter, change=key in seen)
        seen.add(key)
        columns.append((token, period))
    return columns


_BARE_YEAR = re.compile(r"(?:(?:fiscal|fy)\s*)?(?:19[89]\d|20[0-4]\d)", re.IGNORECASE)


def fit_columns(columns: list[tuple[str, Period]], cells: int) -> list[tuple[str, Period]] | None:
    """The header's columns for a row of ``cells`` values: all of them, or, when the header prints its years
    twice ("For the Fiscal Years Ended December 31, 2022, December 25, 2021 and December 26, 2020 | 2022 2021
    2020"), only its bare years or only its dates, whichever count matches; None when none does."""
    if len(columns) == cells:
        return columns
    tokens = [header for header, _ in columns]
    bare = [t for t in tokens if _BARE_YEAR.fullmatch(t.strip())]
    dated = [t for t in tokens if _MONTH.search(t)]
    for subset in (bare, dated):
        if len(subset) == cells:
            found = header_periods(" ".join(subset))
            if found is not None and len(found) == cells:
                return found
    return None


_LEADER = re.compile(r"(?:\s*\.){3,}\s*")  # dot leaders between a label and its figures ("Net income ......")
_OPEN_PAREN = re.compile(r"\(\s*(?=[\d$])")
_CLOSE_PAREN = re.compile(r"(?<=\d)\s+\)")  # "(11 )": a negative figure with a space before its parenthesis
_YEAR_CELL = re.compile(r"(?:19[89]\d|20[0-4]\d)")


def split_rows(text: str) -> list[tuple[str, list[str]]]:
    """(label, value cells) for every "label number number ..." run in a paragraph.

    10-K statements printed with dot leaders and spaced parentheses ("Equity in trust ....... (11 ) (6 )")
    are read the same as plain ones."""
    folded = unicodedata.normalize("NFKC", text)
    folded = _CLOSE_PAREN.sub(")", _OPEN_PAREN.sub("(", _LEADER.sub(" ", folded))).replace("$ ", "$")
    folded = folded.replace("$(", "($")  # "$ (9,926)": the sign before the dollar, as "($9,926)" reads
    rows = []
    for match in _ROW.finditer(folded):
        label = match.group(1).strip(" :.")
        cells = re.findall(_NUMBER, match.group(2))
        rows.append((label, [c.strip() for c in cells]))
    return rows


def data_rows(text: str) -> list[tuple[str, list[str]]]:
    """The rows of :func:`split_rows` that hold figures, not a run of years ("(in thousands) 2022 2021" is a
    header, and the paragraph that holds it is still a header paragraph)."""
    return [(label, cells) for label, cells in split_rows(text) if not all(_YEAR_CELL.fullmatch(c) for c in cells)]
