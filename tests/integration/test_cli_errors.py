"""Every CLI subcommand, walked from the real parser, fails the same way: one ``officeqa: error:`` line.

Four ways to get it wrong are tried on every subcommand the parser has (a new one is walked without
editing this file): a path that does not exist, a data folder with no knowledge base, a setting with an
invalid value, and an option the command does not have. Each must end with one line on stderr, the exit
code docs/errors.md gives, no traceback, and nothing created in the data folder. A subcommand must declare
what it checks (``must_exist`` paths, ``reads_kb``) or be listed here as taking neither.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.cli import build_parser, main

EXIT_USAGE = 2
EXIT_PRODUCT_ERROR = 4
EXIT_CONFIGURATION_ERROR = 5
#: Subcommands that name no path that must exist and need no knowledge base (they create what they use).
NEITHER = {"serve", "keys create", "keys list", "keys revoke"}
#: Of those, the ones that run until stopped or legitimately create a file on success.
NOT_RUN_ON_AN_EMPTY_FOLDER = {"serve", "keys create"}
REPO = Path(__file__).resolve().parents[2]


def leaves(parser: argparse.ArgumentParser,
           prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(``"keys create"``, its parser) for every subcommand, nested ones included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from leaves(sub, (*prefix, name))
            return
    yield " ".join(prefix), parser


SUBCOMMANDS = dict(leaves(build_parser()))


def argv_for(name: str, missing: Path | None) -> list[str]:
    """The shortest command line the parser accepts; with ``missing``, every declared path is that path."""
    parser = SUBCOMMANDS[name]
    must_exist = parser.get_default("must_exist") or {}
    argv = name.split()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        path = action.dest in must_exist and missing is not None
        needed = action.required or (not action.option_strings and action.nargs not in ("?", "*"))
        if not (needed or path):
            continue
        value = str(missing) if path else (str(action.choices[0]) if action.choices else "word")  # type: ignore[index]
        if action.option_strings:
            argv += [action.option_strings[0], value]
        else:
            argv.append(value)
    return argv


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in [k for k in os.environ if k.startswith("OFFICEQA_")]:
        monkeypatch.delenv(key)
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(folder))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    monkeypatch.chdir(tmp_path)
    return folder


def one_error_line(code: int, err: str, expected_code: int) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == expected_code and len(lines) == 1, (code, err)
    assert lines[0].startswith("officeqa: error: "), err
    return lines[0]


def test_every_subcommand_declares_its_checks_or_is_listed() -> None:
    undeclared = {name for name, parser in SUBCOMMANDS.items()
                  if not parser.get_default("must_exist") and not parser.get_default("reads_kb")}
    assert undeclared == NEITHER
    assert len(SUBCOMMANDS) >= 20  # the walk below sees the whole command line, nested commands included


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_a_bad_setting_is_one_line_and_exit_5(name: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OFFICEQA_CHUNKING__TARGET_TOKENS", "abc")
    code = main(argv_for(name, None))
    line = one_error_line(code, capsys.readouterr().err, EXIT_CONFIGURATION_ERROR)
    assert "OFFICEQA_CHUNKING__TARGET_TOKENS='abc'" in line
    assert list(data_dir.iterdir()) == []


@pytest.mark.parametrize("name", sorted(n for n, p in SUBCOMMANDS.items() if p.get_default("must_exist")))
def test_a_missing_path_is_not_found_and_exit_4(name: str, data_dir: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "such.docx"
    code = main(argv_for(name, missing))
    line = one_error_line(code, capsys.readouterr().err, EXIT_PRODUCT_ERROR)
    assert line == f"officeqa: error: not found: {missing}"
    assert list(data_dir.iterdir()) == []


#: Commands that read a knowledge base, and those of NEITHER that end on their own (the others write what
#: they are given, a missing one of which is walked above).
ON_AN_EMPTY_FOLDER = sorted({n for n, p in SUBCOMMANDS.items() if p.get_default("reads_kb")}
                            | (NEITHER - NOT_RUN_ON_AN_EMPTY_FOLDER))


@pytest.mark.parametrize("name", ON_AN_EMPTY_FOLDER)
def test_an_empty_data_folder_creates_nothing(name: str, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = SUBCOMMANDS[name]
    code = main(argv_for(name, None))
    err = capsys.readouterr().err
    if parser.get_default("reads_kb"):
        line = one_error_line(code, err, EXIT_PRODUCT_ERROR)
        assert line.startswith(f"officeqa: error: no knowledge base in {data_dir}: run `officeqa index <folder>`")
    else:  # keys list / revoke: an answer or one error line, never a file
        assert "Traceback" not in err and (code == 0 or len(err.strip().splitlines()) == 1), err
    assert list(data_dir.iterdir()) == []


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_a_usage_error_is_one_line_and_exit_2(name: str, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([*argv_for(name, None), "--no-such-option"])
    line = one_error_line(int(str(stopped.value.code)), capsys.readouterr().err, EXIT_USAGE)
    assert "unrecognized arguments: --no-such-option" in line and "--help" in line
    assert list(data_dir.iterdir()) == []


def test_a_missing_argument_names_the_command(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["parse"])
    line = one_error_line(int(str(stopped.value.code)), capsys.readouterr().err, EXIT_USAGE)
    assert line == ("officeqa: error: parse: the following arguments are required: file "
                    "(see `officeqa parse --help`)")


def test_a_folder_given_to_parse_is_not_called_corrupt(data_dir: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["parse", str(tmp_path)])
    line = one_error_line(code, capsys.readouterr().err, EXIT_PRODUCT_ERROR)
    assert "is a folder, not a file" in line and "corrupt" not in line


def test_ask_with_a_new_file_creates_the_knowledge_base_it_needs(data_dir: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text("The meeting is on Friday at ten.", encoding="utf-8")
    assert main(["ask", "When is the meeting?", "--doc", str(note), "--no-model"]) == 0
    assert "Friday" in capsys.readouterr().out
    assert (data_dir / "registry.sqlite3").exists()


def test_the_installed_command_says_not_found_and_creates_nothing(tmp_path: Path) -> None:
    """The issue's three cases through the real console script: no traceback at the real entry point."""
    data = tmp_path / "data"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(OFFICEQA_DATA_DIR=str(data), OFFICEQA_EMBEDDING__BACKEND="hash")
    officeqa = str(Path(sys.executable).parent / "officeqa")
    for argv, expected in (
        (["index", "/no/such/folder"], "officeqa: error: not found: /no/such/folder"),
        (["parse", "missing.docx"], "officeqa: error: not found: missing.docx"),
        (["ask", "What is the hotel limit?"], f"officeqa: error: no knowledge base in {data}: "),
    ):
        proc = subprocess.run([officeqa, *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        line = one_error_line(proc.returncode, proc.stderr, EXIT_PRODUCT_ERROR)
        assert line.startswith(expected), line
        assert list(data.iterdir()) == []
