"""The documents of a knowledge base: upload, list with states, delete, chunk preview.

Each handler picks the knowledge base (header ``X-Knowledge-Base`` or ``?kb=``), checks the
key's right in a guard (before the body is read), and calls one function of
:mod:`server.uploads`, :mod:`server.documents` or the job queue (:mod:`server.ingest`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Annotated, Any

from litestar import Request, Response, delete, get, post
from litestar.datastructures import UploadFile
from litestar.enums import RequestEncodingType
from litestar.params import Body, Parameter

from indexing.parsing import SUPPORTED_SUFFIXES
from server.access import kb_of, require_key, require_write, resources_of
from server.documents import (
    MetricsCache,
    chunk_preview,
    document_metrics,
    job_json,
    job_state,
    list_documents,
    live_paths,
    resolve_document,
)
from server.uploads import MIB, UploadLimits, store_uploads

_metrics = MetricsCache()


def upload_body_limit(max_upload_mb: float, max_files: int) -> int:
    """The request-body limit of the upload route: every file at its limit, plus the multipart framing."""
    return int((max_upload_mb * max_files + 1) * MIB)


@dataclass
class UploadForm:
    """``multipart/form-data`` with one or more file fields named ``files``."""

    files: list[UploadFile] = field(default_factory=list)


@post("/api/documents", guards=[require_write], status_code=202, tags=["documents"],
      summary="Upload files (multipart field 'files', repeatable); they are stored and queued for indexing")
async def upload(
    data: Annotated[UploadForm, Body(media_type=RequestEncodingType.MULTI_PART)], request: Request
) -> dict[str, Any]:
    """Store each file of the multipart field ``files`` in the knowledge base's uploads folder and queue it.

    The answer lists, per file, its document id (the sha256 of its bytes), its state (``queued``) and
    its job in the queue (``PENDING``; poll ``GET /api/documents`` until the document is ``indexed``).
    A request with any refused file (bad name, empty, too large, unsupported type, zip bomb) stores
    nothing and answers 4xx with every refused file named. The guard checks the key before the body
    is read.
    """
    resources = resources_of(request)
    kb = kb_of(request, write=True)
    limits = UploadLimits.from_settings(resources.settings.server)
    stored = await asyncio.to_thread(
        store_uploads, [(f.filename, f.file) for f in data.files], resources.knowledge_bases.uploads(kb), limits,
        SUPPORTED_SUFFIXES,
    )
    jobs = await asyncio.to_thread(resources.ingest.enqueue, kb, stored)
    return {"knowledge_base": kb, "documents": [
        {"file": s.name, "doc_id": s.sha256, "size": s.size, "state": job_state(job), "job": job_json(job)}
        for s, job in zip(stored, jobs, strict=True)]}


@get("/api/documents", guards=[require_key], tags=["documents"], summary="Documents with their states")
async def documents(request: Request) -> dict[str, Any]:
    """Every document of the knowledge base with its state (queued, indexing, removing, indexed, failed,
    duplicate), chunk count, error kind and message, its latest job (state, attempts, error) and its
    summary tree's job; ``queue`` counts the knowledge base's live jobs."""
    resources = resources_of(request)
    kb = kb_of(request)
    items = await resources.pool.call(kb, lambda service: list_documents(service.kb))
    depth = await asyncio.to_thread(resources.ingest.depth, [kb])
    view = await resources.path_view(kb)
    return {"knowledge_base": kb, "documents": [view.document(item) for item in items], "queue": depth[kb]}


@delete("/api/documents/{doc_id:str}", guards=[require_write], status_code=200, tags=["documents"],
        summary="Delete a document from every store (its uploaded copy and summary tree too), through the queue")
async def delete_document(request: Request, doc_id: str) -> Response[dict[str, Any]]:
    """Queue the removal of the document's paths and wait for it: 200 ``removed`` once the workers ran it,
    202 ``removing`` (with the jobs) when it is still queued after ``server.ingest.REMOVE_WAIT_S``."""
    resources = resources_of(request)
    kb = kb_of(request, write=True)

    def find(service: Any) -> tuple[str, list[str]]:
        found = resolve_document(service.kb, doc_id)
        return found, live_paths(service.kb, found)

    found, paths = await resources.pool.call(kb, find)
    view = await resources.path_view(kb)
    finished, jobs = await resources.ingest.remove(kb, paths, resources.knowledge_bases.uploads(kb))
    body = {"knowledge_base": kb, "doc_id": found, "state": "removed" if finished else "removing",
            "removed": [view.show(p) for p in paths], "jobs": [job_json(j) for j in jobs]}
    return Response(content=body, status_code=200 if finished else 202)


@get("/api/documents/{doc_id:str}/chunks", guards=[require_key], tags=["documents"],
     summary="Chunk preview: text, heading path, tokens and quality of each chunk, and the document's metrics")
async def chunks(
    request: Request,
    doc_id: str,
    offset: Annotated[int, Parameter(ge=0, default=0)] = 0,
    limit: Annotated[int, Parameter(ge=1, le=500, default=50)] = 50,
    chunk_id: Annotated[str | None, Parameter(description="Only this chunk (a citation's chunk_id).")] = None,
    metrics: Annotated[bool, Parameter(description="Include the chunking quality metrics.")] = True,
) -> Response[dict[str, Any]]:
    resources = resources_of(request)
    kb = kb_of(request)
    chunking = resources.knowledge_bases.settings_for(kb).chunking

    def preview(service: Any) -> dict[str, Any]:
        found = resolve_document(service.kb, doc_id)
        quality = _metrics.get((kb, found), lambda: document_metrics(service.kb, found, chunking)) \
            if metrics or chunk_id is None else None
        breaks = set(quality["sentence_break_ids"]) if quality else None
        page = chunk_preview(service.kb, found, offset=offset, limit=limit, chunk_id=chunk_id,
                             target_tokens=chunking.target_tokens, sentence_breaks=breaks)
        if metrics:
            page["metrics"] = {k: v for k, v in quality.items() if k != "sentence_break_ids"} if quality else None
        return page

    page = await resources.pool.call(kb, preview)
    page["path"] = (await resources.path_view(kb)).show(page.get("path", ""))
    return Response(content={"knowledge_base": kb, **page})


__all__ = ["chunks", "delete_document", "documents", "upload", "upload_body_limit"]
