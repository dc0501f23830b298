"""The eval task file (``eval/tasks.jsonl``): one JSON object a line, loaded into :class:`Task`.

A task is what a demanding user asks, plus what a right answer must show:

- ``id``, ``kind`` (fact, clause, comment, table_cell, aggregation, count, extraction, outline,
  summary, comparison, cross_document, version_conflict, unanswerable, follow_up, ...), ``question``;
- ``history``: earlier turns ``[{"role": "user"|"assistant", "content"}]`` for follow-ups;
- ``documents``: file names relative to the knowledge-base folder that the user put in scope, or null;
- ``expected_route``: the L0 route a correct router takes (a name, or a list of accepted names);
- ``evidence``: gold evidence, each ``{"document", "locator": {page|sheet|row|slide|heading}, "text"}``
  where ``text`` must occur in a retrieved or cited chunk of that document;
- ``expect``: the checkable expectation (see :func:`eval.answer_metrics.check_expectation`);
- ``pages``: optional gold pages, ``{"document": [page, ...]}`` (PDF, 1-based): the harness records whether a
  citation points at one of them (real-report sets, where "the page holding the answer" is the check).

A malformed line is reported with the file, line number and reason, in one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from officeqa.errors import ConfigurationError

__all__ = ["DEFAULT_TASKS", "Evidence", "Task", "load_tasks"]

DEFAULT_TASKS = Path(__file__).resolve().parent / "tasks.jsonl"

_EXPECT_KEYS = {"exact", "number", "numbers", "regex", "facts", "forbidden", "not_found", "language", "no_figure",
                "points"}
_LOCATOR_KEYS = {"page", "sheet", "row", "slide", "heading"}


@dataclass(frozen=True, slots=True)
class Evidence:
    document: str
    text: str
    locator: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document, "locator": self.locator, "text": self.text}


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    kind: str
    question: str
    expected_routes: tuple[str, ...]
    expect: dict[str, Any]
    evidence: tuple[Evidence, ...] = ()
    documents: tuple[str, ...] | None = None
    history: tuple[dict[str, str], ...] = ()
    note: str = ""
    pages: dict[str, tuple[int, ...]] = field(default_factory=dict)


def _pages(raw: Any) -> dict[str, tuple[int, ...]]:
    if not raw:
        return {}
    if not isinstance(raw, dict):
        raise ValueError("'pages' is {document: [page, ...]}")
    return {str(document): tuple(int(p) for p in pages) for document, pages in raw.items()}


def _task(raw: Any) -> Task:
    if not isinstance(raw, dict):
        raise ValueError("not a JSON object")
    for key in ("id", "question", "expected_route", "expect"):
        if key not in raw:
            raise ValueError(f"missing {key!r}")
    routes = raw["expected_route"]
    routes = (routes,) if isinstance(routes, str) else tuple(routes)
    expect = raw["expect"]
    if not isinstance(expect, dict) or not expect:
        raise ValueError("'expect' must be a non-empty object")
    unknown = set(expect) - _EXPECT_KEYS
    if unknown:
        raise ValueError(f"unknown expectation keys {sorted(unknown)}")
    evidence = []
    for item in raw.get("evidence") or []:
        if not item.get("document") or not item.get("text"):
            raise ValueError("each evidence needs 'document' and 'text'")
        locator = dict(item.get("locator") or {})
        if set(locator) - _LOCATOR_KEYS:
            raise ValueError(f"unknown locator keys {sorted(set(locator) - _LOCATOR_KEYS)}")
        evidence.append(Evidence(item["document"], item["text"], locator))
    history = []
    for turn in raw.get("history") or []:
        if turn.get("role") not in ("user", "assistant") or not isinstance(turn.get("content"), str):
            raise ValueError("history turns are {'role': 'user'|'assistant', 'content': str}")
        history.append({"role": turn["role"], "content": turn["content"]})
    documents = raw.get("documents")
    return Task(
        id=str(raw["id"]), kind=str(raw.get("kind", "")), question=str(raw["question"]), expected_routes=routes,
        expect=expect, evidence=tuple(evidence), documents=tuple(documents) if documents else None,
        history=tuple(history), note=str(raw.get("note", "")), pages=_pages(raw.get("pages")),
    )


def load_tasks(path: str | Path = DEFAULT_TASKS) -> list[Task]:
    """Every task of a JSONL file; a bad line raises ConfigurationError naming the file and line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigurationError(f"cannot read the task file {path}: {exc.strerror or exc}") from exc
    tasks: list[Task] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            task = _task(json.loads(line))
        except (ValueError, TypeError, AttributeError) as exc:  # JSONDecodeError is a ValueError
            raise ConfigurationError(f"{path}:{number}: bad task: {exc}") from exc
        if task.id in seen:
            raise ConfigurationError(f"{path}:{number}: duplicate task id {task.id!r}")
        seen.add(task.id)
        tasks.append(task)
    if not tasks:
        raise ConfigurationError(f"{path}: no tasks")
    return tasks
