"""The knowledge base of the configured storage backend (``storage.backend``): the top of ``indexing/``.

Why here and not a ``KnowledgeBase.open`` classmethod: the PostgreSQL knowledge base is a subclass
of :class:`indexing.knowledge_base.KnowledgeBase`, so a factory inside the base class had to import
its own subclass (an import cycle). This module imports both and nothing in ``indexing/`` imports it;
the shells (CLI, HTTP server, eval, integrations) open their knowledge base here. The lower-level
handles (stores, registry, job queue) are chosen in :mod:`indexing.backends`.
"""

from __future__ import annotations

from collections.abc import Callable

from indexing.backends import backend_of
from indexing.knowledge_base import KnowledgeBase
from indexing.postgres.knowledge_base import PostgresKnowledgeBase
from officeqa.embeddings import Embedder
from officeqa.settings import Settings

_KNOWLEDGE_BASES: dict[str, Callable[[Settings, Embedder | None], KnowledgeBase]] = {
    "embedded": KnowledgeBase,
    "postgres": PostgresKnowledgeBase,
}


def open_knowledge_base(settings: Settings, embedder: Embedder | None = None) -> KnowledgeBase:
    """The knowledge base ``settings`` describe, in its configured backend (close it, or use it in ``with``)."""
    backend_of(settings)  # an unknown backend name is a configuration error naming the choices
    return _KNOWLEDGE_BASES[settings.storage.backend](settings, embedder)


__all__ = ["open_knowledge_base"]
