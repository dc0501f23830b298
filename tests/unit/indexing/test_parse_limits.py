"""Parser limits on small literal inputs: zip inflation caps, table cell/column caps, linear markup stripping."""

from __future__ import annotations

import random
import re
import zipfile
from pathlib import Path

import docx
import pytest

from indexing.parsing import parse_file
from indexing.parsing.limits import CellLimits
from indexing.parsing.ooxml import open_ooxml
from indexing.parsing.text import _drop_comments, strip_markup
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings


def _docx_with_padding(path: Path, padding_mb: float) -> Path:
    document = docx.Document()
    document.add_paragraph("正文。")
    document.save(path)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("customXml/padding.xml", "<p>" + "x" * int(padding_mb * 1024 * 1024) + "</p>")
    return path


def test_inflated_member_and_total_caps_are_checked_from_the_directory(tmp_path: Path) -> None:
    path = _docx_with_padding(tmp_path / "padded.docx", 3)
    with pytest.raises(UnreadableDocument) as member:
        open_ooxml(path, None, ParsingSettings(max_inflated_member_mb=2)).close()
    assert member.value.kind is RefusalKind.TOO_LARGE
    assert "customXml/padding.xml inflates to 3 MB" in member.value.message
    assert "parsing.max_inflated_member_mb" in member.value.message
    with pytest.raises(UnreadableDocument) as total:
        open_ooxml(path, None, ParsingSettings(max_inflated_member_mb=10, max_inflated_total_mb=2)).close()
    assert "parsing.max_inflated_total_mb" in total.value.message
    open_ooxml(path, None, ParsingSettings()).close()  # within the defaults


def test_cell_limits_cut_columns_and_long_cells_and_say_so() -> None:
    limits = CellLimits(max_columns=3, max_cell_chars=100)
    assert limits.apply(["a", "b" * 500, 7, "d", "e"]) == ["a", "b" * 100, 7]
    assert limits.apply(["x"], first_col=5) == []
    warnings = limits.warnings("sheet 'S'")
    assert warnings == [
        "sheet 'S': 6 columns, only the first 3 were read (parsing.max_columns)",
        "sheet 'S': 1 cell(s) longer than 100 characters were cut (parsing.max_cell_chars)",
    ]


def test_csv_long_line_and_long_field_are_capped_with_warnings(tmp_path: Path) -> None:
    line = tmp_path / "wide.csv"
    line.write_text("a,b\n" + ",".join(f"v{i}" for i in range(200_000)) + "\nc,d\n", encoding="utf-8")
    doc = parse_file(line, settings=ParsingSettings(max_columns=50))
    [table] = doc.blocks
    assert len(table.rows[0]) == 50 and table.rows[1][:2] == ["c", "d"]
    assert any("200000 columns, only the first 50" in w for w in doc.warnings)
    field = tmp_path / "field.csv"
    field.write_text('name,note\nx,"' + "长" * 300_000 + '"\ny,短\n', encoding="utf-8")
    doc = parse_file(field, settings=ParsingSettings(max_cell_chars=1000))
    assert [len(row[1]) for row in doc.blocks[0].rows] == [1000, 1]
    assert any("longer than 1000 characters were cut" in w for w in doc.warnings)


def test_comment_stripping_matches_the_bounded_regex_and_is_linear() -> None:
    bounded = re.compile(r"<!--.{0,2000}?-->", re.DOTALL)
    rng = random.Random(3)
    atoms = ["<!--", "-->", "a", "<", "-", "!", ">", "x" * 700, "\n"]
    for _ in range(500):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(0, 30)))
        assert _drop_comments(text) == bounded.sub("", text)
    unclosed = "<html>" + "<!--" * 500_000  # once minutes: 2,000 characters rescanned after every opener
    assert _drop_comments(unclosed) == unclosed  # no "-->": nothing is a comment
    assert strip_markup("<html><!-- a -->正文" + "<!--" * 1000).startswith("正文<!--")
