"""The one embedding contract every back-end implements.

A back-end writes a single method, :meth:`Embedder.embed_batch`; batching, progress and
query embedding are built once here (the shape of simonw/llm's ``EmbeddingModel``).
Vectors are float32 with L2-normalised rows, so cosine similarity is a dot product and
the vector store can use inner-product or cosine distance interchangeably.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

ProgressCallback = Callable[[int, int], None]
"""Called after each batch with (texts done, texts total)."""


class Embedder(ABC):
    """Turns texts into normalised vectors.

    ``name`` is the stable identity of the model that made the vectors; the vector store
    records it and refuses to mix vectors of two names in one collection. ``dim`` is the
    vector length. Models load lazily (constructor or first use), never at import.
    """

    name: str
    dim: int
    scripts: frozenset[str] | None = None
    """Scripts the model was trained to read ('zh' = Han, 'en' = Latin); None = any (multilingual).

    Hybrid fusion gives the dense side no say on a query or corpus in a script the model cannot
    read (an English-only model over Chinese documents ranks at random), as it does for BM25.
    """

    @abstractmethod
    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """Embed texts as documents/passages: an (n, dim) float32 array, L2-normalised rows."""

    def embed_documents(
        self, texts: Sequence[str], batch_size: int = 64, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        """Embed many documents in batches of ``batch_size`` (bounded memory, visible progress)."""
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        total = len(texts)
        parts: list[np.ndarray] = []
        for start in range(0, total, batch_size):
            parts.append(self.embed_batch(list(texts[start : start + batch_size])))
            if progress is not None:
                progress(min(start + batch_size, total), total)
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(parts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries; back-ends with a query prefix or instruction override this."""
        return self.embed_batch(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query: a (dim,) float32 vector."""
        vector: np.ndarray = self.embed_queries([text])[0]
        return vector

    def query_pass(self, text: str) -> Callable[[], np.ndarray]:
        """:meth:`embed_query` as a task for a worker thread (``retrieval/dense.start_strong_question``).

        Back-ends whose first step is Python (a tokenizer) do it here, on the caller's thread, and return only
        the part that releases the GIL: done on the worker, that step waited for the caller's own Python work
        (BM25) to let go of the GIL (0.8 ms against 0.2 ms alone, e5-small at 10k chunks)."""
        return functools.partial(self.embed_query, text)


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """float32 copy with unit-length rows (zero rows stay zero instead of becoming NaN)."""
    out = np.asarray(matrix, dtype=np.float32)
    if out.ndim == 1:
        out = out[None, :]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = (out / norms).astype(np.float32, copy=False)
    return unit
