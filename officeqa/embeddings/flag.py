"""FlagEmbedding models from a folder on disk (bge-m3 or any BERT-like embedding model).

No PyPI package ships bge-m3's weights, so the user points ``embedding.model_path`` at a
downloaded folder. A bge-m3 folder (recognised by its sparse/colbert heads or its name)
loads with ``BGEM3FlagModel`` and yields its dense vectors; any other folder loads with
``FlagModel``, taking the pooling mode from a sentence-transformers ``1_Pooling`` config
when there is one (FlagModel's default is CLS pooling, which is wrong for mean-pooled
models such as all-MiniLM).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows
from officeqa.errors import ModelUnavailable

_M3_MARKERS = ("colbert_linear.pt", "sparse_linear.pt")


def is_bge_m3_folder(folder: Path) -> bool:
    """bge-m3 ships extra sparse/colbert heads next to the encoder; other models do not."""
    return any((folder / marker).is_file() for marker in _M3_MARKERS) or "bge-m3" in folder.name.lower()


def pooling_method(folder: Path) -> str:
    """'mean' or 'cls' as declared by a sentence-transformers pooling config; bge models use CLS."""
    config = folder / "1_Pooling" / "config.json"
    if config.is_file():
        values = json.loads(config.read_text(encoding="utf-8"))
        if values.get("pooling_mode_mean_tokens"):
            return "mean"
    return "cls"


_HAN_LANGUAGES = frozenset({"zh", "ja", "ko", "multilingual"})


def declared_scripts(folder: Path) -> frozenset[str] | None:
    """Scripts named by the model card's ``language:`` front matter (README.md); None when it names none.

    A card that says ``language: en`` (all-MiniLM, bge-*-en) is English-only: its vectors for
    Chinese text carry no meaning. A card listing Chinese or many languages, or no card, is
    taken as multilingual.
    """
    card = folder / "README.md"
    if not card.is_file():
        return None
    text = card.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---"):
        return None
    header = text[3 : text.find("\n---", 3)] if "\n---" in text[3:] else ""
    languages: list[str] = []
    in_list = False
    for line in header.splitlines():
        if line.startswith("language:"):
            value = line.split(":", 1)[1].strip()
            in_list = not value
            languages += [v.strip(" '\"") for v in value.strip("[]").split(",") if v.strip()]
        elif in_list and line.lstrip().startswith("- "):
            languages.append(line.strip()[2:].strip(" '\""))
        elif in_list and line and not line.startswith(" "):
            in_list = False
    if not languages or len(languages) > 3 or _HAN_LANGUAGES & {code.lower() for code in languages}:
        return None
    return frozenset({"en"})


def hidden_size(folder: Path) -> int:
    """The vector length, read from config.json so ``dim`` is known before the model loads."""
    config = folder / "config.json"
    try:
        return int(json.loads(config.read_text(encoding="utf-8"))["hidden_size"])
    except (OSError, KeyError, ValueError) as exc:
        raise ModelUnavailable(f"{config}: cannot read hidden_size of the embedding model ({exc})") from exc


class FlagEmbedder(Embedder):
    """Dense vectors from FlagEmbedding on the CPU (or GPU with fp16 if the user asks)."""

    def __init__(self, model_path: str, use_fp16: bool = False, batch_size: int = 64, device: str = "cpu") -> None:
        if not model_path:
            raise ModelUnavailable(
                "embedding.backend=flag needs embedding.model_path (OFFICEQA_EMBEDDING__MODEL_PATH): "
                "the folder holding the downloaded bge-m3 weights"
            )
        folder = Path(model_path).expanduser()
        if not (folder / "config.json").is_file():
            raise ModelUnavailable(
                f"embedding model folder {folder} not found or has no config.json; download bge-m3 "
                "(e.g. `huggingface-cli download BAAI/bge-m3 --local-dir ...`) or choose another backend"
            )
        self._folder = folder
        self._use_fp16 = use_fp16
        self._batch_size = batch_size
        self._device = device
        self._m3 = is_bge_m3_folder(folder)
        self.name = f"flag:{folder.name}"
        self.dim = hidden_size(folder)
        self.scripts = declared_scripts(folder)
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            # torch + transformers take seconds to import: only here, never at module import.
            from FlagEmbedding import BGEM3FlagModel, FlagModel

            common: dict[str, Any] = {
                "use_fp16": self._use_fp16,
                "devices": self._device,
                "batch_size": self._batch_size,
            }
            try:
                if self._m3:
                    self._model = BGEM3FlagModel(str(self._folder), **common)
                else:
                    self._model = FlagModel(str(self._folder), pooling_method=pooling_method(self._folder), **common)
            except (OSError, ValueError) as exc:
                raise ModelUnavailable(f"cannot load embedding model from {self._folder}: {exc}") from exc
        return self._model

    def _encode(self, texts: list[str], queries: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        encode = model.encode_queries if queries else model.encode_corpus
        output = encode(texts, batch_size=self._batch_size)
        if self._m3:
            output = output["dense_vecs"]
        return normalise_rows(np.asarray(output))

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._encode(list(texts), queries=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(list(texts), queries=True)
