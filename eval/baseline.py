"""The committed baseline (``eval/baseline.json``) and the gate: a metric that drops beyond its tolerance fails.

Layout::

    {"tolerances": {"default": 0.05, "<metric>": ...},
     "generators": {"extractive": {"git_revision", "metrics": {...}, "tasks": {id: {route, answer, citation}}},
                    "fake": {...}}}

Why absolute tolerances with a default of 0.05: a run is deterministic on one machine, but
a rank can flip between machines (BLAS rounding in the embedder), and with 30 tasks one task
is 0.033 of a metric — one flip passes, two fail. Only quality metrics are gated; latency is
reported, never gated (CI machines are busy). Per-task verdicts are kept so a report can name the
tasks that went from right to wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from officeqa.errors import ConfigurationError

if TYPE_CHECKING:
    from eval.harness import EvalReport

__all__ = ["DEFAULT_BASELINE", "DEFAULT_TOLERANCE", "Comparison", "compare", "load_baseline", "update_baseline"]

DEFAULT_BASELINE = Path(__file__).resolve().parent / "baseline.json"
DEFAULT_TOLERANCE = 0.05
GATED = ("route_accuracy", "recall@5", "recall@10", "citation_accuracy", "answer_accuracy")


@dataclass(slots=True)
class Comparison:
    """How a run compares with the baseline of its generator."""

    baseline: str
    generator: str
    found: bool
    regressions: list[str] = field(default_factory=list)
    improvements: list[str] = field(default_factory=list)
    tasks_now_failing: list[str] = field(default_factory=list)
    tasks_now_passing: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.regressions

    def to_json(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "generator": self.generator, "found": self.found, "passed": self.passed,
                "regressions": self.regressions, "improvements": self.improvements,
                "tasks_now_failing": self.tasks_now_failing, "tasks_now_passing": self.tasks_now_passing}


def load_baseline(path: str | Path) -> dict[str, Any]:
    """The baseline file's content; a missing or malformed file is a ConfigurationError naming it."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigurationError(f"cannot read the baseline {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ConfigurationError(f"the baseline {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("generators", {}), dict):
        raise ConfigurationError(f"the baseline {path} has no 'generators' object")
    return data


def _tolerance(baseline: dict[str, Any], metric: str) -> float:
    tolerances = baseline.get("tolerances") or {}
    return float(tolerances.get(metric, tolerances.get("default", DEFAULT_TOLERANCE)))


def compare(report: EvalReport, baseline: dict[str, Any], source: str = "") -> Comparison:
    """Gate ``report`` against the baseline entry of its generator (no entry: nothing to gate, ``found`` False)."""
    entry = (baseline.get("generators") or {}).get(report.generator)
    comparison = Comparison(baseline=source, generator=report.generator, found=entry is not None)
    if entry is None:
        return comparison
    before = entry.get("metrics") or {}
    for metric in GATED:
        old, new = before.get(metric), report.metrics.get(metric)
        if old is None or new is None:
            continue
        tolerance = _tolerance(baseline, metric)
        if old - new > tolerance + 1e-9:
            comparison.regressions.append(f"{metric} dropped from {old:.4f} to {new:.4f} (tolerance {tolerance:.3f})")
        elif new > old:
            comparison.improvements.append(f"{metric} rose from {old:.4f} to {new:.4f}")
    old_tasks = entry.get("tasks") or {}
    for task in report.tasks:
        was = (old_tasks.get(task.id) or {}).get("answer")
        if was is True and not task.answer_correct:
            comparison.tasks_now_failing.append(task.id)
        elif was is False and task.answer_correct:
            comparison.tasks_now_passing.append(task.id)
    return comparison


def baseline_entry(report: EvalReport) -> dict[str, Any]:
    """What the baseline keeps of a run."""
    keep = (*GATED, "citation_recall", "outcomes", "tasks")
    return {
        "git_revision": report.git_revision,
        "metrics": {k: report.metrics[k] for k in keep if k in report.metrics},
        "tasks": {t.id: {"route": t.route_correct, "answer": t.answer_correct, "citation": t.citation_correct}
                  for t in report.tasks},
    }


def update_baseline(path: str | Path, report: EvalReport) -> None:
    """Write (or replace) the entry of ``report``'s generator, keeping the tolerances and other generators."""
    path = Path(path)
    data = load_baseline(path) if path.exists() else {"tolerances": {"default": DEFAULT_TOLERANCE}, "generators": {}}
    data.setdefault("generators", {})[report.generator] = baseline_entry(report)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")
