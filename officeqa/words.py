"""Word lists as data: the words a question asks with, the stop words, comparison words.

Why files and not constants in each module: the same kinds of words (question words, stop words,
comparison words) were listed in several modules and drifted apart; a word added for one reader was
missing for the others. Each list is one file under ``officeqa/assets/words/`` that every module
reads through :func:`word_list`, and that a deployment can read and review without reading code.

File format: words separated by spaces or newlines; ``#`` starts a comment that runs to the end of
the line. Order is kept (some readers match longest first and sort themselves).

Phrase tables (:func:`phrase_table`) hold phrases with spaces in them ("principal executive offices"),
grouped: one line per group, ``<kind> <key>: phrase | phrase | ...``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["PHRASE_TABLES", "WORD_LISTS", "phrase_table", "word_list", "word_set"]

#: The shipped lists, by name (the file is ``<name>.txt``).
WORD_LISTS = (
    "comparison_words", "company_fillers_zh", "company_generic", "count_fillers", "interrogatives", "money_nouns",
    "question_words",
    "stop_words",
)
#: The shipped phrase tables, by name (the file is ``<name>.txt``).
PHRASE_TABLES = ("report_fields", "report_metrics", "report_sections")


@cache
def word_list(name: str) -> tuple[str, ...]:
    """The words of list ``name`` in file order, each once; a name not in :data:`WORD_LISTS` is a ``KeyError``."""
    if name not in WORD_LISTS:
        raise KeyError(f"no word list {name!r}; shipped lists: {', '.join(WORD_LISTS)}")
    text = resources.files("officeqa").joinpath("assets", "words", f"{name}.txt").read_text(encoding="utf-8")
    words: dict[str, None] = {}
    for line in text.splitlines():
        for word in line.split("#", 1)[0].split():
            words.setdefault(word, None)
    return tuple(words)


@cache
def word_set(name: str) -> frozenset[str]:
    """The words of list ``name`` as a set, for membership tests."""
    return frozenset(word_list(name))


@cache
def phrase_table(name: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """Table ``name`` as {kind: {key: phrases in file order}}; a name not in :data:`PHRASE_TABLES` is a ``KeyError``.

    A line that is not ``<kind> <key>: phrases`` is a ``ValueError`` naming the line (a typo in a shipped
    table must fail the tests, not drop a group silently)."""
    if name not in PHRASE_TABLES:
        raise KeyError(f"no phrase table {name!r}; shipped tables: {', '.join(PHRASE_TABLES)}")
    text = resources.files("officeqa").joinpath("assets", "words", f"{name}.txt").read_text(encoding="utf-8")
    table: dict[str, dict[str, tuple[str, ...]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        head, sep, body = line.partition(":")
        words = head.split()
        if not sep or len(words) != 2:
            raise ValueError(f"{name}.txt line {number}: expected '<kind> <key>: phrase | phrase'")
        phrases = tuple(dict.fromkeys(p.strip() for p in body.split("|") if p.strip()))
        group = table.setdefault(words[0], {})
        group[words[1]] = group.get(words[1], ()) + phrases
    return table
