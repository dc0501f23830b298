"""The report-level bench's two helpers: extracting reports from a git mirror (checked by SHA-256, a missing mirror
skipped with a line), and reading what the stand-in model was sent against a task's gold."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from bench.annual_prompts import OUTCOMES, gold_expectation, outcome, prompt_text
from bench.annual_reports_fetch import extract
from eval.tasks import Task


def _mirror(tmp_path: Path, content: bytes) -> tuple[Path, str]:
    work = tmp_path / "owner+name" / "work"
    work.mkdir(parents=True)
    (work / "report.pdf").write_bytes(content)
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "report.pdf"], check=True)
    subprocess.run([*git, "commit", "-qm", "r"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "owner+name" / "work").rename(tmp_path / "owner+name" / "repo")
    return tmp_path, commit


def test_a_report_is_extracted_at_its_commit_and_checked_by_sha256(tmp_path: Path) -> None:
    content = b"%PDF-1.4 a report"
    mirrors, commit = _mirror(tmp_path, content)
    entry = {"file": "r_2022.pdf", "repo": "owner/name", "commit": commit, "path": "report.pdf",
             "sha256": hashlib.sha256(content).hexdigest()}
    out = tmp_path / "kb"
    out.mkdir()
    assert extract(entry, mirrors, out).startswith("extracted")
    assert (out / "r_2022.pdf").read_bytes() == content
    assert extract(entry, mirrors, out).startswith("present")
    wrong = {**entry, "file": "other.pdf", "sha256": "0" * 64}
    assert "SHA-256 differs" in extract(wrong, mirrors, out)
    assert not (out / "other.pdf").exists()


def test_a_missing_mirror_is_skipped_with_the_repository_to_fetch(tmp_path: Path) -> None:
    entry = {"file": "r.pdf", "repo": "someone/absent", "commit": "0" * 40, "path": "r.pdf", "sha256": "0" * 64}
    line = extract(entry, tmp_path, tmp_path)
    assert line.startswith("skipped") and "github:someone/absent" in line


def _task(kind: str, expect: dict[str, object]) -> Task:
    return Task(id="t-01", kind=kind, question="q", expected_routes=("report_facts",), expect=expect)


def test_the_prompt_must_hold_a_computed_tasks_inputs_not_its_result() -> None:
    task = _task("computed", {"numbers": [{"value": 2.67, "tol": 0.06}, {"value": 125196000.0, "rel_tol": 1e-5,
                                                                           "alternatives": [125196.0]}]})
    assert gold_expectation(task) == {"numbers": [task.expect["numbers"][1]]}  # type: ignore[index]
    assert gold_expectation(_task("not_in_report", {"not_found": True})) is None
    prompt = prompt_text([("POST", "/api/chat", {"messages": [{"role": "user", "content": "Net income 125,196"}]})])
    assert prompt is not None and "125,196" in prompt
    assert outcome(task, "2.67%", False, prompt) == OUTCOMES[1]
    assert outcome(task, "2.67%", False, "Net sales 4,695,943") == OUTCOMES[2]


def test_without_a_prompt_an_answer_is_exact_refused_or_a_rules_wrong_answer() -> None:
    task = _task("figure", {"numbers": [{"value": 4.65, "rel_tol": 1e-5}]})
    assert prompt_text([("POST", "/api/embed", {"input": "x"})]) is None
    assert outcome(task, "$4.65", True, None) == OUTCOMES[0]
    assert outcome(task, "Not found in the documents.", False, None) == OUTCOMES[3]
    assert outcome(task, "$4.05", False, None) == OUTCOMES[4]
