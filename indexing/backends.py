"""The one place a storage backend is chosen by name (``storage.backend``): its stores, registry and job queue.

    embedded   SQLite registry + Chroma + BM25 files under data_dir (the default; nothing to start)
    postgres   one PostgreSQL schema with pgvector, shared by several processes and machines

Callers ask for what they use (the stores a worker pool writes through, a registry handle of a
thread's own, a job queue over it) and never branch on the backend themselves. Every backend offers
the same methods, written down once in :mod:`indexing.contracts`. The knowledge base facade sits one
layer up (:func:`indexing.storage.open_knowledge_base`): the worker pool, the summary thread and the
folder watcher open their handles here without importing it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from indexing.contracts import DocumentRegistry, JobStore
from indexing.jobs import JobQueue, QueueRules
from indexing.postgres.jobs import PostgresJobQueue
from indexing.postgres.registry import PostgresRegistry
from indexing.postgres.stores import PostgresStores, open_database
from indexing.registry import Registry
from indexing.stores import Stores
from officeqa.embeddings import Embedder, background_backend
from officeqa.errors import ConfigurationError
from officeqa.settings import Settings


@dataclass(frozen=True, slots=True)
class Backend:
    """How one backend opens its stores, a registry handle, and a job queue over a registry handle of its own."""

    stores: Callable[[Settings, Embedder | None], Stores]
    registry: Callable[[Settings], DocumentRegistry]
    queue: Callable[[Settings], JobStore]


def _embedded_registry(settings: Settings) -> Registry:
    return Registry(Path(settings.data_dir) / "registry.sqlite3")


def _embedded_queue(settings: Settings) -> JobQueue:
    return with_follow_ups(JobQueue(_embedded_registry(settings), settings.jobs), settings)


def _postgres_registry(settings: Settings) -> PostgresRegistry:
    return PostgresRegistry(open_database(settings))


def _postgres_queue(settings: Settings) -> PostgresJobQueue:
    return with_follow_ups(PostgresJobQueue(_postgres_registry(settings), settings.jobs), settings)


Q = TypeVar("Q", bound=QueueRules)


def with_follow_ups(queue: Q, settings: Settings) -> Q:
    """``queue`` set to queue the background model's ``embed`` jobs behind commits when that model is on."""
    queue.embed_indexed = background_backend(settings.embedding) != "off"
    return queue


_BACKENDS: dict[str, Backend] = {
    "embedded": Backend(stores=Stores, registry=_embedded_registry, queue=_embedded_queue),
    "postgres": Backend(stores=PostgresStores, registry=_postgres_registry, queue=_postgres_queue),
}
BACKENDS = tuple(_BACKENDS)


def backend_of(settings: Settings) -> Backend:
    """The configured backend; a name nobody knows is a configuration error naming the choices."""
    name = settings.storage.backend
    try:
        return _BACKENDS[name]
    except KeyError:
        raise ConfigurationError(f"storage.backend {name!r}: choose one of {', '.join(BACKENDS)}") from None


def open_stores(settings: Settings, embedder: Embedder | None = None) -> Stores:
    """The stores a worker pool writes through (no per-document sinks beyond the backend's own)."""
    return backend_of(settings).stores(settings, embedder)


def open_registry(settings: Settings) -> DocumentRegistry:
    """A registry handle of its own (a parse slot's thread, a request thread); close it when done."""
    return backend_of(settings).registry(settings)


def open_queue(settings: Settings) -> JobStore:
    """A job queue over a registry handle of its own (a thread's); close ``queue.registry`` when done."""
    return backend_of(settings).queue(settings)


@contextmanager
def job_queue(settings: Settings) -> Iterator[JobStore]:
    """A short-lived job queue handle (its own registry connection), closed after the block."""
    queue = open_queue(settings)
    try:
        yield queue
    finally:
        queue.registry.close()


__all__ = ["BACKENDS", "Backend", "backend_of", "job_queue", "open_queue", "open_registry", "open_stores"]
