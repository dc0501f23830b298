"""Embeddings from an Ollama server (``/api/embed``), e.g. bge-m3 pulled into Ollama."""

from __future__ import annotations

from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows
from officeqa.errors import ModelUnavailable


class OllamaEmbedder(Embedder):
    """Calls ``Client(host).embed(model, input=[...])``; ``dim`` is learnt from the first answer."""

    def __init__(self, host: str, model: str, timeout_s: float = 120.0) -> None:
        self._host = host
        self._model = model
        self._timeout_s = timeout_s
        self._client: Any = None
        self._dim: int | None = None
        self.name = f"ollama:{model}"

    @property
    def dim(self) -> int:  # type: ignore[override]  # the base declares a plain attribute
        """Ollama does not announce the vector length; one probe embedding tells it."""
        if self._dim is None:
            self._dim = int(self.embed_batch(["dim probe"]).shape[1])
        return self._dim

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        import httpx
        import ollama

        if self._client is None:
            self._client = ollama.Client(host=self._host, timeout=self._timeout_s)
        try:
            response = self._client.embed(model=self._model, input=list(texts))
        except (ConnectionError, httpx.HTTPError) as exc:
            raise ModelUnavailable(f"Ollama at {self._host} is not reachable for embeddings: {exc}") from exc
        except ollama.ResponseError as exc:
            raise ModelUnavailable(
                f"Ollama could not embed with {self._model!r} ({exc.error}); try `ollama pull {self._model}`"
            ) from exc
        vectors = normalise_rows(np.asarray(response.embeddings, dtype=np.float32))
        self._dim = int(vectors.shape[1])
        return vectors
