"""A deterministic fake embedder for fast tests.

Hashed character n-grams (1..3) with signed buckets: texts that share characters land
close together, so tests can assert "similar is nearer than unrelated" without a model.
It uses crc32, not ``hash()``, because Python salts string hashes per process and the
vectors must be identical across runs (they are persisted in Chroma).
"""

from __future__ import annotations

import zlib

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows


class HashEmbedder(Embedder):
    """Bag of hashed character 1-3-grams, L2-normalised."""

    def __init__(self, dim: int = 256, ngram_range: tuple[int, int] = (1, 3)) -> None:
        if dim < 8:
            raise ValueError("dim must be >= 8")
        self.dim = dim
        self.name = f"hash-ngram-{dim}"
        self._ngrams = range(ngram_range[0], ngram_range[1] + 1)

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        folded = "".join(text.lower().split())
        for n in self._ngrams:
            for i in range(len(folded) - n + 1):
                code = zlib.crc32(folded[i : i + n].encode("utf-8"))
                vec[code % self.dim] += 1.0 if (code >> 31) & 1 else -1.0
        return vec

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise_rows(np.stack([self._vector(t) for t in texts]))
