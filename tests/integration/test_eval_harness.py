"""``officeqa eval`` end to end: the real knowledge base (bundled USE embedder, Chroma, SQLite, BM25), the
question service, the committed baseline as the gate, the extractive and the fake-Ollama generators.

The extractive and fake runs share one data folder (the second run skips the unchanged files); the
broken-setting run indexes its own with 40-token chunks, and must fail the gate with exit status 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.baseline import DEFAULT_BASELINE, load_baseline
from server.cli import main

TASK_KEYS = {"id", "kind", "question", "expected_routes", "route", "route_correct", "recall", "retrieval_source",
             "citation_correct", "citation_recall", "answer_correct", "outcome", "failures", "mode", "notice", "answer",
             "language", "standalone_question", "scope", "citations", "tokens", "latency_s", "error"}
METRIC_KEYS = {"tasks", "route_accuracy", "recall@5", "recall@10", "citation_accuracy", "citation_recall",
               "answer_accuracy", "outcomes", "errors", "model_answers", "prompt_tokens_total", "prompt_tokens_mean",
               "latency_mean_s", "latency_p50_s", "latency_p95_s"}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("eval-data")


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = main(["eval", "--json", *args])
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 1, "--json prints exactly one object"
    return code, json.loads(lines[0]), captured.err


@pytest.mark.slow
def test_extractive_run_prints_one_report_and_passes_the_committed_baseline(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, err = _eval(capsys, "--generator", "extractive", "--data-dir", str(data_dir), "--out", str(tmp_path))
    assert code == 0, err
    assert isinstance(report["tasks"], list) and len(report["tasks"]) == 30
    assert all(set(task) == TASK_KEYS for task in report["tasks"])
    assert set(report["metrics"]) == METRIC_KEYS
    assert report["generator"] == "extractive" and report["git_revision"]
    assert report["settings"]["embedding"]["backend"] == "use"
    assert report["knowledge_base"]["documents"] == 11
    assert report["comparison"]["found"] and report["comparison"]["passed"], report["comparison"]
    assert report["metrics"]["model_answers"] == 0 and report["metrics"]["prompt_tokens_total"] == 0
    saved = json.loads((tmp_path / "eval-extractive.json").read_text(encoding="utf-8"))
    assert saved["metrics"] == report["metrics"]
    table = (tmp_path / "eval-extractive.md").read_text(encoding="utf-8")
    assert report["git_revision"] in table and "| task | kind | route |" in table and "PASSED" in table
    for task in report["tasks"]:
        assert task["mode"] in ("rule", "extractive"), task["id"]


@pytest.mark.slow
def test_fake_generator_runs_the_model_path_with_tokens_and_marker_citations(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, err = _eval(capsys, "--generator", "fake", "--data-dir", str(data_dir))
    assert code == 0, err
    assert report["knowledge_base"]["index_s"] < report["metrics"]["tasks"], "the shared folder was re-used"
    model = [t for t in report["tasks"] if t["mode"] == "model"]
    assert len(model) >= 10
    assert all(t["tokens"] and t["tokens"]["total"] > 0 for t in model)
    cited = [c for t in model for c in t["citations"] if c.get("referenced") is not False]
    assert cited and all(c["chunk_id"] and c["quote"] for c in cited)
    assert report["metrics"]["prompt_tokens_total"] == sum(t["tokens"]["total"] for t in model)
    assert report["comparison"]["found"] and report["comparison"]["passed"], report["comparison"]


@pytest.mark.slow
def test_a_broken_setting_fails_the_gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OFFICEQA_CHUNKING__TARGET_TOKENS", "40")
    code = main(["eval", "--generator", "extractive", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert "dropped from" in err
    assert "FAILED" in (tmp_path / "eval-extractive.md").read_text(encoding="utf-8")


def test_the_committed_baseline_gates_both_ci_generators() -> None:
    baseline = load_baseline(DEFAULT_BASELINE)
    assert {"extractive", "fake"} <= set(baseline["generators"])
    for entry in baseline["generators"].values():
        assert len(entry["tasks"]) == 30
        assert {"route_accuracy", "recall@5", "recall@10", "citation_accuracy", "answer_accuracy"} <= set(
            entry["metrics"])


def test_a_bad_task_file_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t1", "question": "q", "expected_route": "retrieve_qa", "expect": {}}\n', encoding="utf-8")
    code = main(["eval", "--tasks", str(tasks), "--no-baseline"])
    err = capsys.readouterr().err.strip()
    assert code == 5  # a task file that cannot be used as given is a configuration error
    assert err.count("\n") == 0 and f"{tasks}:1" in err and "'expect' must be a non-empty object" in err


def test_a_bad_baseline_file_fails_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text("{not json", encoding="utf-8")
    code = main(["eval", "--baseline", str(baseline)])
    err = capsys.readouterr().err.strip()
    assert code == 5 and str(baseline) in err and "not valid JSON" in err
