"""The README and docs/ name only real things: commands that parse, settings that exist, files that are there.

A newcomer follows these pages word for word, so every ``officeqa ...`` line of a shell block is parsed by the
CLI's own argparse parser (an unknown flag fails), every ``officeqa`` command in the synopsis and in inline code
names a real subcommand and real flags, every ``OFFICEQA_*`` variable is a setting, every relative link and every
repository path in code resolves, and the settings table of docs/configuration.md is exactly what
``scripts/settings_table.py`` generates. The cheap commands shown are also run, as written, on a two-file folder.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from officeqa.settings import Settings, load_settings
from server.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CONFIGURATION = ROOT / "docs" / "configuration.md"
#: Variables the docs may name that are not settings: the config file's path and compose's database password.
NOT_SETTINGS = {"OFFICEQA_CONFIG", "OFFICEQA_POSTGRES_PASSWORD"}
SHELL_FENCE = re.compile(r"^[ \t]*```(?:bash|sh|shell|console)\n(.*?)^[ \t]*```", re.S | re.M)  # list items indent
PLAIN_FENCE = re.compile(r"^[ \t]*```\n(.*?)^[ \t]*```", re.S | re.M)
TOML_FENCE = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:scripts|bench|eval|tests|server|retrieval|indexing|officeqa|prompts|integrations|docs)"
    r"/[\w./-]*[\w/])"
)


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _setting_names(model: type = Settings, prefix: str = "OFFICEQA_") -> list[str]:
    names: list[str] = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            names += _setting_names(annotation, f"{prefix}{name.upper()}__")
        else:
            names.append(f"{prefix}{name.upper()}")
    return names


def _officeqa_args(line: str) -> list[str] | None:
    """The arguments after ``officeqa`` on one shell line, or None when the line runs something else.

    Leading ``VAR=value`` words are the environment; ``.venv/bin/officeqa`` is the command by its path;
    ``docker compose exec SERVICE officeqa ...`` runs it inside the container.
    """
    line = line.split(" #", 1)[0].strip()
    if not line or line.startswith("#"):
        return None
    words = shlex.split(line)
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words = words[1:]
    if words[:3] == ["docker", "compose", "exec"] and len(words) > 4:
        words = words[4:]
    if words and (words[0] == "officeqa" or words[0].endswith("/bin/officeqa")):
        return words[1:]
    return None


def shell_commands() -> list[tuple[str, str, list[str]]]:
    """(page, line, arguments) of every ``officeqa`` line in a shell code block of the README and docs/."""
    found = []
    for page in PAGES:
        for block in SHELL_FENCE.findall(_text(page)):
            for line in block.splitlines():
                args = _officeqa_args(line)
                if args is not None:
                    found.append((page.name, line.strip(), args))
    return found


def parse_error(args: list[str]) -> str | None:
    """argparse's complaint about these arguments, or None when the real parser accepts them."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(args)
    except SystemExit as exc:
        return None if exc.code == 0 else stderr.getvalue().strip().splitlines()[-1]
    return None


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def unknown_names(words: list[str]) -> list[str]:
    """The subcommand or the flags of a usage line (``officeqa index PATH... [--json]``) that do not exist."""
    commands = _subparsers(build_parser())
    if not words or words[0] not in commands:
        return words[:1] or ["(no subcommand)"]
    parser, rest = commands[words[0]], words[1:]
    nested = _subparsers(parser)
    if nested:
        if not rest or rest[0] not in nested:
            return [f"{words[0]} {rest[0] if rest else ''}".strip()]
        parser, rest = nested[rest[0]], rest[1:]
    known = {option for action in parser._actions for option in action.option_strings}
    return [flag for word in rest for flag in FLAG.findall(word) if flag not in known and flag != "--"]


def usage_lines() -> list[tuple[str, str]]:
    """(page, text) of every ``officeqa`` command in the synopsis blocks and inline code of the README and docs/."""
    found = []
    for page in PAGES:
        text = _text(page)
        for block in PLAIN_FENCE.findall(text):
            for line in block.splitlines():
                command = line.split("  ", 1)[0]  # the synopsis's description column starts after two spaces
                found += [(page.name, part.strip()) for part in command.split(" | ") if part.startswith("officeqa ")]
        for span in INLINE_CODE.findall(text):
            found += [(page.name, part.strip()) for part in span.split(" | ") if part.startswith("officeqa ")]
    return found


def test_the_docs_show_officeqa_commands() -> None:
    commands = shell_commands()
    assert len(commands) >= 8, commands  # the README walk, docs/cli.md, docs/deploying.md
    assert len(usage_lines()) >= 40  # the synopsis of docs/cli.md and the commands named in the prose


