"""The one place a storage backend is chosen by name (``storage.backend``).

    embedded   SQLite registry + Chroma + BM25 files under data_dir (the default; nothing to start)
    postgres   one PostgreSQL schema with pgvector, shared by several processes and machines

Callers ask for what they use (a knowledge base, the stores a worker pool writes through, a
registry, a job queue) and never branch on the backend themselves. Every backend offers the same
methods: :class:`indexing.stores.Stores` and its registry, job queue, vector store and BM25 index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from officeqa.errors import ConfigurationError
from officeqa.settings import Settings

if TYPE_CHECKING:
    from indexing.jobs import JobQueue
    from indexing.knowledge_base import KnowledgeBase
    from indexing.registry import Registry
    from indexing.stores import Stores
    from officeqa.embeddings import Embedder


def _embedded_kb(settings: Settings, embedder: Embedder | None) -> KnowledgeBase:
    from indexing.knowledge_base import KnowledgeBase

    return KnowledgeBase(settings, embedder)


def _postgres_kb(settings: Settings, embedder: Embedder | None) -> KnowledgeBase:
    from indexing.postgres.knowledge_base import PostgresKnowledgeBase

    return PostgresKnowledgeBase(settings, embedder)


def _embedded_stores(settings: Settings, embedder: Embedder | None) -> Stores:
    from indexing.stores import Stores

    return Stores(settings, embedder)


def _postgres_stores(settings: Settings, embedder: Embedder | None) -> Stores:
    from indexing.postgres.stores import PostgresStores

    return PostgresStores(settings, embedder)


def _embedded_registry(settings: Settings) -> Registry:
    from indexing.registry import Registry

    return Registry(Path(settings.data_dir) / "registry.sqlite3")


def _postgres_registry(settings: Settings) -> Any:
    from indexing.postgres.registry import PostgresRegistry
    from indexing.postgres.stores import open_database

    return PostgresRegistry(open_database(settings))


def _embedded_jobs(registry: Any, settings: Settings) -> JobQueue:
    from indexing.jobs import JobQueue

    return JobQueue(registry, settings.jobs)


def _postgres_jobs(registry: Any, settings: Settings) -> Any:
    from indexing.postgres.jobs import PostgresJobQueue

    return PostgresJobQueue(registry, settings.jobs)


_BACKENDS: dict[str, dict[str, Callable[..., Any]]] = {
    "embedded": {"kb": _embedded_kb, "stores": _embedded_stores, "registry": _embedded_registry,
                 "jobs": _embedded_jobs},
    "postgres": {"kb": _postgres_kb, "stores": _postgres_stores, "registry": _postgres_registry,
                 "jobs": _postgres_jobs},
}
BACKENDS = tuple(_BACKENDS)


def _backend(settings: Settings) -> dict[str, Callable[..., Any]]:
    name = settings.storage.backend
    try:
        return _BACKENDS[name]
    except KeyError:
        raise ConfigurationError(f"storage.backend {name!r}: choose one of {', '.join(BACKENDS)}") from None


def open_knowledge_base(settings: Settings, embedder: Embedder | None = None) -> KnowledgeBase:
    """The knowledge base ``settings`` describe, in its configured backend."""
    return _backend(settings)["kb"](settings, embedder)


def open_stores(settings: Settings, embedder: Embedder | None = None) -> Stores:
    """The stores a worker pool writes through (no per-document sinks beyond the backend's own)."""
    return _backend(settings)["stores"](settings, embedder)


def open_registry(settings: Settings) -> Registry:
    """A registry handle of its own (a parse slot's thread, a request thread); close it when done."""
    return _backend(settings)["registry"](settings)


def queue_over(registry: Registry, settings: Settings) -> JobQueue:
    """The job queue of the configured backend over an open ``registry`` handle (a thread's own)."""
    return _backend(settings)["jobs"](registry, settings)


@contextmanager
def job_queue(settings: Settings) -> Iterator[JobQueue]:
    """A short-lived job queue handle (its own registry connection), closed after the block."""
    registry = open_registry(settings)
    try:
        yield queue_over(registry, settings)
    finally:
        registry.close()


__all__ = ["BACKENDS", "job_queue", "open_knowledge_base", "open_registry", "open_stores", "queue_over"]
