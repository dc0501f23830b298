"""Chunk vectors in a Chroma persistent collection, tagged with the model that made them.

Why embeddings are always passed in: Chroma's default embedding function downloads a
model at first use, which fails on an offline intranet, so the collection is opened with
``embedding_function=None`` and every add/query carries vectors from our own embedder.

Why the collection records the embedder: vectors of two models live in different
spaces; a query embedded by model B against vectors of model A returns confident
nonsense. The collection metadata holds the embedder's name and dimension and every add
or dense query with another model is refused with :class:`IndexConsistencyError`.

Damage and other processes: Chroma's internal errors on a truncated or garbled file are
turned into one :class:`StoreDamaged` line naming the file and the fix. A garbled HNSW
file can crash the process outright (a segfault inside hnswlib), which no ``except``
catches, so :func:`probe` opens the store in a child process first whenever its files
changed since this product last wrote them (see :func:`fingerprint`). Chroma keeps
the HNSW graph in memory per process; after another process wrote,
:meth:`VectorStore.reopen` drops the cached client so the next read sees the new state.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from officeqa.domain import Chunk
from officeqa.errors import IndexConsistencyError, StoreDamaged

COLLECTION = "chunks"
_GET_PAGE = 5000
_PROBE_TIMEOUT_S = 300.0
CHROMA_FIX = (
    "run `officeqa check --repair` to rebuild the vector store from the stored documents "
    "(or `officeqa reindex` to re-parse every file)"
)
T = TypeVar("T")
#: Chroma's process-wide client cache is not safe to fill from two threads at once: answer threads opening their
#: first service together failed with "'RustBindingsAPI' object has no attribute 'bindings'" (50 concurrent
#: clients on a fresh server). Connecting and reconnecting are serialised; queries are not.
_CONNECT_LOCK = threading.RLock()


def chunk_metadata(chunk: Chunk, path: str, file_type: str) -> dict[str, Any]:
    """The flat metadata Chroma stores per chunk (no None values: Chroma rejects them)."""
    meta: dict[str, Any] = {
        "doc_id": chunk.doc_id,
        # Chroma stores UTF-8 only: a file name with undecodable bytes is kept escaped here
        # (the registry holds the exact bytes).
        "path": path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"),
        "file_type": file_type,
        "heading_path": " > ".join(chunk.heading_path),
        "kind": str(chunk.kind.value if hasattr(chunk.kind, "value") else chunk.kind),
        "position": int(chunk.position),
        "overlap_chars": int(chunk.overlap_chars),
        "tokens": int(chunk.tokens),
    }
    for key in ("page", "page_end", "slide"):
        value = getattr(chunk, key)
        if value is not None:
            meta[key] = int(value)
    if chunk.sheet is not None:
        meta["sheet"] = str(chunk.sheet)
    if chunk.version:
        meta["version"] = str(chunk.version)
    return meta


def reindex_hint(data_dir: Path | str) -> str:
    return (
        f"re-index with one model: delete the data folder {data_dir} (or run `officeqa reindex`) "
        "and run `officeqa index` again"
    )


def checked_vectors(ids: Sequence[str], embeddings: np.ndarray, model: tuple[str, int]) -> np.ndarray:
    """``embeddings`` as float32, after checking there is one vector of the model's dimension per chunk."""
    if embeddings.shape != (len(ids), model[1]):
        raise IndexConsistencyError(f"got embeddings of shape {embeddings.shape} for {len(ids)} chunks")
    return np.asarray(embeddings, dtype=np.float32)


def model_conflict(
    store: str, recorded: tuple[str, int] | None, name: str, dim: int, holds_vectors: bool, fix: str
) -> IndexConsistencyError | None:
    """Why vectors of model ``(name, dim)`` may not go into ``store`` (both backends), or None when they may.

    A store belongs to the first model that writes to it: vectors of two models cannot be compared.
    An unclaimed store that already holds vectors came from an unknown model and is refused too.
    """
    if recorded is None:
        if holds_vectors and name:
            return IndexConsistencyError(f"the vector store {store} holds vectors of an unknown model; {fix}")
        return None
    if recorded != (name, int(dim)):
        return IndexConsistencyError(
            f"the vector store {store} was built with embedding model {recorded[0]!r} "
            f"(dim {recorded[1]}), but the configured model is {name!r} (dim {dim}); "
            f"vectors of two models cannot be mixed: {fix}"
        )
    return None


