"""What the documents API shows, composed from the registry, the stores and the job queue.

These functions run on an answer thread with that thread's knowledge-base handle (whose job
queue is the same SQLite file the workers write, so states survive a restart); they return
plain JSON-ready data and never parse source files (the chunk preview re-chunks the STORED
parsed document to report the chunking quality metrics, cached per document).

A document's ``state`` (what the web client shows) comes from the registry row, or from the
path's live job while one runs: ``queued`` (PENDING, or RETRY after a transient failure: its
error is shown), ``indexing`` (RUNNING), ``removing``; then ``indexed``, ``failed`` or
``duplicate``. ``job`` is the path's latest index or remove job as the queue holds it
(state PENDING/RUNNING/DONE/FAILED/RETRY, attempts, error kind and message); ``summary`` the
latest summarise job (the document's summary tree, built in the background).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from indexing.chunking.metrics import SENTENCE_FINAL, compute_metrics
from indexing.jobs import FAILED, KIND_INDEX, KIND_REMOVE, KIND_SUMMARISE, RETRY, RUNNING, Job
from indexing.registry import REMOVED, DocumentRecord
from officeqa.errors import DocumentNotFound

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.settings import ChunkingSettings

#: registry status -> the state the API shows (a live job shows queued/indexing/removing instead)
_STATES = {"indexed": "indexed", "failed": "failed", "duplicate": "duplicate", "pending": "queued"}
_METRICS_CACHE = 64


def _iso(seconds: float | None) -> str | None:
    return datetime.fromtimestamp(seconds, UTC).replace(microsecond=0).isoformat() if seconds else None


def job_json(job: Job | None) -> dict[str, Any] | None:
    """A job as the API shows it: the queue's state, attempts, outcome and error (kind and message)."""
    if job is None:
        return None
    out: dict[str, Any] = {"id": job.id, "kind": job.kind, "state": job.state, "attempts": job.attempts,
                           "outcome": job.outcome, "error": None, "updated_at": _iso(job.updated_at)}
    if job.error_kind:
        out["error"] = {"kind": job.error_kind, "message": job.error_message}
    elif job.error_message:
        out["note"] = job.error_message  # e.g. a summary's "24 nodes, 0 model calls", a cancelled job's reason
    if job.state == RETRY:
        out["retry_at"] = _iso(job.next_attempt_at)
    return out


def job_state(job: Job) -> str:
    """The document state a live job stands for."""
    if job.kind == KIND_REMOVE:
        return "removing"
    return "indexing" if job.state == RUNNING else "queued"


def _entry(record: DocumentRecord | None, job: Job | None, summary: Job | None) -> dict[str, Any] | None:
    """One document as the API shows it: a live job wins (queued/indexing/removing), then the registry row; a
    path with no row is shown only while its job is live (an upload waiting for its worker)."""
    live = job is not None and job.live
    out: dict[str, Any]
    if record is not None:
        out = {"doc_id": record.doc_id, "path": record.path, "file_type": record.file_type, "size": record.size,
               "state": _STATES.get(record.status, record.status), "chunks": record.chunk_count,
               "indexed_at": record.indexed_at, "error": None}
        if record.status == "failed" or (record.error_kind and not live):
            # failed, or indexed while its changed file cannot be read (the previous version stays)
            out["error"] = {"kind": record.error_kind, "message": record.error_message}
        if record.status == "duplicate":
            out["note"] = record.error_message
    elif live and job is not None and job.kind == KIND_INDEX:
        out = {"doc_id": job.doc_hash or "", "path": job.path,
               "file_type": PurePath(job.path).suffix.lstrip(".").lower(), "size": None, "state": "queued",
               "chunks": 0, "indexed_at": None, "error": None}
    else:
        return None
    if live and job is not None:
        out["state"] = job_state(job)
        if job.kind == KIND_INDEX:
            out["doc_id"] = job.doc_hash or out["doc_id"]
        out["error"] = {"kind": job.error_kind, "message": job.error_message} if job.state == RETRY else None
    elif job is not None and job.state == FAILED and out["error"] is None:
        out["error"] = {"kind": job.error_kind, "message": job.error_message}
    if out["state"] != "indexed":
        out["chunks"] = 0
    out["name"] = PurePath(out["path"]).name
    out["job"] = job_json(job)
    out["summary"] = job_json(summary)
    return out


def list_documents(kb: KnowledgeBase) -> list[dict[str, Any]]:
    """Every document that is not removed, with its state; files still waiting for their job come too."""
    latest = {j.path: j for j in kb.jobs.latest(kinds=(KIND_INDEX, KIND_REMOVE))}
    summaries = {j.path: j for j in kb.jobs.latest(kinds=(KIND_SUMMARISE,))}
    records = {r.path: r for r in kb.registry.documents() if r.status != REMOVED}
    entries = [_entry(records.get(path), latest.get(path), summaries.get(path))
               for path in sorted(set(records) | set(latest))]
    background, covered = kb.background_coverage()
    out = [e for e in entries if e is not None]
    if background.get("model"):  # the background model's coverage (indexing/strong.py), per indexed document
        for entry in out:
            entry["background_chunks"] = covered.get(entry["doc_id"], 0) if entry["state"] == "indexed" else 0
    return out


