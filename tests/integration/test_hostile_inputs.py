"""Hostile and broken inputs through the real CLI (issue #16): refused with the right kind, or read within limits.

Every probe is generated here (tests/hostile_probes.py) and goes through ``officeqa parse``,
``officeqa chunk`` or ``officeqa index`` in a subprocess. Asserted: the outcome (exit code,
refusal kind, the setting named in the message), that no chunk exceeds the budget, that
stderr holds no traceback, and -- only where it cannot flake -- a generous bound on the peak
RSS summed over the CLI and its parse worker (sampling can only under-report a peak). Wall
times are not asserted: ``bench/bench_hostile.py`` measures them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import hostile_probes as hp
import pytest

OFFICEQA = str(Path(sys.executable).parent / "officeqa")
pytestmark = pytest.mark.slow


def _env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    env.update(settings)
    return env


def _cli(*args: str, **settings: str) -> hp.Run:
    return hp.run_measured([OFFICEQA, *args], _env(**settings))


def _refused(run: hp.Run, kind: str, setting: str | None = None) -> str:
    """Assert the refusal contract: exit 3, one stderr line naming the kind (and the setting), no traceback."""
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 3, run.stderr[-2000:]
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f": {kind}: " in lines[0], run.stderr
    if setting:
        assert setting in lines[0], lines[0]
    return lines[0]


def _chunk_stats(run: hp.Run) -> dict:
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])["metrics"]


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("probes")


def test_zip_bombs_are_refused_before_inflating(probes: Path) -> None:
    docx = hp.zip_bomb_docx(probes / "bomb.docx", 300)
    xlsx = hp.zip_bomb_xlsx(probes / "bomb.xlsx", 300)
    for path, member in ((docx, "word/document.xml"), (xlsx, "xl/worksheets/sheet1.xml")):
        for command in ("parse", "chunk"):
            run = _cli(command, str(path))
            line = _refused(run, "too_large", "parsing.max_inflated_member_mb")
            assert member in line
            assert run.peak_mb < 400  # refused from the zip directory: nothing was inflated


def test_zip_bomb_let_through_by_a_raised_member_cap_hits_the_memory_cap(probes: Path) -> None:
    """libxml2 reports its failed allocation as a syntax error; near the cap it is still too_large."""
    docx = hp.zip_bomb_docx(probes / "bomb_memory.docx", 300)
    limits = {"OFFICEQA_PARSING__MAX_INFLATED_MEMBER_MB": "2000", "OFFICEQA_PARSING__MAX_MEMORY_MB": "1024"}
    run = _cli("parse", str(docx), **limits)
    _refused(run, "too_large", "parsing.max_memory_mb")
    assert run.peak_mb < 1024 + 300  # the worker's cap plus the CLI itself


def test_entity_bomb_and_xxe_are_neither_expanded_nor_resolved(probes: Path) -> None:
    run = _cli("parse", "--json", str(hp.entity_bomb_docx(probes / "entities.docx")))
    assert "root:x:0:0" not in run.stdout + run.stderr
    if run.returncode == 3:
        _refused(run, "corrupt")  # libxml2 stops the amplification and the document is refused
    else:
        assert run.returncode == 0 and "lol" * 1000 not in run.stdout


def test_huge_xlsx_cell_is_cut_and_chunked_within_the_budget(probes: Path) -> None:
    path = hp.huge_cell_xlsx(probes / "huge_cell.xlsx", 100)
    parsed = _cli("parse", "--json", str(path))
    assert parsed.returncode == 0 and "Traceback" not in parsed.stderr
    cells = [cell for line in parsed.stdout.splitlines() for row in json.loads(line).get("rows") or [] for cell in row]
    assert max(len(cell) for cell in cells) == 32_767  # parsing.max_cell_chars
    assert "正常的备注" in cells
    assert parsed.peak_mb < 2048  # was above 14 GB
    stats = _chunk_stats(_cli("chunk", "--stats", str(path)))
    assert stats["oversize_chunks"] == 0


def test_csv_with_one_50mb_line_of_cells_keeps_the_first_columns(probes: Path) -> None:
    path = hp.csv_one_line_of_cells(probes / "one_line.csv", 50)
    run = _cli("parse", "--json", str(path))
    assert run.returncode == 0 and "Traceback" not in run.stderr
    [table] = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(table["rows"][0]) == 1024  # parsing.max_columns
    assert run.peak_mb < 2048  # once "Unable to allocate 79.5 GiB"
    assert _chunk_stats(_cli("chunk", "--stats", str(path)))["oversize_chunks"] == 0


def test_csv_with_one_50mb_field_is_cut_or_refused_by_the_memory_cap(probes: Path) -> None:
    path = hp.csv_one_huge_field(probes / "one_field.csv", 50)
    stats = _chunk_stats(_cli("chunk", "--stats", str(path)))
    assert stats["oversize_chunks"] == 0
    _refused(_cli("parse", str(path), OFFICEQA_PARSING__MAX_MEMORY_MB="512"), "too_large", "parsing.max_memory_mb")


def test_100mb_of_one_character_parses_and_ten_mb_chunk_within_the_budget(probes: Path) -> None:
    big = hp.one_char_txt(probes / "one_char_100mb.txt", 100)
    run = _cli("parse", "--json", str(big))
    assert run.returncode == 0 and "Traceback" not in run.stderr
    [block] = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(block["text"]) == 100 * 1024 * 1024
    assert run.peak_mb < 3072  # once 10 GB
    small = hp.one_char_txt(probes / "one_char_10mb.txt", 10)
    stats = _chunk_stats(_cli("chunk", "--stats", str(small)))
    assert stats["max_tokens"] <= 512 and stats["oversize_chunks"] == 0
    assert stats["chunk_count"] == -(-10 * 1024 * 1024 // 512)  # one token per character, 512 per chunk


def test_a_parse_over_the_time_limit_is_refused_naming_the_setting(probes: Path) -> None:
    path = hp.one_char_txt(probes / "one_char_30mb.txt", 30)
    _refused(_cli("chunk", "--stats", str(path), OFFICEQA_PARSING__TIMEOUT_S="0.5"), "timeout", "parsing.timeout_s")


def test_ten_mb_of_unbroken_chinese(probes: Path) -> None:
    path = hp.unbroken_chinese_txt(probes / "chinese.txt", 10)
    stats = _chunk_stats(_cli("chunk", "--stats", str(path)))
    assert stats["max_tokens"] <= 512 and stats["oversize_chunks"] == 0
    assert stats["chunk_count"] >= 10 * 1024 * 1024 // 3 // 512


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("spaces.txt", hp.spaces_line_txt),
        ("dots.txt", hp.dots_txt),
        ("deep.html", hp.deep_nesting_html),
        ("headings.md", lambda p: hp.many_headings_md(p, 20_000)),
    ],
)
def test_pathological_text_shapes_chunk_within_the_budget(probes: Path, name: str, make) -> None:
    stats = _chunk_stats(_cli("chunk", "--stats", str(make(probes / name))))
    assert stats["oversize_chunks"] == 0 and stats["max_tokens"] <= 512


def test_index_of_a_folder_with_probes_indexes_the_normal_files(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    normal = hp.normal_files(folder)
    hp.zip_bomb_docx(folder / "bomb.docx", 300)
    hp.zip_bomb_xlsx(folder / "bomb.xlsx", 300)
    hp.entity_bomb_docx(folder / "entities.docx")
    hp.huge_cell_xlsx(folder / "huge_cell.xlsx", 20)
    hp.csv_one_line_of_cells(folder / "one_line.csv", 20)
    hp.unbroken_chinese_txt(folder / "chinese.txt", 2)
    hp.spaces_line_txt(folder / "spaces.txt")
    hp.dots_txt(folder / "dots.txt")
    hp.deep_nesting_html(folder / "deep.html")
    hp.many_headings_md(folder / "headings.md", 5_000)
    env = {"OFFICEQA_DATA_DIR": str(tmp_path / "kb"), "OFFICEQA_EMBEDDING__BACKEND": "hash"}
    run = _cli("index", str(folder), "--json", **env)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    failed = {Path(f["path"]).name: f["kind"] for f in report["failed"]}
    assert failed.get("bomb.docx") == "too_large" and failed.get("bomb.xlsx") == "too_large"
    assert set(failed) <= {"bomb.docx", "bomb.xlsx", "entities.docx"}, failed
    assert report["added"] == len(list(folder.iterdir())) - len(failed)  # every other file was indexed
    assert not {p.name for p in normal} & set(failed)
    check = _cli("check", "--json", **env)
    assert check.returncode == 0, check.stdout + check.stderr
    search = _cli("search", "年假", "--mode", "bm25", "--json", **env)
    assert search.returncode == 0 and "normal_note.txt" in search.stdout
