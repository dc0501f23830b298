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
    GET    /api/overview                  what a knowledge base holds, example questions, who answers
    POST   /v1/chat/completions           OpenAI-compatible chat (streaming and not)
    POST   /v1/completions                OpenAI-compatible completion: the prompt is the question
    GET    /v1/models                     one model per knowledge base
    GET    /                              the web client (static files under /static, /favicon.ico)

Around every route: the browser guard (Host allow-list, Origin check, JSON content type;
:mod:`server.browser_guard`) and the access log (:mod:`server.access_log`); sizes and rates
per :mod:`server.limits`, whose policy lives in ``app.state.policy``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from litestar import Litestar, Router
from litestar.datastructures import CacheControlHeader, ResponseHeader, State
from litestar.openapi import OpenAPIConfig
from litestar.static_files import create_static_files_router

from officeqa.settings import Settings
from server import api_chat, api_documents, api_meta, api_openai
from server.access_log import access_log
from server.browser_guard import BrowserPolicy, browser_guard
from server.errors import exception_to_response
from server.keys import KeyStore, keys_path
from server.limits import RequestPolicy
from server.resources import ServerResources
from server.schema_page import OfflineSchemaPage

if TYPE_CHECKING:
    from officeqa.embeddings import Embedder
    from officeqa.generation import OllamaGenerator

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
    keys = KeyStore(keys_path(settings))
    browser = BrowserPolicy.create(settings.server.allowed_hosts, settings.server.allowed_origins,
                                   local_mode=lambda: not keys.has_active_keys())
    policy = RequestPolicy.from_settings(settings.server)
    middleware = [access_log(settings.server.access_log_questions)] if settings.server.access_log else []
    middleware.append(browser_guard(browser))
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
            api_meta.overview,
            api_meta.index_page,
            api_meta.favicon,
            api_openai.chat_completions,
            api_openai.completions,
            api_openai.models,
            create_static_files_router(path="/static", directories=[api_meta.WEB_DIR], include_in_schema=False,
                                       cache_control=CacheControlHeader(no_cache=True)),
        ],
        lifespan=[lifespan],
        exception_handlers={Exception: exception_to_response},
        request_max_body_size=policy.sizes.body_bytes,
        state=State({"policy": policy}),
        middleware=middleware,
        response_headers=[ResponseHeader(name="X-Content-Type-Options", value="nosniff"),
                          ResponseHeader(name="Referrer-Policy", value="no-referrer")],
        openapi_config=OpenAPIConfig(title="officeqa", version="0.1.0",
                                     description="Questions over office documents, with citations.",
                                     render_plugins=[OfflineSchemaPage()]),
        debug=False,
    )


__all__ = ["create_app"]
