"""Bad settings through the real CLI: one ``officeqa: error:`` line naming the setting, exit 5, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXIT_CONFIGURATION_ERROR = 5


def _officeqa(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    environ.update(env or {})
    return subprocess.run(
        [str(Path(sys.executable).parent / "officeqa"), *args],  # the installed console script
        capture_output=True,
        text=True,
        env=environ,
        cwd=cwd or REPO,
        timeout=300,
    )


def _one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == EXIT_CONFIGURATION_ERROR, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("officeqa: error: ")
    return lines[0]


@pytest.mark.parametrize(
    "command",
    [
        ["parse", "x.txt"],
        ["chunk", "x.txt"],
        ["index", "."],
        ["status"],
        ["search", "年假"],
        ["route", "提取电话"],
        ["ask", "年假几天？"],
    ],
)
def test_a_wrong_type_in_the_environment_stops_every_command_with_one_line(command: list[str], tmp_path: Path) -> None:
    proc = _officeqa(*command, env={"OFFICEQA_CHUNKING__TARGET_TOKENS": "abc"}, cwd=tmp_path)
    line = _one_error_line(proc)
    assert "OFFICEQA_CHUNKING__TARGET_TOKENS='abc'" in line and "a whole number >= 32" in line


def test_unknown_variable_names_the_closest_setting(tmp_path: Path) -> None:
    line = _one_error_line(_officeqa("status", env={"OFFICEQA_PARSING__TIMEOUT": "5"}, cwd=tmp_path))
    assert line == (
        "officeqa: error: unknown setting OFFICEQA_PARSING__TIMEOUT; did you mean OFFICEQA_PARSING__TIMEOUT_S?"
    )


def test_missing_invalid_and_misspelt_config_files(tmp_path: Path) -> None:
    line = _one_error_line(_officeqa("--config", str(tmp_path / "none.toml"), "status", cwd=tmp_path))
    assert "none.toml (from --config) does not exist" in line
    broken = tmp_path / "broken.toml"
    broken.write_text("[parsing\ntimeout_s = 5\n", encoding="utf-8")
    assert "is not valid TOML" in _one_error_line(_officeqa("--config", str(broken), "status", cwd=tmp_path))
    typo = tmp_path / "typo.toml"
    typo.write_text("[parsing]\ntimeout_s = -1\n", encoding="utf-8")
    line = _one_error_line(_officeqa("status", env={"OFFICEQA_CONFIG": str(typo)}, cwd=tmp_path))
    assert "parsing.timeout_s = -1 in" in line and "a number > 0" in line
