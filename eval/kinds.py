"""Per-kind outcomes of a real-document run: exact / refused / wrong, and whether the gold page was cited.

Why apart from the overall metrics: on real reports the question is "how often is a figure right, how
often does it refuse, how often is it wrong" for each kind of question (figure, named fact, computed,
not in the report, summary), and whether the answer points at the page that holds it. Only tasks with
gold ``pages`` are counted, so the generated 30-task set's metrics stay as they were.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any, Protocol

from eval.answer_metrics import says_not_found


class TaskResult(Protocol):
    """What the per-kind counts read of a task's result (``eval.harness.TaskResult`` is the one implementation)."""

    @property
    def kind(self) -> str: ...

    @property
    def answer_correct(self) -> bool: ...

    @property
    def answer(self) -> str: ...

    @property
    def page_cited(self) -> bool | None: ...

__all__ = ["by_kind", "outcome_of", "page_cited"]


def page_cited(citations: Iterable[Mapping[str, Any]], pages: Mapping[str, Sequence[int]]) -> bool:
    """Whether a referenced citation of a gold document (by file name) covers one of its gold ``pages``."""
    gold = {PurePath(d).name: list(p) for d, p in pages.items()}
    for citation in citations:
        if citation.get("referenced") is False:
            continue
        wanted = gold.get(PurePath(str(citation.get("document") or citation.get("path") or "")).name)
        if not wanted:
            continue
        first = citation.get("page")
        if not isinstance(first, int):
            continue
        last = citation.get("page_end") if isinstance(citation.get("page_end"), int) else first
        if any(first <= p <= last for p in wanted):
            return True
    return False


def outcome_of(correct: bool, answer: str) -> str:
    """exact when right, refused when it says the documents do not hold it, else wrong."""
    if correct:
        return "exact"
    return "refused" if says_not_found(answer) else "wrong"


def by_kind(results: Sequence[TaskResult]) -> dict[str, dict[str, int]]:
    """{kind: {tasks, exact, refused, wrong, page_cited, with_page}} over tasks with gold pages or no evidence."""
    table: dict[str, dict[str, int]] = {}
    for r in results:
        if r.page_cited is None and r.kind != "not_in_report":
            continue
        row = table.setdefault(
            r.kind, {"tasks": 0, "exact": 0, "refused": 0, "wrong": 0, "page_cited": 0, "with_page": 0}
        )
        row["tasks"] += 1
        row[outcome_of(r.answer_correct, r.answer)] += 1
        if r.page_cited is not None:
            row["with_page"] += 1
            row["page_cited"] += int(r.page_cited)
    return table
