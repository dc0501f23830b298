"""The guarded parser stops a parse that runs too long and keeps working afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.parsing.guard import GuardedParser
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ChunkingSettings, ParsingSettings


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


def test_memory_cap_refuses_as_too_large_and_a_fresh_worker_takes_the_next_file(tmp_path: Path) -> None:
    import hostile_probes

    big = hostile_probes.csv_one_huge_field(tmp_path / "field.csv", 50)  # needs ~600 MB to read
    small = tmp_path / "note.txt"
    small.write_text("第一章 总则\n\n本办法自发布之日起施行。\n", encoding="utf-8")
    with GuardedParser(ParsingSettings(max_memory_mb=512)) as guard:
        with pytest.raises(UnreadableDocument) as refused:
            guard.parse(big)
        assert refused.value.kind is RefusalKind.TOO_LARGE
        assert "512 MB memory cap" in refused.value.message and "parsing.max_memory_mb" in refused.value.message
        assert guard.parse(small).blocks


def test_parse_and_chunk_runs_both_in_the_worker(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("a" * 100_000, encoding="utf-8")
    with GuardedParser() as guard:
        document, result = guard.parse_and_chunk(path, ChunkingSettings(target_tokens=256))
    assert document.blocks[0].text == "a" * 100_000
    assert len(result.chunks) == -(-100_000 // 256) and all(c.tokens <= 256 for c in result.chunks)


def test_a_timeout_names_the_setting_that_raises_it(corpus_dir: Path) -> None:
    with GuardedParser(ParsingSettings(timeout_s=0.05)) as guard, pytest.raises(UnreadableDocument) as refused:
        guard.parse(corpus_dir / "pdf" / "en_DA-619p.pdf")
    assert "raise parsing.timeout_s" in refused.value.message
