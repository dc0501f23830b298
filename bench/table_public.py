"""WikiTableQuestions in the table dev loop (issue 35, item 8): exact / refused / wrong of the table layer, no model.

Why split by TABLE: a rule tuned on some questions of a table would be measured on its other questions; the split
is a hash of the table's path (``csv/203-csv/733.csv``), fixed before any tuning: even hash = tuning half, odd =
held-out half. The held-out half is run once, at the end. ``heldout2`` (made after the first held-out half was
read): the same filters over WTQ's ``data/training.tsv`` (tables disjoint from pristine-unseen's), run once.

The questions: WTQ's ``pristine-unseen-tables.tsv`` whose wording asks for one count, sum, average, superlative or
lookup ("how many…", "which … the most", "what is the total…"), a deterministic sample of ``--wtq-limit`` per half.
Each question's table (its csv, read from the mirror's git objects, never copied into the repository) is parsed by
the product's csv parser and stored in a DuckDB table store; the question is asked of that table alone
(``answer_table_question`` with its document), as a user who opened that file would.

Judge: a refused answer is refused; an exact one is exact when its value (the number, or the first row's label)
equals WTQ's target (numbers compared as numbers, text case-folded), else wrong.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import subprocess
from collections import Counter
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

DEFAULT_WTQ = Path("/work/.mirror/ppasupat+WikiTableQuestions/repo")

#: Wordings one aggregation, filter, count, superlative or lookup answers.
_SINGLE = re.compile(r"^(?:how many\b|what (?:is|was) the (?:total|average|sum|number|highest|lowest|largest|"
                     r"smallest|most|least)\b|which \w+(?: \w+)? (?:has|had|have|got|received|won|scored) the "
                     r"(?:most|least|highest|lowest|largest|fewest|greatest)\b|who (?:has|had|got|received|won|"
                     r"scored) the (?:most|least|highest|lowest|fewest)\b)", re.IGNORECASE)
_SKIP = re.compile(r"\b(?:or|than|before|after|difference|between|consecutive|next|previous|above|below|same|"
                   r"combined|only|first|last|times)\b", re.IGNORECASE)


def _git(repo: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], check=True, capture_output=True,
                          text=True).stdout


def half_of(table_path: str) -> str:
    """"tuning" or "heldout": a hash of the table's path, fixed before any tuning."""
    return "tuning" if hashlib.sha256(table_path.encode()).digest()[0] % 2 == 0 else "heldout"


#: The second held-out set: WTQ's training file, whose tables are disjoint from pristine-unseen's (WTQ's own
#: design), made after the first held-out half had been read; every one of its tables is in it (no split).
HELDOUT2 = "heldout2"


def wtq_questions(repo: Path, half: str, limit: int) -> list[dict[str, str]]:
    """The sampled single-operation questions of one half (a sha256 order of their ids: deterministic)."""
    source = "data/training.tsv" if half == HELDOUT2 else "data/pristine-unseen-tables.tsv"
    rows = csv.DictReader(io.StringIO(_git(repo, source)), delimiter="\t", quoting=csv.QUOTE_NONE)
    picked = [r for r in rows if _SINGLE.search(r["utterance"]) and not _SKIP.search(r["utterance"])
              and (half == HELDOUT2 or half_of(r["context"]) == half) and "|" not in r["targetValue"]]
    picked.sort(key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
    return picked[:limit]


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").strip())
    except InvalidOperation:
        return None


def _matches(got: str, gold: str, column: str = "") -> bool:
    g, t = _number(got), _number(gold)
    if g is not None and t is not None:
        return g == t
    head, _, tail = gold.strip().rpartition(" ")
    if head and tail.casefold() == got.strip().casefold() and head.casefold() in column.casefold():
        return True  # "Season 2" for the cell 2 of the column Season
    return got.strip().casefold() == gold.strip().casefold() or (
        bool(gold.strip()) and got.strip().casefold().split(" (")[0] == gold.strip().casefold())


def _value(result: Any) -> str | None:
    data = result.data or {}
    if "value" in data and data.get("op") != "rank":
        return str(data["value"])
    return str(result.items[0].value) if result.items else None


def run_wtq(repo: Path, half: str, limit: int, work: Path) -> tuple[Counter[str], list[str]]:
    """exact / refused / wrong over one half, and one table line per question."""
    from indexing.parsing import parse_file
    from indexing.table_store import TableStore
    from retrieval.tables import answer_table_question

    questions = wtq_questions(repo, half, limit)
    work.mkdir(parents=True, exist_ok=True)
    counts: Counter[str] = Counter()
    lines: list[str] = []
    store = TableStore(work / f"wtq_{half}.duckdb")
    try:
        stored: dict[str, str] = {}
        for q in questions:
            context = q["context"]
            if context not in stored:
                path = work / context.replace("/", "_")
                path.write_text(_git(repo, context), encoding="utf-8")
                stored[context] = f"wtq:{context}"
                store.put(stored[context], str(path), parse_file(path))
            result = answer_table_question(q["utterance"], store, [stored[context]], "en")
            value = _value(result) if result.outcome == "exact" else None
            group = result.query or ""
            outcome = "refused" if value is None else "exact" if _matches(value, q["targetValue"], group) else "wrong"
            counts[outcome] += 1
            text = " ".join(result.answer_text.split())[:150].replace("|", "/")
            lines.append(f"| {q['id']} | {q['utterance']} | {q['targetValue']} | {outcome} | {text} |")
    finally:
        store.close()
    return counts, lines
