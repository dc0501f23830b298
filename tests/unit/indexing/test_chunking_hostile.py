"""Token counting and chunking hold for any text: long runs, unbroken Chinese, walls of headings.

A run of characters with no space or punctuation used to count as ONE WordPiece token (a word
above 100 characters is a single [UNK]), so a 10 MB line became one chunk and reached the
embedder whole. These tests pin the fix: long runs count one token per character, cuts inside
them keep counts additive, and every chunk stays within the budget with an exact token count.
No wall-clock limits here (they finish; bench/bench_hostile.py measures how fast).
"""

from __future__ import annotations

import random
import re
import string
from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from indexing.chunking import chunk_document, document_text
from officeqa.domain import Block, BlockType, ChunkKind, ParsedDocument
from officeqa.settings import ChunkingSettings
from officeqa.tokens import DEFAULT_TOKENIZER_PATH, HFTokenCounter, default_token_counter, snap_cut

COUNTER = default_token_counter()


def _han(chars: int, corpus_dir: Path) -> str:
    """Real Chinese characters (no punctuation, no spaces) from the corpus, repeated to ``chars``."""
    text = (corpus_dir / "txt" / "zh_test.txt").read_text(encoding="utf-8")
    han = "".join(re.findall(r"[\u4e00-\u9fff]", text))
    return (han * (chars // len(han) + 1))[:chars]


def _doc(*blocks: Block) -> ParsedDocument:
    return ParsedDocument("hostile.txt", "txt", list(blocks))


def _para(text: str) -> Block:
    return Block(BlockType.PARAGRAPH, text)


def _check(doc: ParsedDocument, target: int, overlap: float = 0.15) -> list:
    """Chunk and assert the invariants every hostile input must keep; returns the chunks."""
    result = chunk_document(doc, ChunkingSettings(target_tokens=target, overlap_ratio=overlap))
    full = document_text(doc)
    squeeze = re.compile(r"\s+")
    covered = []
    for chunk in result.chunks:
        assert chunk.tokens <= target, (chunk.tokens, chunk.text[:80])
        assert chunk.tokens == COUNTER.count(chunk.text)
        if chunk.kind is not ChunkKind.TABLE:
            assert chunk.text == full[chunk.char_start - chunk.overlap_chars : chunk.char_end]
            covered.append(chunk.text[chunk.overlap_chars :])
    assert squeeze.sub("", "".join(covered)) == squeeze.sub("", full)
    assert result.metrics.oversize_chunks == 0
    return result.chunks


def test_a_long_run_counts_one_token_per_character_and_short_words_stay_exact() -> None:
    raw = Tokenizer.from_file(str(DEFAULT_TOKENIZER_PATH))
    raw.no_truncation()
    raw.no_padding()
    assert COUNTER.count("a" * 100) == len(raw.encode("a" * 100, add_special_tokens=False).ids) == 50
    assert len(raw.encode("a" * 101, add_special_tokens=False).ids) == 1  # WordPiece: one [UNK]
    assert COUNTER.count("a" * 101) == 101
    assert COUNTER.count("x " + "b" * 250 + ", 中") == 1 + 250 + 1 + 1
    assert COUNTER.count("a" * 10_000_000) == 10_000_000  # no tokenizer call: a length


def test_snap_cut_keeps_counts_additive_around_long_runs() -> None:
    rng = random.Random(7)
    for _ in range(200):
        parts = [rng.choice(["x" * rng.randint(1, 350), "中文", ", ", " ", "word", "-"]) for _ in range(8)]
        text = "".join(parts)
        want = rng.randint(1, len(text))
        cut = snap_cut(COUNTER, text, 0, want, len(text))
        assert 0 <= cut <= want
        if 0 < cut < len(text):
            assert COUNTER.count(text[:cut]) + COUNTER.count(text[cut:]) == COUNTER.count(text), (text, cut)


def test_non_bert_tokenizer_counts_a_huge_text_in_segments(tmp_path: Path) -> None:
    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "hello": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(tmp_path / "tokenizer.json"))
    counter = HFTokenCounter.from_file(tmp_path / "tokenizer.json")
    assert counter.count("hello " * 300_000) == 300_000  # above MAX_ENCODE_CHARS: encoded in pieces, same count


@pytest.mark.parametrize("target", [32, 64, 512])
def test_long_runs_of_one_letter_and_of_random_letters_are_cut_within_the_budget(target: int) -> None:
    rng = random.Random(target)
    letters = "".join(rng.choices(string.ascii_letters + string.digits, k=50_000))
    chunks = _check(_doc(_para("a" * 200_000), _para(letters)), target)
    assert max(len(c.text) for c in chunks) <= target  # at most one character per token in a long run


@pytest.mark.parametrize("target", [32, 512])
def test_runs_next_to_headings_punctuation_and_hangul(target: int) -> None:
    rng = random.Random(1)
    mixed = " ".join("y" * rng.randint(1, 400) for _ in range(500))
    _check(
        _doc(
            Block(BlockType.HEADING, "标题", level=1),
            _para("b" * 30_000),
            _para("a-" * 20_000),
            _para("한국어" * 5_000),
            _para(mixed),
            Block(BlockType.HEADING, "h" * 5_000, level=2),
            _para("正文。"),
        ),
        target,
    )


def test_thousands_of_empty_sections_do_not_glue_into_one_oversize_chunk() -> None:
    headings = [Block(BlockType.HEADING, f"第{i}节 空", level=2) for i in range(20_000)]
    chunks = _check(_doc(*headings, _para("唯一的正文。")), 64)
    assert len(chunks) > 100
    assert chunks[-1].text.endswith("唯一的正文。")


@pytest.mark.slow
def test_ten_megabytes_of_one_repeated_character() -> None:
    chunks = _check(_doc(_para("a" * 10_000_000)), 512, overlap=0.15)
    assert len(chunks) == 10_000_000 // 512 + 1


@pytest.mark.slow
def test_ten_megabytes_of_unbroken_chinese(corpus_dir: Path) -> None:
    text = _han(10_000_000 // 3, corpus_dir)  # 3.3 million characters = 10 MB of UTF-8
    chunks = _check(_doc(_para(text)), 512)
    assert all(c.tokens == len(c.text) for c in chunks)  # one token per ideograph
    assert len(chunks) == -(-len(text) // 512)


def test_a_table_row_far_above_the_budget_is_cut_into_column_windows() -> None:
    header = [["姓名", "说明", "其他"] + [f"指标{i}" for i in range(300)]]
    rows = [["小张", "备注" * 100_000, "x", *(str(i) for i in range(300))], ["小李", "正常。", "y", *("1" * 300)]]
    table = Block(BlockType.TABLE, "t", header_rows=header, rows=rows)
    result = chunk_document(_doc(table), ChunkingSettings(target_tokens=512))
    retrievable = [c for c in result.chunks if c.meta.get("retrievable", True)]
    assert all(c.tokens == COUNTER.count(c.text) for c in retrievable)
    # Above the budget only the documented oversize row: the second row, whole, below 8 x 512 with its header.
    assert all(c.tokens <= 512 or (c.meta.get("oversize_row") and c.tokens <= 8 * 512) for c in retrievable)
    parts = [c for c in retrievable if c.meta.get("row_part")]
    assert len(parts) > 100 and all(c.meta["rows"] == [0, 1] for c in parts)
    assert sum(c.text.startswith("说明\n备注") for c in parts) > 100  # the long cell's pieces under its header cell
    assert "其他 | 指标0" in next(c.text for c in parts if c.meta["columns"][0] == 2)  # a window of narrow columns
    assert result.metrics.table_header_retention == 1.0 and result.metrics.oversize_chunks == 0
