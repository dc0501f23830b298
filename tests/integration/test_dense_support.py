"""Issue 36 item 2: a question whose words the knowledge base lacks is still answered when a same-language chunk
means what it asks (USE cosine above the embedder's measured threshold), and still "not found" when none does.

Real knowledge bases (USE, the offline default; hash, the test embedder with no threshold), no mocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.knowledge_base import KnowledgeBase
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.dense_support import dense_threshold, densely_supported
from retrieval.service import QuestionService

LOSSLESS = "苹果公司于2004年推出了一种无损音频压缩格式，用于在iPod上播放CD音质的歌曲。"
LEAVE = "员工每年享有十五天带薪年假，入职满五年后增加到二十天。"
#: two of its three subjects (音乐, 编码) are in no chunk: the word test alone calls it unanswerable
PARAPHRASE = "苹果的无损音乐编码是哪一年推出的？"


def _settings(root: Path, backend: str) -> Settings:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "音频.txt").write_text(LOSSLESS, encoding="utf-8")
    (docs / "假期.txt").write_text(LEAVE, encoding="utf-8")
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend=backend))  # type: ignore[arg-type]
    with KnowledgeBase(settings) as kb:
        assert not kb.index_paths([docs]).failed
    return settings


@pytest.fixture(scope="module")
def use_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return _settings(tmp_path_factory.mktemp("use"), "use")


def test_a_paraphrase_a_use_chunk_means_is_answered(use_settings: Settings) -> None:
    with QuestionService.open(use_settings, generator=None) as service:
        answer = service.ask(PARAPHRASE)
    assert "苹果公司" in answer.text and answer.citations


def test_a_question_no_chunk_means_stays_not_found_with_nothing_attached(use_settings: Settings) -> None:
    with QuestionService.open(use_settings, generator=None) as service:
        answer = service.ask("火星基地的氧气供应商是谁？")
    assert answer.text.startswith("文档中未找到与问题相关的内容。") and not answer.citations


def test_the_hash_embedder_has_no_threshold_so_words_decide(tmp_path: Path) -> None:
    """Character n-grams score unrelated English questions above related Chinese ones (not_found.md): no
    threshold was measured, so the paraphrase stays "not found" there, as before."""
    assert dense_threshold("hash-ngram-256") is None
    with QuestionService.open(_settings(tmp_path, "hash"), generator=None) as service:
        answer = service.ask(PARAPHRASE)
    assert answer.text.startswith("文档中未找到与问题相关的内容。") and not answer.citations


def test_other_language_chunks_are_no_support() -> None:
    """A cross-language cosine is no evidence either way: only chunks in the question's language count."""
    from prompts.assembler import Material

    english = Material(text="Apple released a lossless audio format in 2004.", source="s", score=1.0,
                       chunk_id="c", document="a.txt", meta={})
    assert not densely_supported(PARAPHRASE, [english], lambda q, texts: [1.0] * len(texts), 0.45)
    chinese = Material(text=LOSSLESS, source="s", score=1.0, chunk_id="c", document="a.txt", meta={})
    assert densely_supported(PARAPHRASE, [chinese], lambda q, texts: [0.5] * len(texts), 0.45)
    assert not densely_supported(PARAPHRASE, [chinese], lambda q, texts: [0.5] * len(texts), None)