def live_paths(kb: KnowledgeBase, doc_id: str) -> list[str]:
    """The paths that hold document ``doc_id`` (one, or more when the same bytes were uploaded twice)."""
    return [r.path for r in kb.registry.by_doc_id(doc_id) if r.status != REMOVED]


def resolve_document(kb: KnowledgeBase, ref: str) -> str:
    """The doc id of a document of this knowledge base named by its id (or 8+ leading characters)."""
    ids = kb.registry.find_doc_ids(ref) if len(ref) >= 8 else []
    live = [d for d in ids if any(r.status != REMOVED for r in kb.registry.by_doc_id(d))]
    if len(live) == 1:
        return live[0]
    if len(live) > 1:
        raise DocumentNotFound(f"{ref!r} matches {len(live)} documents; give more characters")
    raise DocumentNotFound(f"no document {ref!r} in this knowledge base")


class MetricsCache:
    """Chunking quality metrics per (knowledge base, doc id): re-chunking a long document takes seconds."""

    def __init__(self, size: int = _METRICS_CACHE) -> None:
        self._items: OrderedDict[tuple[str, str], dict[str, Any] | None] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str], compute: Any) -> dict[str, Any] | None:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


def document_metrics(kb: KnowledgeBase, doc_id: str, chunking: ChunkingSettings) -> dict[str, Any] | None:
    """The chunking quality metrics of a stored document (None when it was stored before documents were kept),
    with ``sentence_break_ids``: the chunks the sentence-break rate counts, judged by the metric's own rule
    (:func:`indexing.chunking.metrics.compute_metrics` over each chunk alone), so the preview's per-chunk badge
    and the document's rate always agree."""
    from indexing.chunking import chunk_document
    from indexing.chunking.items import select_items

    parsed = kb.documents.get(doc_id)
    if parsed is None:
        return None
    result = chunk_document(parsed, chunking, doc_id=doc_id)
    items, _text = select_items(parsed.blocks)
    ends = {item.end for item in items}
    target = max(1, chunking.target_tokens)
    breaks = [c.id for c in result.chunks if compute_metrics([c], target, ends, {}).sentence_breaks]
    return {**asdict(result.metrics), "sentence_break_ids": breaks}


def chunk_preview(
    kb: KnowledgeBase,
    doc_id: str,
    *,
    offset: int,
    limit: int,
    chunk_id: str | None,
    target_tokens: int,
    sentence_breaks: set[str] | None = None,
) -> dict[str, Any]:
    """A page of the document's indexed chunks (or the one ``chunk_id``), as the stores hold them.

    ``sentence_breaks``: the chunk ids the document's metric counts as cut mid-sentence
    (:func:`document_metrics`); each chunk's ``quality.sentence_break`` says whether it is one."""
    ids = kb.registry.chunk_ids(doc_id)
    if chunk_id is not None:
        if chunk_id not in ids:
            raise DocumentNotFound(f"no chunk {chunk_id!r} in document {doc_id[:12]}")
        offset, page_ids = ids.index(chunk_id), [chunk_id]
    else:
        page_ids = ids[offset: offset + limit]
    stored = kb.fetch(page_ids)
    records = kb.registry.by_doc_id(doc_id)
    path = next((r.path for r in records if r.status != REMOVED), records[0].path if records else "")
    chunks = []
    for position, cid in enumerate(page_ids, start=offset):
        text, meta = stored.get(cid, ("", {}))
        tokens = int(meta.get("tokens", 0) or 0)
        stripped = text.strip()
        chunk = {
            "id": cid,
            "position": position,
            "text": text,
            "heading_path": [p for p in str(meta.get("heading_path", "")).split(" > ") if p],
            "tokens": tokens,
            "kind": meta.get("kind"),
            "quality": {
                "oversize": tokens > target_tokens,
                "ends_at_sentence": bool(stripped) and stripped[-1] in SENTENCE_FINAL,
                "sentence_break": cid in sentence_breaks if sentence_breaks is not None else None,
                "empty": not stripped,
            },
        }
        for key in ("page", "page_end", "sheet", "slide"):
            if key in meta:
                chunk[key] = meta[key]
        chunks.append(chunk)
    return {"doc_id": doc_id, "name": PurePath(path).name, "path": path, "total": len(ids), "offset": offset,
            "limit": limit, "chunks": chunks}


__all__ = ["MetricsCache", "chunk_preview", "document_metrics", "job_json", "job_state", "list_documents",
           "live_paths", "resolve_document"]
