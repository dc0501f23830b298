"""Chunk every parseable corpus file: no sentence breaks, every table chunk keeps its header, no oversize
chunk outside oversize-table units; and the independent checker (../shared/tools/chunkcheck.py) agrees.

OCR is switched off here (scanned files are then refused and skipped): OCR is the parsers' concern and
costs minutes; the chunker sees the same kind of blocks either way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from indexing.chunking import ChunkingResult, chunk_document, merge_metrics
from indexing.parsing import parse_file
from officeqa.domain import ParsedDocument
from officeqa.errors import UnreadableDocument
from officeqa.settings import ChunkingSettings, ParsingSettings

pytestmark = pytest.mark.slow

_RUN_CLI = "import sys; from server.cli import main; sys.exit(main(sys.argv[1:]))"
CLI_FILES = ["docx/zh_股东会-会议通知.docx", "txt/zh_test.txt", "xlsx/en_2023-half-year-analyses-by-segment.xlsx"]


@dataclass
class Parsed:
    name: str
    doc: ParsedDocument
    result: ChunkingResult


@pytest.fixture(scope="module")
def parsed_corpus(corpus_dir: Path) -> list[Parsed]:
    settings = ParsingSettings(ocr_enabled=False)
    out: list[Parsed] = []
    for path in sorted(p for p in corpus_dir.rglob("*") if p.is_file() and p.parent != corpus_dir):
        try:
            doc = parse_file(path, settings=settings)
        except UnreadableDocument:
            continue  # refused with a reason (tests/integration/test_parse_corpus.py pins which): nothing to chunk
        out.append(Parsed(str(path.relative_to(corpus_dir)), doc, chunk_document(doc, ChunkingSettings())))
    # A parser regression must fail here, not shrink the set silently: most corpus files are readable.
    assert len(out) >= 35, f"only {len(out)} corpus files parsed"
    return out


def test_every_parsed_file_chunks_cleanly(parsed_corpus: list[Parsed]) -> None:
    for parsed in parsed_corpus:
        m = parsed.result.metrics
        assert parsed.result.chunks, parsed.name
        assert m.sentence_breaks == 0, parsed.name
        assert m.table_header_retention == 1.0, parsed.name
        assert m.oversize_chunks == 0, parsed.name
        assert m.empty_chunks == 0, parsed.name
    total = merge_metrics([p.result.metrics for p in parsed_corpus])
    assert total.sentence_break_rate == 0.0 and total.oversize_rate == 0.0
    assert total.heading_path_coverage > 0.8


def _checkchunks(checker: Path, blocks_file: Path, chunks_file: Path) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, str(checker), str(blocks_file), str(chunks_file)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def _assert_clean(figures: dict[str, int], name: str) -> None:
    assert figures["breaks"] == 0, (name, figures)
    assert figures["covered"] == figures["paras"], (name, figures)
    assert figures["table_chunks_with_header"] == figures["table_chunks"], (name, figures)


def test_independent_checker_on_every_parsed_file(
    parsed_corpus: list[Parsed], shared_dir: Path, tmp_path: Path
) -> None:
    checker = shared_dir / "tools" / "chunkcheck.py"
    for parsed in parsed_corpus:
        blocks_file, chunks_file = tmp_path / "blocks.jsonl", tmp_path / "chunks.jsonl"
        blocks_file.write_text(
            "".join(json.dumps(b.to_json(), ensure_ascii=False) + "\n" for b in parsed.doc.blocks), encoding="utf-8"
        )
        chunks_file.write_text(
            "".join(json.dumps(c.to_json(), ensure_ascii=False) + "\n" for c in parsed.result.chunks), encoding="utf-8"
        )
        figures = _checkchunks(checker, blocks_file, chunks_file)
        assert figures["chunks"] == len(parsed.result.chunks)
        _assert_clean(figures, parsed.name)


@pytest.mark.parametrize("name", CLI_FILES)
def test_independent_checker_on_cli_output(name: str, corpus_dir: Path, shared_dir: Path, tmp_path: Path) -> None:
    path = corpus_dir / name
    outputs = {}
    for command in ("parse", "chunk"):
        done = subprocess.run(
            [sys.executable, "-c", _RUN_CLI, command, str(path), "--json"],
            capture_output=True, text=True, check=False,
        )
        assert done.returncode == 0, f"{name} must parse and chunk: {done.stderr.strip()}"
        outputs[command] = tmp_path / f"{command}.jsonl"
        outputs[command].write_text(done.stdout, encoding="utf-8")
    figures = _checkchunks(shared_dir / "tools" / "chunkcheck.py", outputs["parse"], outputs["chunk"])
    assert figures["chunks"] > 0
    _assert_clean(figures, name)
