"""English words that say what is counted or what a number counts, without naming a column or a condition.

Why: WikiTableQuestions-style questions name their rows with a plural noun the table does not spell ("how many
games had at least 15,000 spectators in attendance": the rows are games, the spectators are what 15,000 counts).
Left unplaced, each such word refuses a question whose every condition was read; placed, it restricts nothing.
Only these two positions are read, never a noun elsewhere: a noun anywhere else may be a condition.

- the counted head: the one plural word right after "how many / number of / count of" (and "the", "these",
  "total"), when no column or cell value took it: it names the rows ("games", "vessels", "trains"), unless it is a
  word that is usually a measure summed over rows ("medals", "points", "goals", "votes"), or the table has a
  count-like numeric column ("Quantity", "Total"): then it stays unplaced.
- the unit of a number: the plural word right after a numeric condition ("at least 500 parking spaces") or a
  numeric column's name ("the most bronze medals" of a column Bronze).
"""

from __future__ import annotations

import re

from retrieval.tables.linked import Linked, QuestionText

__all__ = ["link_counted_head", "link_number_units"]

_HEAD = re.compile(r"\b(?:how many|number of|count of)\s+(?:(?:of\s+)?(?:the|these|those|total|all)\s+)*"
                   r"([a-z]{3,}s)\b(?!\s*(?:'s|of\b))")
#: Plural nouns that are usually a quantity of each row ("how many medals did Norway win" sums a medal column):
#: as the counted head they stay unplaced, so the question refuses rather than count rows.
MEASURE_NOUNS = frozenset({
    "medals", "points", "goals", "wins", "losses", "votes", "years", "days", "hours", "minutes", "seconds", "runs",
    "yards", "times", "seats", "titles", "championships", "cups", "trophies", "awards", "people", "viewers",
    "spectators", "passengers", "laps", "assists", "caps", "apps", "appearances", "tries", "kills", "deaths",
    "casualties", "lives", "miles", "kilometers", "metres", "meters", "feet", "dollars", "tons", "tonnes",
    "inhabitants", "residents", "members", "students", "employees", "staff", "users", "copies", "sales", "units",
    "strokes", "matches", "games", "episodes", "seasons", "races", "events", "stars", "nominations", "victories",
    "defeats", "draws", "ties", "saves", "rebounds", "touchdowns", "innings", "wickets", "shots", "homers",
})
#: A numeric column with one of these names counts something per row ("Quantity" of vessels ordered): with one in
#: the table, the counted head may be what it counts, so it is not read as the rows.
_COUNT_COLUMNS = re.compile(r"^(?:quantity|qty|number|count|total|amount|no\.?|#|num|units)(?:\s|$)|\b(?:quantity|qty|"
                            r"total|count)\b")
_UNIT = re.compile(r"\s{0,2}(?:([a-z]+)\s{1,2})?([a-z]{3,}s|people)\b")


def link_counted_head(t: QuestionText, linked: Linked) -> None:
    """"how many games …": the head names the rows (counted), when nothing else took it and it is no measure."""
    if any(c.is_measure and _COUNT_COLUMNS.search(c.name.casefold().strip()) for c in linked.table.columns):
        return
    for m in _HEAD.finditer(t.text):
        word = m.group(1)
        if word in MEASURE_NOUNS or not t.free(m.start(1), m.end(1)):
            continue
        t.take(m.start(1), m.end(1))
        linked.row_noun = True


def link_number_units(t: QuestionText, linked: Linked) -> None:
    """"at least 15,000 spectators", "the most bronze medals": the plural word right after a numeric condition or
    a numeric column's name is what the number counts, not a condition."""
    ends = [cond.end for cond in linked.numeric]
    ends += [m.end for m in linked.mentions if m.columns and all(c.kind == "decimal" for c in m.columns)]
    for end in ends:
        m = _UNIT.match(t.text, end)
        if m is None or (m.group(1) and t.free(m.start(1), m.end(1))):
            continue  # a word between the number and the unit is read as something else first ("500 parking spaces")
        if t.free(m.start(2), m.end(2)):
            t.take(m.start(2), m.end(2))
