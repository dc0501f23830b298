"""A document's chunks as the summary tree reads them, from what indexing stored.

Why re-chunk the stored parsed document instead of reading chunks back from Chroma:
chunking is a pure function of the parsed document and the chunking settings, so this
gives the indexed chunks (same ids, heading paths as lists, pages) without opening the
vector store; a mismatch with the registry's chunk ids (chunking settings changed since
indexing) is reported, because citations would then name chunks that are not indexed.
The overlap a chunk repeats from its predecessor is dropped: the model would otherwise
read it twice, and an edit at the end of one section would change the next section's
first leaf.
"""

from __future__ import annotations

import logging
from pathlib import PurePath
from typing import Protocol

from indexing.chunking import chunk_document
from indexing.contracts import DocumentRegistry
from indexing.document_store import DocumentStore
from indexing.summary.builder import DocumentSource
from indexing.summary.tree import SourceChunk
from officeqa.domain import Chunk
from officeqa.errors import DocumentNotFound
from officeqa.scripts import detect_language
from officeqa.settings import Settings

log = logging.getLogger(__name__)


def source_chunks(chunks: list[Chunk]) -> list[SourceChunk]:
    """Retrievable, non-empty chunks without their leading overlap (what the index holds, once)."""
    out: list[SourceChunk] = []
    for chunk in chunks:
        if not chunk.text.strip() or not chunk.meta.get("retrievable", True):
            continue
        text = chunk.text[chunk.overlap_chars :].strip() or chunk.text.strip()
        out.append(SourceChunk(id=chunk.id, text=text, heading_path=list(chunk.heading_path), tokens=chunk.tokens,
                               page=chunk.page, page_end=chunk.page_end, slide=chunk.slide))
    return out


class SourceStores(Protocol):
    """The stores :func:`document_source` reads: a knowledge base has them, and so has the summary thread's
    own handle set (its registry connection belongs to its thread)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def registry(self) -> DocumentRegistry: ...
    @property
    def documents(self) -> DocumentStore: ...


def document_source(kb: SourceStores, doc_id: str, path: str | None = None) -> DocumentSource:
    """The summary tree's input for indexed document ``doc_id``; raises DocumentNotFound with the reason."""
    parsed = kb.documents.get(doc_id)
    label = path or doc_id
    if parsed is None:
        raise DocumentNotFound(
            f"{label}: its parsed form is not stored (indexed by an older version); run `officeqa reindex` first"
        )
    profile = kb.documents.profiles([doc_id]).get(doc_id)
    chunks = source_chunks(chunk_document(parsed, kb.settings.chunking, doc_id=doc_id).chunks)
    if not chunks:
        raise DocumentNotFound(f"{label}: the document has no text to summarise")
    registered = kb.registry.chunk_ids(doc_id)
    if registered and set(registered) != {c.id for c in chunks}:
        log.warning("%s: chunking settings changed since indexing; re-index it so citations name indexed chunks",
                    label)
    title = (profile.title if profile else None) or parsed.title or PurePath(path or parsed.path).stem
    language = profile.language if profile else detect_language(" ".join(c.text for c in chunks[:20])[:4000])
    return DocumentSource(doc_id=doc_id, path=path or parsed.path, title=title, language=language, chunks=chunks)


__all__ = ["SourceStores", "document_source", "source_chunks"]
