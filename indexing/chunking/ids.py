"""Stable identifiers: a document content hash plus the chunk's position.

Re-chunking the same content with the same settings gives the same ids, so the indexer
can upsert instead of duplicating; a changed document gets a new hash and new ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from officeqa.domain import Block


def document_hash(blocks: Iterable[Block]) -> str:
    """A 16-hex-digit SHA-256 of the blocks' types and texts (order matters)."""
    digest = hashlib.sha256()
    for block in blocks:
        digest.update(block.type.value.encode())
        digest.update(b"\x1f")
        digest.update(block.text.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return digest.hexdigest()[:16]


def chunk_id(doc_id: str, position: int) -> str:
    """The id of the chunk at ``position`` (0-based, document order) of document ``doc_id``."""
    return f"{doc_id}-{position:05d}"


__all__ = ["chunk_id", "document_hash"]