@pytest.mark.parametrize(("page", "line", "args"), shell_commands(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_shell_command_parses(page: str, line: str, args: list[str]) -> None:
    assert parse_error(args) is None, f"{page}: `{line}`: {parse_error(args)}"


def test_the_parse_check_is_strict() -> None:
    assert parse_error(["search", "q", "--no-such-flag"]) is not None
    assert parse_error(["no-such-command"]) is not None
    assert parse_error(["search", "q", "-k", "5"]) is None
    assert unknown_names(["index", "PATH...", "[--json]", "[--no-such]"]) == ["--no-such"]
    assert unknown_names(["keys", "rotate"]) == ["keys rotate"]


def test_every_usage_line_names_real_subcommands_and_flags() -> None:
    # "officeqa ..." is a placeholder; "officeqa eval: …" quotes an error line, not a command
    lines = [
        (page, line) for page, line in usage_lines()
        if line.split()[1] not in ("...", "…") and not line.split()[1].endswith(":")
    ]
    wrong = [f"{page}: `{line}`: {bad}" for page, line in lines if (bad := unknown_names(line.split()[1:]))]
    assert not wrong, "\n".join(wrong)


def test_every_officeqa_variable_named_is_a_setting() -> None:
    names = set(_setting_names())
    prefixes = {name.rsplit("__", 1)[0] + "__" for name in names if "__" in name} | {"OFFICEQA_"}
    wrong = []
    for page in PAGES:
        for name in set(re.findall(r"OFFICEQA_[A-Z0-9_]*", _text(page))):
            # A name ending in "_" is a pattern such as OFFICEQA_SERVER__<NAME>: its section must exist.
            ok = name in prefixes if name.endswith("_") else name in names or name in NOT_SETTINGS
            if not ok:
                wrong.append(f"{page.name}: {name}")
    assert not wrong, wrong


def test_every_toml_example_is_valid_settings(tmp_path: Path) -> None:
    """A settings file shown in the docs loads (an unknown key or a wrong type is a ConfigurationError)."""
    blocks = [block for page in PAGES for block in TOML_FENCE.findall(_text(page))]
    assert blocks, "docs/configuration.md shows a TOML file"
    for number, block in enumerate(blocks):
        path = tmp_path / f"example{number}.toml"
        path.write_text(block, encoding="utf-8")
        load_settings(path, environ={})


def test_every_setting_is_in_the_configuration_table() -> None:
    table = _text(CONFIGURATION).split("<!-- settings:start -->", 1)[1].split("<!-- settings:end -->", 1)[0]
    rows = re.findall(r"^\| `(OFFICEQA_[A-Z0-9_]+)` \|", table, re.M)
    assert sorted(rows) == sorted(_setting_names()), "docs/configuration.md's table and Settings differ"


def test_the_configuration_table_is_what_the_script_generates() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import settings_table
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    table = _text(CONFIGURATION).split("<!-- settings:start -->\n", 1)[1].split("\n<!-- settings:end -->", 1)[0]
    assert table == settings_table.table(), "run: python scripts/settings_table.py --update"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", _text(page), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_every_relative_link_resolves() -> None:
    wrong = []
    for page in PAGES:
        for target in LINK.findall(_text(page)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                wrong.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                wrong.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not wrong, wrong


def test_every_repository_path_in_code_exists() -> None:
    """Paths in code spans (`scripts/run`, `bench/results/fusion_sets.md`, `server/web/`) are there.

    Checked: paths ending in a slash or with a file suffix; skipped: patterns (`api_*.py`, `summary.{zh,en}.yaml`,
    `bench/bench_<name>.py`) and the git-ignored cache.
    """
    wrong = []
    for page in PAGES:
        for span in INLINE_CODE.findall(_text(page)) + SHELL_FENCE.findall(_text(page)):
            for match in REPO_PATH.finditer(span):
                path, after = match.group(1), span[match.end() : match.end() + 1]
                if (after and after in "*{<") or path.startswith("bench/results/cache"):
                    continue
                if (path.endswith("/") or "." in path.rsplit("/", 1)[-1]) and not (ROOT / path).exists():
                    wrong.append(f"{page.relative_to(ROOT)}: {path}")
    assert not wrong, wrong


CHEAP = ("parse", "index", "status", "search", "ask")  # in the order they can run: index before questions


def _runnable(folder: Path) -> list[tuple[str, list[str]]]:
    """The shown commands cheap enough to run here, with the walk's placeholder folder made real."""
    runs: dict[tuple[str, ...], str] = {}  # the same command shown on two pages runs once
    for _page, line, args in shell_commands():
        if args and args[0] in CHEAP and not line.startswith("docker "):
            runs.setdefault(tuple(str(folder) if arg == "~/team-docs" else arg for arg in args), line)
    return sorted(((line, list(args)) for args, line in runs.items()), key=lambda run: CHEAP.index(run[1][0]))


@pytest.mark.slow
def test_the_cheap_commands_shown_run_as_written(tmp_path: Path, corpus_dir: Path) -> None:
    """`officeqa parse`, `index`, `status`, `search`, `ask` exactly as the pages show them, each a subprocess."""
    folder = tmp_path / "team-docs"
    folder.mkdir()
    for name in ("md/en_wiki.md", "txt/en_norwich-city.txt"):
        shutil.copy(corpus_dir / name, folder)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "OFFICEQA_DATA_DIR": str(tmp_path / "data"),
        "OFFICEQA_EMBEDDING__BACKEND": "hash",
        "OFFICEQA_OLLAMA__HOST": "http://127.0.0.1:9",  # nothing listens: the answer is quoted, at once
    }
    env.pop("OFFICEQA_CONFIG", None)
    runs = _runnable(folder)
    assert {args[0] for _, args in runs} == set(CHEAP), runs
    outputs = {}
    for line, args in runs:
        done = subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"`{line}` exited {done.returncode}: {done.stderr.strip()[-500:]}"
        assert "Traceback" not in done.stderr, done.stderr
        outputs[line] = done.stdout
    parsed = next(out for line, out in outputs.items() if " parse " in f" {line} ")
    assert json.loads(parsed.splitlines()[0])["type"] == "heading", parsed[:300]  # one JSON block per line
    asked = next(out for line, out in outputs.items() if "IBM founded?" in line)
    assert "1911" in asked and "en_wiki.md" in asked, asked
    searched = next(out for line, out in outputs.items() if " search " in f" {line} ")
    assert "en_wiki.md" in searched, searched
