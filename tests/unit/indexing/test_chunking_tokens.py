"""Token counting: exact against the real tokenizer, additive over sentences, estimator is an upper bound."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from officeqa.sentences import split_sentences
from officeqa.tokens import (
    DEFAULT_TOKENIZER_PATH,
    EstimatingCounter,
    HFTokenCounter,
    TokenCounter,
    create_token_counter,
    default_token_counter,
    estimate_tokens,
)

SAMPLES = [
    "第十一条 违约责任：任何一方违反本合同，应赔偿对方损失的3.14倍。",
    "根据《中华人民共和国合同法》第五十二条，合同无效。",
    "The Contractor shall deliver the goods by 2024-01-05, e.g. via DHL (see Fig. 3).",
    "Café naïve façade — “quoted” text… and ½ fractions; 전화번호 010-1234-5678",
    "tab\tand\x0bvertical\x1cseparators\u3000full-width space\u00a0nbsp\u200bzero-width\ufffdreplacement",
    "CD161CD8TfrequencyUnstim,1Freq Ki67CD8frequencyUnstim",
    "",
]


@pytest.fixture(scope="module")
def raw() -> Tokenizer:
    tok = Tokenizer.from_file(str(DEFAULT_TOKENIZER_PATH))
    tok.no_truncation()
    tok.no_padding()
    return tok


def _raw_counts(raw: Tokenizer, texts: list[str]) -> list[int]:
    return [len(e.ids) for e in raw.encode_batch(texts, add_special_tokens=False)]


def test_default_counter_is_exact_on_literals(raw: Tokenizer) -> None:
    counter = default_token_counter()
    assert isinstance(counter, TokenCounter)
    assert counter.additive
    assert counter.count_many(SAMPLES) == _raw_counts(raw, SAMPLES)
    # CJK is one token per ideograph in the BERT vocabulary.
    assert counter.count("合同法") == 3
    # No special tokens, no truncation at the file's 128-token setting.
    assert counter.count("word " * 300) == 300


def test_default_counter_is_exact_on_corpus_text(raw: Tokenizer, corpus_dir: Path) -> None:
    counter = create_token_counter(None)
    for name in ("txt/zh_test.txt", "txt/en_norwich-city.txt", "csv/en_csv-with-long-lines.csv"):
        lines = (corpus_dir / name).read_text(encoding="utf-8", errors="replace").splitlines()
        assert counter.count_many(lines) == _raw_counts(raw, lines), name


def test_counts_are_additive_over_sentences(raw: Tokenizer, corpus_dir: Path) -> None:
    """The chunker sums per-sentence counts; for WordPiece that equals counting the joined text."""
    counter = default_token_counter()
    checked = 0
    for name in ("txt/zh_test.txt", "txt/en_norwich-city.txt", "md/zh_分布式训练技术原理.md"):
        text = (corpus_dir / name).read_text(encoding="utf-8", errors="replace")
        for paragraph in text.split("\n\n")[:200]:
            spans = split_sentences(paragraph.strip())
            if len(spans) < 2:
                continue
            joined = paragraph.strip()[spans[0].start : spans[-1].end]
            pieces = [joined[s.start - spans[0].start : s.end - spans[0].start] for s in spans]
            assert sum(_raw_counts(raw, pieces)) == _raw_counts(raw, [joined])[0]
            assert sum(counter.count_many(pieces)) == counter.count(joined)
            checked += 1
    assert checked > 20


def test_estimator_is_an_upper_bound_on_prose(raw: Tokenizer, corpus_dir: Path) -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("合同法第五条") == 6
    for name in ("txt/zh_test.txt", "txt/en_norwich-city.txt", "md/zh_分布式训练技术原理.md", "md/en_wiki.md"):
        text = (corpus_dir / name).read_text(encoding="utf-8", errors="replace")
        paragraphs = [p for p in text.split("\n\n") if p.strip()]
        real = sum(_raw_counts(raw, paragraphs))
        estimated = sum(estimate_tokens(p) for p in paragraphs)
        assert real <= estimated <= 1.8 * real, name
        assert all(estimate_tokens(p) >= n for p, n in zip(paragraphs, _raw_counts(raw, paragraphs), strict=True))
    counter = EstimatingCounter()
    assert counter.count_many(["违约责任", "late delivery"]) == [4, 5]  # 2 real tokens: a safe over-estimate


def test_create_token_counter_loads_another_file_or_folder(tmp_path: Path) -> None:
    folder = tmp_path / "bge-m3"
    folder.mkdir()
    shutil.copy(DEFAULT_TOKENIZER_PATH, folder / "tokenizer.json")
    by_folder = create_token_counter(folder)
    by_file = create_token_counter(str(folder / "tokenizer.json"))
    assert by_folder is by_file  # loaded once per path
    assert by_folder.count("违约责任 clause") == default_token_counter().count("违约责任 clause")


def test_non_bert_tokenizer_is_counted_directly_and_flagged(tmp_path: Path) -> None:
    vocab = {"[UNK]": 0, "hello": 1, "world": 2}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    counter = HFTokenCounter.from_file(path)
    assert json.loads(path.read_text())["model"]["type"] == "WordLevel"
    assert counter.additive is False
    assert counter.count_many(["hello world", "hello, unknown"]) == [2, 3]
