"""The long-lived parts of a running server, built in the app's lifespan and closed in its ``finally``.

    ServerResources
    ├── settings, knowledge_bases (names -> data folders, write generations)
    ├── keys            the API-key file (re-read when it changes)
    ├── embedder        one model for every knowledge base, behind a lock
    ├── generator       the Ollama client (None: extractive answers only)
    ├── pool            answer threads, each with its own service per knowledge base
    └── ingest          the job queue's background workers, one IngestService per knowledge base
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from officeqa.embeddings import Embedder
from officeqa.errors import PermissionDenied, UnknownKnowledgeBase
from officeqa.settings import Settings
from server.ingest import Ingestion
from server.keys import Access, KeyStore, keys_path
from server.knowledge_bases import DEFAULT_KB, check_name, kb_dir, kb_settings, served_names, uploads_dir
from server.pool import ServicePool
from server.public_paths import PathView

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.generation import OllamaGenerator
    from retrieval.service import QuestionService


class SerialEmbedder(Embedder):
    """One embedding model shared by the answer threads and the ingestion workers, one call at a time.

    Why a lock: back-ends load their weights lazily on first use (two threads would load them
    twice) and not all of them are safe to call concurrently; a query embeds in milliseconds.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._lock = threading.Lock()

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return self.inner.embed_batch(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self.inner.embed_queries(texts)


class KnowledgeBases:
    """The knowledge bases one server serves, and a write generation for each."""

    def __init__(self, settings: Settings, names: Sequence[str] | None = None) -> None:
        self.settings = settings
        self.names = list(dict.fromkeys(check_name(n) for n in (names or served_names(settings))))
        self._generations = dict.fromkeys(self.names, 0)
        self._lock = threading.Lock()
        for name in self.names:
            kb_dir(settings, name).mkdir(parents=True, exist_ok=True)

    def __contains__(self, name: object) -> bool:
        return name in self._generations

    def settings_for(self, name: str) -> Settings:
        return kb_settings(self.settings, name)

    def uploads(self, name: str) -> Path:
        return uploads_dir(self.settings, name)

    def generation(self, name: str) -> int:
        return self._generations[name]

    def written(self, name: str) -> None:
        """A write happened: answer threads reopen their handles of ``name`` before the next question."""
        with self._lock:
            self._generations[name] += 1

    def visible(self, access: Access) -> list[str]:
        return [n for n in self.names if access.can_read(n)]

    def select(self, access: Access, requested: str | None, *, write: bool = False) -> str:
        """The knowledge base a request works on: the one it names, else ``default``, else the key's only one.

        A name the caller may not read is reported exactly like one that does not exist.
        """
        visible = self.visible(access)
        if requested:
            if requested not in visible:
                raise UnknownKnowledgeBase(f"no knowledge base {requested!r} (see GET /api/kbs)")
            name = requested
        elif DEFAULT_KB in visible:
            name = DEFAULT_KB
        elif len(visible) == 1:
            name = visible[0]
        elif visible:
            raise UnknownKnowledgeBase(
                "this key reaches several knowledge bases: name one with the X-Knowledge-Base header or ?kb="
            )
        else:
            raise UnknownKnowledgeBase("no knowledge base is open to this key")
        if write and not access.can_write(name):
            raise PermissionDenied(f"this key may read knowledge base {name!r} but not change it (role read)")
        return name


@dataclass
class ServerResources:
    """Everything a request handler may use; built once per app start."""

    settings: Settings
    knowledge_bases: KnowledgeBases
    keys: KeyStore
    embedder: SerialEmbedder
    generator: OllamaGenerator | None
    pool: ServicePool
    ingest: Ingestion
    _views: dict[str, tuple[int, PathView]] = field(default_factory=dict)

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        generator: OllamaGenerator | str | None = "ollama",
        embedder: Embedder | None = None,
    ) -> ServerResources:
        from indexing.storage import open_knowledge_base
        from officeqa.embeddings import create_embedder
        from retrieval.l0 import get_router
        from retrieval.service import QuestionService

        kbs = KnowledgeBases(settings)
        shared = SerialEmbedder(embedder or create_embedder(settings.embedding, settings.ollama))
        if generator == "ollama":
            from officeqa.generation import OllamaGenerator

            generator = OllamaGenerator(settings.ollama)
        model = generator if not isinstance(generator, str) else None
        router = get_router(settings)

        def open_kb(name: str) -> KnowledgeBase:
            return open_knowledge_base(kbs.settings_for(name), shared)

        def open_service(name: str) -> QuestionService:
            return QuestionService(kbs.settings_for(name), open_kb(name), model, router=router, owns_resources=False)

        def close_service(service: QuestionService) -> None:
            service.close()
            service.kb.close()  # the thread's own handle; the generator is the server's and stays open

        ingest = Ingestion({name: kbs.settings_for(name) for name in kbs.names}, shared, model, kbs.written)
        ingest.start()
        try:
            pool = ServicePool(open_service, close_service, kbs.generation, settings.server.answer_threads)
        except BaseException:
            ingest.stop()
            raise
        return cls(settings, kbs, KeyStore(keys_path(settings)), shared, model, pool, ingest)

    async def path_view(self, kb: str) -> PathView:
        """How ``kb``'s document paths are shown to clients; the indexed folder is re-read after each write."""
        generation = self.knowledge_bases.generation(kb)
        cached = self._views.get(kb)
        if cached is not None and cached[0] == generation:
            return cached[1]
        fixed = [self.knowledge_bases.uploads(kb), kb_dir(self.settings, kb)]
        paths = await self.pool.call(kb, lambda service: [r.path for r in service.kb.registry.documents()])
        view = PathView.for_paths(fixed, paths)
        self._views[kb] = (generation, view)
        return view

    def warm_up(self) -> None:
        """Load what the first question would otherwise wait for: the embedding model, jieba's dictionary and
        the English stemmer."""
        from officeqa.text_tokens import bm25_terms

        self.embedder.embed_query("warm-up 预热")
        bm25_terms("预热 warm-up")

    def close(self) -> None:
        try:
            self.ingest.stop()
            self.pool.close()
        finally:
            if self.generator is not None:
                self.generator.close()


__all__ = ["KnowledgeBases", "SerialEmbedder", "ServerResources"]
