"""Health, the knowledge bases a key sees, what one holds (the chat page's first screen), L0 route explanations,
and the web client's page."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from litestar import Request, Response, get, post

from officeqa.errors import FailureKind, GenerationError, NotAuthenticated
from server.access import access_of, authenticate, kb_of, policy_of, require_key, resources_of
from server.errors import RateLimited
from server.public_paths import without_host
from server.schemas import RouteRequest

WEB_DIR = Path(__file__).resolve().parent / "web"

#: The page runs only its own script and style; document text is never markup (see web/markdown.js),
#: and this policy keeps it so even if a bug let markup through.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
PAGE_HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}


@get("/", include_in_schema=False)
async def index_page() -> Response[bytes]:
    """The web client (static files under /static; no build step)."""
    return Response((WEB_DIR / "index.html").read_bytes(), media_type="text/html; charset=utf-8",
                    headers=PAGE_HEADERS)


@get("/favicon.ico", include_in_schema=False)
async def favicon() -> Response[bytes]:
    """The page's icon (an SVG; browsers ask for /favicon.ico whatever the page says)."""
    return Response((WEB_DIR / "favicon.svg").read_bytes(), media_type="image/svg+xml",
                    headers={"Cache-Control": "max-age=86400"})


@get("/api/kbs", guards=[require_key], tags=["meta"], summary="Knowledge bases this key may use")
async def knowledge_bases(request: Request) -> dict[str, Any]:
    access = access_of(request)
    kbs = resources_of(request).knowledge_bases
    return {"local_mode": access.local,
            "knowledge_bases": [{"name": n, "write": access.can_write(n)} for n in kbs.visible(access)]}


@post("/api/route", guards=[require_key], status_code=200, tags=["meta"],
      summary="How the L0 rules route an instruction, with every rule's verdict")
async def explain_route(data: RouteRequest, request: Request) -> dict[str, Any]:
    from retrieval.l0 import route

    settings = resources_of(request).settings
    instruction = policy_of(request).sizes.question(data.instruction, param="instruction")
    decision = route(instruction, file_type=data.file_type, settings=settings, explain=True)
    return decision.to_json(explain=True)


def _model_status(resources: Any) -> dict[str, Any]:
    """Can a model answer? One short probe (the same check a question makes before it asks the model)."""
    generator = resources.generator
    ollama = resources.settings.ollama
    if generator is None:
        return {"configured": False, "reachable": False, "model": None, "model_present": False,
                "answers": "extractive"}
    status: dict[str, Any] = {"configured": True, "model": ollama.model}  # never the host: an internal address
    try:
        generator.check_available()
    except GenerationError as exc:
        return {**status, "reachable": exc.kind is not FailureKind.UNREACHABLE,
                "model_present": exc.kind not in (FailureKind.MODEL_MISSING, FailureKind.UNREACHABLE),
                "error": {"kind": exc.kind.value, "message": without_host(exc.message, ollama.host)},
                "answers": "extractive"}
    return {**status, "reachable": True, "model_present": True, "answers": "model"}


def _store_status(service: Any) -> dict[str, Any]:
    kb = service.kb
    registry = kb.registry
    background, _ = kb.background_coverage()
    return {"documents": registry.counts_by_status(), "chunks": sum(registry.chunk_counts().values()),
            "bm25_chunks": len(kb.bm25), "vector_chunks": kb.vectors.count(), "background_embedding": background}


@get("/api/overview", guards=[require_key], tags=["meta"],
     summary="What the knowledge base holds (documents by kind, example questions) and who answers")
async def overview(request: Request) -> dict[str, Any]:
    """The chat page's first screen: indexed documents by kind, three example questions drawn from their headings
    and tables (each in English and Chinese), and ``answers``: ``model`` or ``extractive`` (quoted passages), with
    the configured model's name so the page can say how to start it."""
    from retrieval.overview import knowledge_base_overview

    resources = resources_of(request)
    kb = kb_of(request)
    held = await resources.pool.call(kb, lambda service: knowledge_base_overview(service.kb))
    model = await asyncio.to_thread(_model_status, resources)
    return {"knowledge_base": kb, **held.to_json(), "answers": model["answers"],
            "model": {"configured": model["configured"], "name": resources.settings.ollama.model,
                      "problem": (model.get("error") or {}).get("kind")}}


@get("/api/health", tags=["meta"], summary="Stores, embedder, Ollama and queue state")
async def health(request: Request) -> dict[str, Any]:
    """Always answers (load balancers call it without a key); knowledge-base details only for a key that
    may read them (every one in local mode). ``queue``: live jobs of the job queue over every knowledge base
    (``depth``: all; ``queued``/``running``/``retry``: documents to index or remove; ``summaries``: trees;
    ``background_embeds``: documents waiting for the background model). Each knowledge base also shows
    ``background_embedding``: that model and the chunks it covers (indexing/strong.py)."""
    resources = resources_of(request)
    try:
        access = authenticate(request, resources.keys)
        visible = resources.knowledge_bases.visible(access)
    except (NotAuthenticated, RateLimited):  # health answers whoever asks; only the details need a key
        visible = []
    model = await asyncio.to_thread(_model_status, resources)
    depth = await asyncio.to_thread(resources.ingest.depth)
    stores = {}
    for name in visible:
        stores[name] = {**await resources.pool.call(name, _store_status), "queue": depth[name]}
    totals = {key: sum(d[key] for d in depth.values())
              for key in ("depth", "queued", "running", "retry", "summaries", "background_embeds")}
    embedder = resources.embedder
    return {
        "status": "ok",
        "answers": model["answers"],
        "knowledge_bases": stores,
        "embedder": {"backend": resources.settings.embedding.backend, "name": embedder.name, "dim": embedder.dim},
        "ollama": model,
        "queue": {**totals, "answer_threads": resources.pool.size, "answer_threads_busy": resources.pool.busy},
    }


__all__ = ["CSP", "WEB_DIR", "explain_route", "favicon", "health", "index_page", "knowledge_bases", "overview"]
