"""The app factory: routes, the lifespan that owns every heavy resource, the one exception mapper.

    app = create_app(settings)                      # nothing heavy happens here
    uvicorn.run(app, host=..., port=...)            # the lifespan opens and closes the resources

Endpoints (OpenAPI schema at ``/schema``, ``/schema/openapi.json``):

    POST   /api/documents                 upload (multipart 'files'), queued for indexing
    GET    /api/documents                 documents with states and errors
    DELETE /api/documents/{id}            remove a document from every store
    GET    /api/documents/{id}/chunks     chunk preview and chunking metrics
    POST   /api/chat                      a question: SSE stream or one JSON answer
    POST   /api/route                     L0 route explanation
    GET    /api/health                    stores, embedder, Ollama, queue
    GET    /api/kbs                       knowledge bases this key may use
    POST   /v1/chat/completions           OpenAI-compatible chat (streaming and not)
    GET    /v1/models                     one model per knowledge base
    GET    /                              the web client (static files under /static)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from litestar import Litestar, Router
from litestar.datastructures import CacheControlHeader, ResponseHeader
from litestar.openapi import OpenAPIConfig
from litestar.static_files import create_static_files_router

from officeqa.settings import Settings
from server import api_chat, api_documents, api_meta, api_openai
from server.errors import exception_to_response
from server.resources import ServerResources

if TYPE_CHECKING:
    from officeqa.embeddings import Embedder
    from officeqa.generation import OllamaGenerator

#: JSON bodies (questions with their history) stay small; uploads have their own limit.
JSON_BODY_LIMIT = 4 << 20


def create_app(
    settings: Settings,
    *,
    generator: OllamaGenerator | str | None = "ollama",
    embedder: Embedder | None = None,
) -> Litestar:
    """The Litestar app over the knowledge bases ``settings`` names.

    ``generator``: ``"ollama"`` talks to ``settings.ollama``; None answers extractively (no
    model); an :class:`OllamaGenerator` is used as given. ``embedder`` overrides the one the
    settings name (tests). Both are opened in the lifespan, not here.
    """

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        resources = await asyncio.to_thread(ServerResources.open, settings, generator=generator, embedder=embedder)
        app.state.officeqa = resources
        try:
            await asyncio.to_thread(resources.warm_up)
            yield
        finally:
            resources.close()

    uploads = Router(
        path="/",
        route_handlers=[api_documents.upload],
        request_max_body_size=api_documents.upload_body_limit(settings.server.max_upload_mb,
                                                              settings.server.max_upload_files),
    )
    return Litestar(
        route_handlers=[
            uploads,
            api_documents.documents,
            api_documents.delete_document,
            api_documents.chunks,
            api_chat.chat,
            api_meta.explain_route,
            api_meta.health,
            api_meta.knowledge_bases,
            api_meta.index_page,
            api_openai.chat_completions,
            api_openai.models,
            create_static_files_router(path="/static", directories=[api_meta.WEB_DIR], include_in_schema=False,
                                       cache_control=CacheControlHeader(no_cache=True)),
        ],
        lifespan=[lifespan],
        exception_handlers={Exception: exception_to_response},
        request_max_body_size=JSON_BODY_LIMIT,
        response_headers=[ResponseHeader(name="X-Content-Type-Options", value="nosniff"),
                          ResponseHeader(name="Referrer-Policy", value="no-referrer")],
        openapi_config=OpenAPIConfig(title="officeqa", version="0.1.0",
                                     description="Questions over office documents, with citations."),
        debug=False,
    )


__all__ = ["create_app"]