class VectorStore:
    """The ``chunks`` collection of a Chroma persistent client under ``path``."""

    def __init__(self, path: str | Path, collection: str = COLLECTION) -> None:
        """``collection``: ``chunks`` (the fast vectors) or the background model's (see indexing/strong.py)."""
        self.path = Path(path)
        self.collection = collection
        self.path.mkdir(parents=True, exist_ok=True)
        self._open()

    def _open(self) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        def connect() -> None:
            self._client = chromadb.PersistentClient(
                path=str(self.path), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=True)
            )
            self._collection = self._client.get_or_create_collection(
                self.collection, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
            )
            self._max_batch = max(1, int(self._client.get_max_batch_size()))

        with _CONNECT_LOCK:
            self._guard(connect)

    def reopen(self) -> None:
        """Drop this process's cached Chroma system for the path and connect again.

        Chroma keeps the HNSW graph in memory per process; after another process wrote,
        dense queries here would miss (or return deleted) vectors until the client is rebuilt.
        """
        from chromadb.api.shared_system_client import SharedSystemClient

        with _CONNECT_LOCK:
            SharedSystemClient._identifier_to_system.pop(str(self.path), None)
            SharedSystemClient._identifier_to_refcount.pop(str(self.path), None)
            self._open()

    def _guard(self, call: Callable[..., T]) -> T:
        """Run a Chroma call; its internal errors (a damaged file) become one StoreDamaged line."""
        from chromadb.errors import InternalError

        try:
            return call()
        except InternalError as exc:
            raise self._damaged(str(exc)) from exc
        except BaseException as exc:
            if type(exc).__name__ == "PanicException":  # a Rust panic inside chromadb (BaseException subclass)
                raise self._damaged(str(exc)) from exc
            raise

    def _damaged(self, reason: str) -> StoreDamaged:
        return StoreDamaged(damaged_file(self.path, reason), _short(reason), CHROMA_FIX)

    # -- the model guard ----------------------------------------------------------------
    @property
    def model(self) -> tuple[str, int] | None:
        """(embedder name, dim) recorded in the collection, or None while it is unclaimed."""
        meta = self._guard(lambda: self._collection.metadata) or {}
        if "embedder" not in meta:
            return None
        return str(meta["embedder"]), int(meta["dim"])

    def ensure_model(self, name: str, dim: int) -> None:
        """Claim an empty collection for ``name``; refuse a collection made by another model."""
        recorded = self.model
        holds_vectors = recorded is None and self.count() > 0
        conflict = model_conflict(f"at {self.path}", recorded, name, dim, holds_vectors, reindex_hint(self.path.parent))
        if conflict is not None:
            raise conflict
        if recorded is None:
            self._guard(lambda: self._collection.modify(metadata={"embedder": name, "dim": int(dim)}))

    # -- writes -------------------------------------------------------------------------
    def add(
        self,
        ids: Sequence[str],
        embeddings: np.ndarray,
        texts: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
        model: tuple[str, int],
    ) -> None:
        """Add chunks (vectors from ``model``) in batches Chroma accepts."""
        self._write("add", ids, embeddings, texts, metadatas, model)

    def upsert(
        self,
        ids: Sequence[str],
        embeddings: np.ndarray,
        texts: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
        model: tuple[str, int],
    ) -> None:
        """Add or overwrite chunks: staging a document again after a crash never duplicates it."""
        self._write("upsert", ids, embeddings, texts, metadatas, model)

    def _write(
        self,
        operation: str,
        ids: Sequence[str],
        embeddings: np.ndarray,
        texts: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
        model: tuple[str, int],
    ) -> None:
        """``collection.add`` or ``collection.upsert`` in batches Chroma accepts."""
        if not ids:
            return
        vectors = checked_vectors(ids, embeddings, model)
        self.ensure_model(*model)
        for start in range(0, len(ids), self._max_batch):
            end = start + self._max_batch
            self._guard(
                lambda start=start, end=end: getattr(self._collection, operation)(
                    ids=list(ids[start:end]),
                    embeddings=vectors[start:end],
                    documents=list(texts[start:end]),
                    metadatas=list(metadatas[start:end]),
                )
            )

    def delete_doc(self, doc_id: str) -> None:
        """Delete every chunk of ``doc_id`` (by metadata, so orphans of a crashed run go too)."""
        self._guard(lambda: self._collection.delete(where={"doc_id": doc_id}))

    def delete_ids(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), self._max_batch):
            part = list(ids[start : start + self._max_batch])
            self._guard(lambda part=part: self._collection.delete(ids=part))

    def reset(self) -> None:
        """Drop every vector and the model claim (used by ``reindex``)."""
        def reset() -> None:
            self._client.delete_collection(self.collection)
            self._collection = self._client.get_or_create_collection(
                self.collection, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
            )

        self._guard(reset)

    # -- reads --------------------------------------------------------------------------
    def count(self) -> int:
        return int(self._guard(self._collection.count))

    def all_ids(self) -> list[str]:
        ids: list[str] = []
        offset = 0
        while True:
            page = self._guard(lambda offset=offset: self._collection.get(include=[], limit=_GET_PAGE, offset=offset))[
                "ids"
            ]
            ids.extend(page)
            if len(page) < _GET_PAGE:
                return ids
            offset += _GET_PAGE

    def ids_where(self, where: dict[str, Any]) -> list[str]:
        """Chunk ids whose metadata match a (validated) Chroma ``where`` filter."""
        return list(self._guard(lambda: self._collection.get(where=where, include=[]))["ids"])

    def existing(self, ids: Sequence[str]) -> list[str]:
        """The subset of ``ids`` already stored."""
        found: list[str] = []
        for start in range(0, len(ids), self._max_batch):
            part = list(ids[start : start + self._max_batch])
            found.extend(self._guard(lambda part=part: self._collection.get(ids=part, include=[]))["ids"])
        return found

    def get(self, ids: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """chunk id -> (text, metadata) for the ids that exist."""
        wanted = list(ids)
        if not wanted:
            return {}
        got = self._guard(lambda: self._collection.get(ids=wanted, include=["documents", "metadatas"]))
        docs = got["documents"] or []
        metas = got["metadatas"] or []
        return {cid: (doc or "", dict(meta or {})) for cid, doc, meta in zip(got["ids"], docs, metas, strict=True)}

    def query(
        self, vector: np.ndarray, k: int, model: tuple[str, int], where: dict[str, Any] | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest chunks as (id, cosine similarity), best first."""
        recorded = self.model
        if recorded is not None and recorded != (model[0], int(model[1])):
            self.ensure_model(*model)  # raises with the explanation
        n = int(k)  # no count() first: Chroma returns what there is (a count cost 1.3 ms of a ~15 ms query)
        if n <= 0:
            return []
        result = self._guard(
            lambda: self._collection.query(
                query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
                n_results=n,
                where=where or None,
                include=["distances"],
            )
        )
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [0.0] * len(ids)
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances, strict=True)]

    def records(self, page: int = _GET_PAGE) -> Iterator[list[tuple[str, str, dict[str, Any], np.ndarray]]]:
        """Every chunk as (id, text, metadata, vector), a page at a time (``officeqa migrate``: no re-embedding)."""
        offset = 0
        while True:
            got = self._guard(lambda offset=offset: self._collection.get(
                include=["documents", "metadatas", "embeddings"], limit=page, offset=offset))
            ids = got["ids"]
            if ids:
                docs, metas, vectors = got["documents"] or [], got["metadatas"] or [], got["embeddings"]
                if vectors is None:
                    raise self._damaged("chunks without their vectors")
                yield [(cid, docs[i] or "", dict(metas[i] or {}), np.asarray(vectors[i], dtype=np.float32))
                       for i, cid in enumerate(ids)]
            if len(ids) < page:
                return
            offset += page

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """chunk id -> stored text, in pages Chroma accepts (what rebuilds BM25 after damage)."""
        out: dict[str, str] = {}
        for start in range(0, len(ids), self._max_batch):
            part = list(ids[start : start + self._max_batch])
            got = self._guard(lambda part=part: self._collection.get(ids=part, include=["documents"]))
            out.update({cid: doc or "" for cid, doc in zip(got["ids"], got["documents"] or [], strict=True)})
        return out

    def doc_counts(self) -> dict[str, int]:
        """doc id -> chunks stored (what the background model's coverage is counted from).

        From the ids alone (``<doc id>-<position>``, as :meth:`indexing.stores.Stores.reconcile` reads them):
        reading every chunk's metadata would make each documents page cost a pass over the collection.
        """
        out: dict[str, int] = {}
        for cid in self.all_ids():
            doc_id = cid.rsplit("-", 1)[0]
            out[doc_id] = out.get(doc_id, 0) + 1
        return out

    def paths(self) -> dict[str, str]:
        """path -> doc id from every chunk's metadata (what survives when the registry is lost)."""
        out: dict[str, str] = {}
        offset = 0
        while True:
            got = self._guard(
                lambda offset=offset: self._collection.get(include=["metadatas"], limit=_GET_PAGE, offset=offset)
            )
            for meta in got["metadatas"] or []:
                if meta and meta.get("path"):
                    out[str(meta["path"])] = str(meta.get("doc_id", ""))
            if len(got["ids"]) < _GET_PAGE:
                return out
            offset += _GET_PAGE


def damaged_file(path: Path, reason: str) -> str:
    """Name the damaged part of a Chroma folder as precisely as the error allows."""
    text = reason.lower()
    if not any(word in text for word in ("database", "sqlite", "malformed")):  # not SQLite: the HNSW files
        segments = sorted(p.name for p in path.iterdir() if p.is_dir()) if path.is_dir() else []
        where = f"{path}/{segments[0]}" if len(segments) == 1 else f"{path}/<segment>"
        return f"the vector index files in {where}"
    return f"the vector store {path / 'chroma.sqlite3'}"


def fingerprint(path: str | Path) -> str:
    """Sizes and modification times of every file of a Chroma folder ("" when it does not exist).

    Recorded after each commit: a later mismatch means the files changed behind the
    product's back (or a writer was killed mid-write), and :func:`probe` checks them.
    """
    root = Path(path)
    if not root.is_dir():
        return ""
    parts = []
    for folder, _dirs, files in os.walk(root):
        for name in sorted(files):
            full = os.path.join(folder, name)
            try:
                st = os.stat(full)
            except OSError:
                continue
            parts.append(f"{os.path.relpath(full, root)}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(sorted(parts))


_PROBE = """
import sys
import numpy as np
import chromadb
from chromadb.config import Settings
client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))
names = [c.name if hasattr(c, "name") else c for c in client.list_collections()]
if "chunks" in names:
    col = client.get_collection("chunks", embedding_function=None)
    n = col.count()
    col.get(include=["metadatas"], limit=10)
    meta = col.metadata or {}
    if n and meta.get("dim"):
        # Walk much of the HNSW graph: queries from stored vectors spread over the collection and from
        # random directions (a garbled neighbour list is only read when a search passes that node).
        dim = int(meta["dim"])
        picks = sorted({int(i * n / 40) for i in range(40)})
        stored = [col.get(limit=1, offset=o, include=["embeddings"])["embeddings"] for o in picks]
        vectors = [np.asarray(e[0], dtype=np.float32) for e in stored if e is not None and len(e)]
        rng = np.random.default_rng(0)
        vectors += list(rng.normal(size=(20, dim)).astype(np.float32))
        col.query(query_embeddings=np.stack(vectors), n_results=min(n, 50))
print("ok")
"""


def probe(path: str | Path) -> str | None:
    """Open and query the Chroma store at ``path`` in a child process; None if sound, else why not.

    A child, because a garbled HNSW file segfaults the process that loads it.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(path)],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"opening it took longer than {_PROBE_TIMEOUT_S:g} s"
    if done.returncode == 0 and done.stdout.strip().endswith("ok"):
        return None
    if done.returncode < 0:
        return f"searching its HNSW index crashed the process (signal {-done.returncode})"
    lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
    return lines[-1] if lines else f"exit code {done.returncode}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) < 200 else text[:197] + "..."
