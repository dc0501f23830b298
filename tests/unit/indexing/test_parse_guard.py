"""The guarded parser stops a parse that runs too long and keeps working afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.parsing.guard import GuardedParser
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings


def test_timeout_is_refused_and_the_next_file_still_parses(tmp_path: Path, corpus_dir: Path) -> None:
    small = tmp_path / "note.txt"
    small.write_text("第一章 总则\n\n本办法自发布之日起施行。\n", encoding="utf-8")
    with GuardedParser(ParsingSettings(timeout_s=0.05)) as guard:
        with pytest.raises(UnreadableDocument) as refused:
            guard.parse(corpus_dir / "pdf" / "en_DA-619p.pdf")
        assert refused.value.kind is RefusalKind.TIMEOUT
        assert "en_DA-619p.pdf" in str(refused.value)
    with GuardedParser(ParsingSettings(timeout_s=60)) as guard:
        document = guard.parse(small)
        assert any("本办法自发布之日起施行" in b.text for b in document.blocks)


def test_refusals_cross_the_process_boundary_with_their_kind(tmp_path: Path) -> None:
    empty = tmp_path / "empty.docx"
    empty.write_bytes(b"")
    odd = tmp_path / "drawing.dwg"
    odd.write_bytes(b"AC1027")
    with GuardedParser() as guard:
        with pytest.raises(UnreadableDocument) as refused:
            guard.parse(empty)
        assert refused.value.kind is RefusalKind.EMPTY
        with pytest.raises(UnreadableDocument) as refused:
            guard.parse(odd)
        assert refused.value.kind is RefusalKind.UNSUPPORTED
