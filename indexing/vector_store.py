"""Chunk vectors in a Chroma persistent collection, tagged with the model that made them.

Why embeddings are always passed in: Chroma's default embedding function downloads a
model at first use, which fails on an offline intranet, so the collection is opened with
``embedding_function=None`` and every add/query carries vectors from our own embedder.

Why the collection records the embedder: vectors of two models live in different
spaces; a query embedded by model B against vectors of model A returns confident
nonsense. The collection metadata holds the embedder's name and dimension and every add
or dense query with another model is refused with :class:`IndexConsistencyError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from officeqa.domain import Chunk
from officeqa.errors import IndexConsistencyError

COLLECTION = "chunks"
_GET_PAGE = 5000


def chunk_metadata(chunk: Chunk, path: str, file_type: str) -> dict[str, Any]:
    """The flat metadata Chroma stores per chunk (no None values: Chroma rejects them)."""
    meta: dict[str, Any] = {
        "doc_id": chunk.doc_id,
        "path": path,
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


class VectorStore:
    """The ``chunks`` collection of a Chroma persistent client under ``path``."""

    def __init__(self, path: str | Path) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._client = chromadb.PersistentClient(
            path=str(self.path), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=True)
        )
        self._collection = self._client.get_or_create_collection(
            COLLECTION, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
        )
        self._max_batch = max(1, int(self._client.get_max_batch_size()))

    # -- the model guard ----------------------------------------------------------------
    @property
    def model(self) -> tuple[str, int] | None:
        """(embedder name, dim) recorded in the collection, or None while it is unclaimed."""
        meta = self._collection.metadata or {}
        if "embedder" not in meta:
            return None
        return str(meta["embedder"]), int(meta["dim"])

    def ensure_model(self, name: str, dim: int) -> None:
        """Claim an empty collection for ``name``; refuse a collection made by another model."""
        recorded = self.model
        if recorded is None:
            if self.count() and name:
                raise IndexConsistencyError(
                    f"the vector store at {self.path} holds vectors of an unknown model; "
                    + reindex_hint(self.path.parent)
                )
            self._collection.modify(metadata={"embedder": name, "dim": int(dim)})
            return
        if recorded != (name, int(dim)):
            raise IndexConsistencyError(
                f"the vector store at {self.path} was built with embedding model {recorded[0]!r} "
                f"(dim {recorded[1]}), but the configured model is {name!r} (dim {dim}); "
                f"vectors of two models cannot be mixed: {reindex_hint(self.path.parent)}"
            )

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
        if not ids:
            return
        if embeddings.shape != (len(ids), model[1]):
            raise IndexConsistencyError(f"got embeddings of shape {embeddings.shape} for {len(ids)} chunks")
        self.ensure_model(*model)
        vectors = np.asarray(embeddings, dtype=np.float32)
        for start in range(0, len(ids), self._max_batch):
            end = start + self._max_batch
            self._collection.add(
                ids=list(ids[start:end]),
                embeddings=vectors[start:end],
                documents=list(texts[start:end]),
                metadatas=list(metadatas[start:end]),
            )

    def delete_doc(self, doc_id: str) -> None:
        """Delete every chunk of ``doc_id`` (by metadata, so orphans of a crashed run go too)."""
        self._collection.delete(where={"doc_id": doc_id})

    def delete_ids(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), self._max_batch):
            self._collection.delete(ids=list(ids[start : start + self._max_batch]))

    def reset(self) -> None:
        """Drop every vector and the model claim (used by ``reindex``)."""
        self._client.delete_collection(COLLECTION)
        self._collection = self._client.get_or_create_collection(
            COLLECTION, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
        )

    # -- reads --------------------------------------------------------------------------
    def count(self) -> int:
        return int(self._collection.count())

    def all_ids(self) -> list[str]:
        ids: list[str] = []
        offset = 0
        while True:
            page = self._collection.get(include=[], limit=_GET_PAGE, offset=offset)["ids"]
            ids.extend(page)
            if len(page) < _GET_PAGE:
                return ids
            offset += _GET_PAGE

    def ids_where(self, where: dict[str, Any]) -> list[str]:
        """Chunk ids whose metadata match a (validated) Chroma ``where`` filter."""
        return list(self._collection.get(where=where, include=[])["ids"])

    def existing(self, ids: Sequence[str]) -> list[str]:
        """The subset of ``ids`` already stored."""
        found: list[str] = []
        for start in range(0, len(ids), self._max_batch):
            found.extend(self._collection.get(ids=list(ids[start : start + self._max_batch]), include=[])["ids"])
        return found

    def get(self, ids: Iterable[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """chunk id -> (text, metadata) for the ids that exist."""
        wanted = list(ids)
        if not wanted:
            return {}
        got = self._collection.get(ids=wanted, include=["documents", "metadatas"])
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
        n = min(int(k), self.count())
        if n <= 0:
            return []
        result = self._collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=n,
            where=where or None,
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [0.0] * len(ids)
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances, strict=True)]
