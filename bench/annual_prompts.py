"""With the stand-in model: for each answerable annual-report question, whether it was answered exactly before the
model, or the gold figure (or key phrase) reached the model's prompt.

Why: issue 34's acceptance asks that, with a model available, 95% of answerable questions are either answered
exactly without it or give it the gold in its prompt; and that no rule answers wrongly or by half while the model
was there and never asked. The questions go through :class:`retrieval.service.QuestionService` with the
deterministic fake model of ``officeqa eval --generator fake`` (``eval/fake_model.py`` behind
``eval/fake_ollama.py``); every request that server receives during a question is that question's prompt, read
back as text and checked with the task's own expectation (a computed task's inputs, not its result: the model
computes the result).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from eval.answer_metrics import check_expectation, says_not_found
from eval.tasks import Task
from officeqa.settings import Settings

SECTION = "## With the stand-in model: did the gold reach the prompt"
#: How an answerable question ended, in the order the section lists them.
OUTCOMES = ("exact before the model", "gold in the prompt", "prompt without the gold",
            "refused before the model", "wrong or partial by a rule, model never asked")


def gold_expectation(task: Task) -> dict[str, Any] | None:
    """What the prompt must hold for ``task`` (None for a "not in this report" task: nothing to hold)."""
    if task.kind == "not_in_report":
        return None
    numbers = list(task.expect.get("numbers", []))
    if task.kind == "computed":
        numbers = numbers[1:]  # the inputs; the result is the model's to compute
    gold: dict[str, Any] = {key: task.expect[key] for key in ("facts", "points") if key in task.expect}
    if numbers:
        gold["numbers"] = numbers
    return gold


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def prompt_text(requests: Sequence[tuple[str, str, dict[str, Any]]]) -> str | None:
    """Every text the model was sent in ``requests`` (chat and generate calls); None when it was sent nothing."""
    bodies = [body for _method, path, body in requests if path in ("/api/chat", "/api/generate")]
    if not bodies:
        return None
    return "\n".join(text for body in bodies for text in _strings(body.get("messages") or body.get("prompt")))


def outcome(task: Task, answer: str, correct: bool, prompt: str | None) -> str:
    """Which of :data:`OUTCOMES` an answerable task ended in."""
    if prompt is None:
        if correct:
            return OUTCOMES[0]
        return OUTCOMES[3] if says_not_found(answer) else OUTCOMES[4]
    gold = gold_expectation(task) or {}
    return OUTCOMES[1] if check_expectation(gold, prompt).correct else OUTCOMES[2]


def ask_all(settings: Settings, tasks: Sequence[Task], kb_dir: Path) -> list[dict[str, Any]]:
    """Ask every task with the stand-in model; one record per task (outcome, answer, whether a prompt was sent)."""
    from eval.fake_model import grounded_reply
    from eval.fake_ollama import DEFAULT_MODEL, FakeOllama
    from eval.harness import score_task
    from officeqa.generation import OllamaGenerator
    from retrieval.service import QuestionService

    records = []
    with FakeOllama(reply_fn=grounded_reply) as fake:
        ollama = settings.ollama.model_copy(update={"host": fake.url, "model": DEFAULT_MODEL, "retries": 0,
                                                    "connect_timeout_s": 5.0, "read_timeout_s": 60.0})
        run = settings.model_copy(update={"ollama": ollama})
        with QuestionService.open(run, generator=OllamaGenerator(ollama)) as service:
            for task in tasks:
                before = len(fake.requests)
                started = time.perf_counter()
                answer = service.ask(task.question).to_json()
                result = score_task(task, answer, service.kb, kb_dir, time.perf_counter() - started)
                prompt = prompt_text(fake.requests[before:])
                record = {"id": task.id, "kind": task.kind, "answer": result.answer[:300],
                          "correct": result.answer_correct, "prompted": prompt is not None}
                if task.kind != "not_in_report":
                    record["outcome"] = outcome(task, result.answer, result.answer_correct, prompt)
                records.append(record)
    return records


def section(label: str, records: Sequence[dict[str, Any]]) -> list[str]:
    """The markdown table of one set: answerable questions by outcome, and the share the acceptance counts."""
    answerable = [r for r in records if "outcome" in r]
    counts = Counter(r["outcome"] for r in answerable)
    covered = counts[OUTCOMES[0]] + counts[OUTCOMES[1]]
    share = f"{covered}/{len(answerable)} ({covered / len(answerable):.0%})" if answerable else "—"
    lines = [f"**{label}** — answerable questions: {len(answerable)}; exact before the model or gold in the "
             f"prompt: **{share}** (target >= 95%)", "", "| outcome | questions |", "|---|---|"]
    lines += [f"| {name} | {counts[name]} |" for name in OUTCOMES]
    notfound = [r for r in records if "outcome" not in r]
    if notfound:
        right = sum(r["correct"] for r in notfound)
        lines.append(f"| (not in this report: right with the model) | {right}/{len(notfound)} |")
    wrong = [r for r in answerable if r["outcome"] == OUTCOMES[4]]
    if wrong:
        lines += ["", "Answered wrongly or by half before the model:"]
        lines += [f"- {r['id']}: {r['answer'][:140]!r}" for r in wrong]
    return [*lines, ""]
