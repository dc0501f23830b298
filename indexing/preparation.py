"""One file's preparation for the stores: which files are indexed, when an unchanged file may be skipped,
and a parsed document chunked into a :class:`indexing.stores.PreparedDocument`.

Why a module of its own: the enqueueing side (:mod:`indexing.ingest`), the worker pool
(:mod:`indexing.workers`), ``repair`` (:mod:`indexing.repair`) and the eval's corpus writer all
need these few pure steps, and none of them should have to import another of them to get them
(that was an import cycle: ingest -> workers -> ingest).
"""

from __future__ import annotations

from indexing.chunking import chunk_document
from indexing.contracts import DocumentRegistry
from indexing.parsing import SUPPORTED_SUFFIXES
from indexing.registry import DUPLICATE, INDEXED, DocumentRecord
from indexing.reports import attach_report_facts
from indexing.stores import PreparedDocument, Stores
from officeqa.domain import ParsedDocument
from officeqa.settings import ChunkingSettings

#: failure kinds that a new ``index`` run tries again even when the file is unchanged
TRANSIENT_KINDS = frozenset({"timeout", "crashed", "interrupted", "io"})


def supported_suffixes() -> frozenset[str]:
    """The file suffixes a parser exists for (what a folder walk picks up)."""
    return SUPPORTED_SUFFIXES


def prepare(chunking: ChunkingSettings, document: ParsedDocument, record: DocumentRecord) -> PreparedDocument:
    """Chunk a parsed document into a :class:`PreparedDocument` (vectors come later, in batches); a report's
    tables also become typed facts (``chunking.report_facts``), stored with the parsed document."""
    if chunking.report_facts:
        attach_report_facts(document)
    result = chunk_document(document, chunking, doc_id=record.doc_id)
    # Whole-table units of oversize tables are for the table handlers, not retrieval: their
    # rows are also emitted as ordinary table chunks, which are what gets indexed.
    chunks = [c for c in result.chunks if c.text.strip() and c.meta.get("retrievable", True)]
    return PreparedDocument(record=record, chunks=chunks, parsed=document)


def prepare_parsed(
    kb: Stores, document: ParsedDocument, record: DocumentRecord, replaces: str | None = None
) -> PreparedDocument:
    """:func:`prepare` with the knowledge base's chunking settings (the eval writes corpora this way)."""
    prepared = prepare(kb.settings.chunking, document, record)
    prepared.replaces = replaces
    return prepared


def still_valid(registry: DocumentRegistry, previous: DocumentRecord) -> bool:
    """May an unchanged file be skipped? Not while it waits for indexing, its duplicate owner left,
    or its failure was transient (a timeout or a crashed worker deserves another try)."""
    if previous.status == INDEXED:
        return True
    if previous.status == "failed":
        return (previous.error_kind or "") not in TRANSIENT_KINDS
    if previous.status == DUPLICATE:
        return registry.is_indexed(previous.doc_id)
    return False


__all__ = ["TRANSIENT_KINDS", "prepare", "prepare_parsed", "still_valid", "supported_suffixes"]
