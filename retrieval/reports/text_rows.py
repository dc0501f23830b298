"""The printed lines of a report that may hold a figure question's figure, read from its parsed text: a line
with a number and the question's metric words, the primary statements' pages first.

Why beside the stored facts (``retrieval.reports.candidates``): the facts exist only for tables the parser read
as tables. A statement printed as lines of text ("Total assets 7,710,615 8,818,186" under "Statement of
financial position As at 30 June 2022"), or a table whose labels and values came apart, gives no fact; its
figure is still in the text, and the model can read it there when shown the line with its page and the
statement it stands in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from indexing.reports.statements import KEY, NOTE, STATEMENT, table_role
from officeqa.domain import Block

__all__ = ["TextRow", "text_rows"]

#: A figure as printed: two digits at least, thousands separators, decimals, an accounting bracket.
_NUMBER = re.compile(r"\(?-?\d[\d,]*\d(?:\.\d+)?\)?%?|\(?\d\.\d+\)?")
#: How much of a long line (a table flattened into one paragraph) is kept around the metric's words.
_WINDOW = 180
#: A metric's words this far into a line are still its row label ("Total revenue", "Net cash from operating").
_LABEL_LEAD = 60
#: A line of a contents page ("Statement of financial position 14") names a statement without being one.
_CONTENTS = re.compile(r"\s\d{1,3}\s*$")


@dataclass(frozen=True, slots=True)
class TextRow:
    """One printed line (or its part around the metric), its page and the statement title of that page."""

    text: str
    page: int | None
    title: str
    score: int


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def _titles(blocks: Iterable[Block]) -> dict[int | None, str]:
    """Each page's first statement or key-figures title (not a contents line)."""
    titles: dict[int | None, str] = {}
    for block in blocks:
        if block.page in titles:
            continue
        for line in (block.text or "").splitlines()[:3]:
            line = line.strip()
            if _title_like(line) and table_role(line, "", False) in (KEY, STATEMENT):
                titles[block.page] = line
                break
    return titles


def _title_like(line: str) -> bool:
    """A heading's shape: short, no contents page number after it, not a sentence leading into a table."""
    return 3 < len(line) < 100 and len(line.split()) <= 14 and not _CONTENTS.search(line) and not line.endswith(":")


def _tabular(text: str) -> bool:
    """A row of figures ("Total revenue 31,652 21,660"), not a sentence quoting one: numbers make up at least a
    third of its first tokens."""
    tokens = text.split()[:10]
    return bool(tokens) and sum(1 for t in tokens if _NUMBER.fullmatch(t.strip("£$€¥|"))) * 3 >= len(tokens)


def _lines(blocks: Iterable[Block]) -> Iterable[tuple[int | None, str]]:
    for block in blocks:
        for line in (block.text or "").splitlines():
            if _NUMBER.search(line):
                yield block.page, re.sub(r"\s+", " ", line).strip(" |")


def _window(line: str, start: int) -> str:
    """The line from the metric's first word on, cut to :data:`_WINDOW` characters at a space."""
    text = line[start:] if start > _LABEL_LEAD else line  # "Total revenue 31,652": the label's own first words
    if len(text) <= _WINDOW:
        return text
    cut = text.rfind(" ", 0, _WINDOW)
    return text[: cut if cut > 0 else _WINDOW] + " …"


def _score(line: str, words: Sequence[str], grams: Sequence[str]) -> tuple[int, int]:
    """(characters of the question's words the line holds, where the first of them starts)."""
    folded = _fold(line)
    found = [(m.start(), len(w)) for w in words if (m := re.search(rf"\b{re.escape(w)}", folded))]
    found += [(i, 2) for g in grams if (i := folded.find(g)) >= 0]
    if not found:
        return 0, 0
    return sum(n for _i, n in found), min(i for i, _n in found)


def text_rows(blocks: Sequence[Block], words: Sequence[str], grams: Sequence[str], limit: int) -> list[TextRow]:
    """The lines holding a number and the most of ``words`` (stems, English) or ``grams`` (two-character runs,
    Chinese); of the same score, rows of figures before sentences, then lines of a statement page; each once."""
    titles = _titles(blocks)
    minimum = 4  # one English content word, or two Chinese runs
    scored: list[tuple[int, int, int, int, TextRow]] = []
    seen: set[str] = set()
    for page, line in _lines(blocks):
        score, start = _score(line, words, grams)
        if score < minimum:
            continue
        shown = _window(line, start)
        if shown in seen or not _NUMBER.search(shown):
            continue
        seen.add(shown)
        title = titles.get(page, "")
        primary = 0 if title and table_role(title, "", False) != NOTE else 1
        scored.append((-score, 0 if _tabular(shown) else 1, primary, page or 0, TextRow(shown, page, title, score)))
    scored.sort(key=lambda item: item[:4])
    return [item[-1] for item in scored[:limit]]
