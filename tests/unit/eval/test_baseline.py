"""The gate: a metric dropping beyond its tolerance fails; tasks that flipped are named; the file round-trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.baseline import compare, load_baseline, update_baseline
from eval.harness import EvalReport, TaskResult, summarize
from officeqa.errors import ConfigurationError


def _report(correct: list[bool], generator: str = "extractive") -> EvalReport:
    tasks = [TaskResult(f"t{i}", "fact", "q", ["retrieve_qa"], route="retrieve_qa", route_correct=True,
                        recall={"recall@5": 1.0, "recall@10": 1.0}, citation_correct=ok, citation_recall=float(ok),
                        answer_correct=ok) for i, ok in enumerate(correct)]
    return EvalReport(generator, "abc123", {}, {}, tasks, summarize(tasks))


def test_a_drop_beyond_the_tolerance_fails_and_names_the_tasks(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    update_baseline(path, _report([True] * 10))
    baseline = load_baseline(path)
    one_flip = compare(_report([True] * 9 + [False]), {**baseline, "tolerances": {"default": 0.1}})
    assert one_flip.passed and one_flip.tasks_now_failing == ["t9"]
    two_flips = compare(_report([True] * 8 + [False] * 2), {**baseline, "tolerances": {"default": 0.1}})
    assert not two_flips.passed
    assert "answer_accuracy dropped from 1.0000 to 0.8000 (tolerance 0.100)" in two_flips.regressions
    per_metric = compare(_report([True] * 9 + [False]), {**baseline, "tolerances": {"default": 0.5,
                                                                                    "answer_accuracy": 0.05}})
    assert [r.split()[0] for r in per_metric.regressions] == ["answer_accuracy"]


def test_improvements_pass_and_an_unknown_generator_gates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    update_baseline(path, _report([False, True]))
    better = compare(_report([True, True]), load_baseline(path))
    assert better.passed and better.tasks_now_passing == ["t0"] and better.improvements
    other = compare(_report([False, False], generator="ollama"), load_baseline(path))
    assert other.passed and not other.found


def test_updating_keeps_tolerances_and_other_generators(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"tolerances": {"default": 0.02}, "generators": {}}), encoding="utf-8")
    update_baseline(path, _report([True]))
    update_baseline(path, _report([False], generator="fake"))
    data = load_baseline(path)
    assert data["tolerances"] == {"default": 0.02}
    assert set(data["generators"]) == {"extractive", "fake"}
    assert data["generators"]["fake"]["tasks"]["t0"] == {"route": True, "answer": False, "citation": False}


def test_a_missing_baseline_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read the baseline"):
        load_baseline(tmp_path / "nope.json")
