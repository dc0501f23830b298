"""The stored form of each parsed document, written at index time beside the registry rows.

Why: questions never parse source files (slow, OCR, and unguarded on the query path).
Handlers, scope resolution and the summary tree read the blocks with their locators
from here. Rows live in the registry's SQLite database, keyed by content hash, so a
document's parsed form commits in the same transaction as its registry row: it is there
exactly when the document is indexed.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable

from indexing.contracts import DocumentRegistry
from indexing.profile import DocumentProfile, build_profile
from indexing.reports import META_KEY as REPORT_KEY
from indexing.reports import attach_report_facts
from officeqa.domain import ParsedDocument

_CACHE_DOCUMENTS = 16
#: Parsed documents decoded in this process, shared by every handle and thread: (doc id, stored bytes' CRC and
#: length) -> document. Why process-wide: each answer thread of the server holds its own handle, and decoding a
#: report's stored form (zlib + JSON + blocks) costs tens of milliseconds; eight threads decoded every report
#: eight times after each start or write. Keyed by the stored bytes as well, so a form stored again (a re-index
#: under other settings, here or in another process) is decoded afresh.
_SHARED_DOCUMENTS = 32
_shared: OrderedDict[tuple[str, int, int], ParsedDocument] = OrderedDict()
_shared_lock = threading.Lock()
#: stored forms decoded in this process (tests count them)
decoded = 0


class DocumentStore:
    """Parsed documents and their profiles, by doc id (content hash)."""

    def __init__(self, registry: DocumentRegistry) -> None:
        self.registry = registry
        self._cache: OrderedDict[str, ParsedDocument] = OrderedDict()

    def put(self, doc_id: str, document: ParsedDocument) -> DocumentProfile:
        """Store ``document`` (call inside the registry transaction that indexes it)."""
        profile = build_profile(doc_id, document)
        # surrogatepass / ASCII profile: a file name with undecodable bytes (kept surrogate-escaped) must not fail
        data = zlib.compress(json.dumps(document.to_dict(), ensure_ascii=False).encode("utf-8", "surrogatepass"), 6)
        self.registry.put_parsed(doc_id, data, json.dumps(profile.to_dict()))
        self._cache.pop(doc_id, None)
        forget_shared(doc_id)
        return profile

    def get(self, doc_id: str) -> ParsedDocument | None:
        """The parsed document, or None when it was indexed before documents were stored (reindex)."""
        cached = self._cache.get(doc_id)
        if cached is not None:
            self._cache.move_to_end(doc_id)
            return cached
        data = self.registry.get_parsed(doc_id)
        if data is None:
            return None
        document = _decoded(doc_id, data)
        self._cache[doc_id] = document
        while len(self._cache) > _CACHE_DOCUMENTS:
            self._cache.popitem(last=False)
        return document

    def delete(self, doc_id: str) -> None:
        self.registry.delete_parsed(doc_id)
        self._cache.pop(doc_id, None)
        forget_shared(doc_id)

    def profiles(self, doc_ids: Iterable[str] | None = None) -> dict[str, DocumentProfile]:
        rows = self.registry.profiles(doc_ids)
        return {doc_id: DocumentProfile.from_dict(json.loads(raw)) for doc_id, raw in rows.items()}

    def refresh_profiles(self, doc_ids: Iterable[str] | None = None, report_facts: bool = False) -> int:
        """Compute the profiles (and with ``report_facts`` the report facts) again from the stored documents;
        returns how many were rewritten.

        Why: a knowledge base indexed before profiles carried a subject (company, year) or a content
        signature, or before report facts existed or were read as they are now, gets them without parsing
        any file again. A maintenance step (benchmarks, upgrades), never run on the question path.
        """
        count = 0
        for doc_id in list(self.registry.profiles(doc_ids)):
            data = self.registry.get_parsed(doc_id)
            if data is None:
                continue
            document = ParsedDocument.from_dict(json.loads(zlib.decompress(data).decode("utf-8", "surrogatepass")))
            if report_facts:
                document.meta.pop(REPORT_KEY, None)
                attach_report_facts(document)
                text = json.dumps(document.to_dict(), ensure_ascii=False)
                data = zlib.compress(text.encode("utf-8", "surrogatepass"), 6)
                self._cache.pop(doc_id, None)
                forget_shared(doc_id)
            profile = build_profile(doc_id, document)
            with self.registry.transaction():
                self.registry.put_parsed(doc_id, data, json.dumps(profile.to_dict()))
            count += 1
        return count


def forget_shared(doc_id: str) -> None:
    """Drop every decoded form of ``doc_id`` from the process-wide cache: on a write, since a caller may have
    changed the shared object it was given before storing it (its new bytes can equal an older form's)."""
    with _shared_lock:
        for key in [k for k in _shared if k[0] == doc_id]:
            del _shared[key]


def _decoded(doc_id: str, data: bytes) -> ParsedDocument:
    """The document stored as ``data``, decoded once per process (see ``_shared``); decoding holds the lock (it
    holds the interpreter anyway), so threads asking for one document together decode it once."""
    global decoded
    key = (doc_id, zlib.crc32(data), len(data))
    with _shared_lock:
        document = _shared.get(key)
        if document is not None:
            _shared.move_to_end(key)
            return document
        document = ParsedDocument.from_dict(json.loads(zlib.decompress(data).decode("utf-8", "surrogatepass")))
        decoded += 1
        _shared[key] = document
        while len(_shared) > _SHARED_DOCUMENTS:
            _shared.popitem(last=False)
        return document


__all__ = ["DocumentStore"]
