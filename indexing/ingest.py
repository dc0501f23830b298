"""The index job: files and folders in, every store updated, one report out.

Why it is shaped like this:

* Unchanged files are recognised by the sha256 of their bytes against the registry
  before anything else happens, so re-indexing an unchanged knowledge base hashes files
  and nothing more (no parser, no Chroma, no embedding model is loaded).
* Parsed documents queue up until enough chunks wait for one embedding batch, because
  embedders are much faster on full batches than on one small file at a time.
* A file that cannot be read is recorded as ``failed`` with its refusal kind and the job
  goes on; documents already indexed are not touched by someone else's failure.
* For folders, registered files under them that no longer exist are removed from every
  store, so deleting a file and re-running ``index`` leaves no stale vectors.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.parsing.guard import GuardedParser
from indexing.registry import DUPLICATE, FAILED, INDEXED, REMOVED, DocumentRecord, now_iso
from officeqa.domain import ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase, PreparedDocument

_HASH_BLOCK = 1 << 20
_FLUSH_FACTOR = 4  # flush when this many embedding batches of chunks wait


@dataclass(slots=True)
class FileFailure:
    path: str
    kind: str
    message: str


@dataclass(slots=True)
class IndexReport:
    """What one index run did."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[FileFailure] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    chunks_added: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "skipped": len(self.skipped),
            "duplicates": len(self.duplicates),
            "removed": self.removed,
            "failed": [{"path": f.path, "kind": f.kind, "message": f.message} for f in self.failed],
            "not_found": self.not_found,
            "chunks_added": self.chunks_added,
            "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        return (
            f"added {len(self.added)}, updated {len(self.updated)}, unchanged {len(self.skipped)}, "
            f"duplicates {len(self.duplicates)}, removed {len(self.removed)}, failed {len(self.failed)}, "
            f"chunks added {self.chunks_added}, {self.seconds:.1f}s"
        )


def supported_suffixes() -> frozenset[str]:
    from indexing.parsing import SUPPORTED_SUFFIXES

    return SUPPORTED_SUFFIXES


def _is_junk(name: str) -> bool:
    """Office lock files (~$x.docx) and hidden files are never documents."""
    return name.startswith(("~$", "."))


def discover(paths: Sequence[str | Path]) -> tuple[list[Path], list[Path], list[str]]:
    """(files to index, folders walked, arguments that do not exist), files sorted and unique.

    A file named explicitly is kept whatever its suffix (an unsupported one is then
    reported as failed); files found in folders are filtered by supported suffix.
    """
    suffixes = supported_suffixes()
    files: dict[str, Path] = {}
    folders: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw).expanduser().resolve()
        if path.is_file():
            files.setdefault(str(path), path)
        elif path.is_dir():
            folders.append(path)
            for root, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in filenames:
                    if _is_junk(name) or Path(name).suffix.lower() not in suffixes:
                        continue
                    found = Path(root) / name
                    files.setdefault(str(found), found)
        else:
            missing.append(str(raw))
    return [files[k] for k in sorted(files)], folders, missing


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _file_type(path: Path) -> str:
    return path.suffix.lower().lstrip(".")


def prepare_parsed(
    kb: KnowledgeBase, document: ParsedDocument, record: DocumentRecord, replaces: str | None = None
) -> PreparedDocument:
    """Chunk a parsed document into a :class:`PreparedDocument` (vectors come later, in batches)."""
    from indexing.chunking import chunk_document
    from indexing.knowledge_base import PreparedDocument

    result = chunk_document(document, kb.settings.chunking, doc_id=record.doc_id)
    # Whole-table units of oversize tables are for the table handlers, not retrieval: their
    # rows are also emitted as ordinary table chunks, which are what gets indexed.
    chunks = [c for c in result.chunks if c.text.strip() and c.meta.get("retrievable", True)]
    return PreparedDocument(record=record, chunks=chunks, replaces=replaces, parsed=document)


class _Batch:
    """Documents waiting for one embedding + write round."""

    def __init__(self, kb: KnowledgeBase, report: IndexReport) -> None:
        self.kb = kb
        self.report = report
        self.docs: list[PreparedDocument] = []
        self.duplicates: list[tuple[DocumentRecord, str | None]] = []
        self.doc_ids: dict[str, str] = {}  # doc id -> path, within this batch
        self.chunks = 0

    def add(self, doc: PreparedDocument) -> None:
        self.docs.append(doc)
        self.doc_ids[doc.record.doc_id] = doc.record.path
        self.chunks += len(doc.chunks)

    def flush(self) -> None:
        if self.docs:
            self.kb.write(self.docs)
            self.report.chunks_added += self.chunks
        for record, replaces in self.duplicates:
            self.kb.record_only(record, replaces)
        self.docs, self.duplicates, self.doc_ids, self.chunks = [], [], {}, 0


def index_paths(
    kb: KnowledgeBase, paths: Sequence[str | Path], progress: bool = False, force: bool = False
) -> IndexReport:
    """Index files and folders into ``kb``; ``force`` re-indexes unchanged files too."""
    from tqdm import tqdm

    started = time.perf_counter()
    report = IndexReport()
    files, folders, report.not_found = discover(paths)
    batch = _Batch(kb, report)
    flush_at = max(1, kb.settings.embedding.batch_size * _FLUSH_FACTOR)
    bar = tqdm(total=len(files), unit="file", file=sys.stderr, disable=not progress, dynamic_ncols=True)
    # Parsing runs in a supervised worker process (started on the first file that needs it),
    # so a parser that hangs or crashes on one file costs that file, not the batch.
    parser = GuardedParser(kb.settings.parsing)
    try:
        queue = list(files)
        while queue:
            path = queue.pop(0)
            _index_one(kb, path, batch, report, force, parser)
            bar.update(1)
            bar.set_postfix(chunks=report.chunks_added + batch.chunks, failed=len(report.failed), refresh=False)
            if batch.chunks >= flush_at:
                batch.flush()
        batch.flush()
        report.removed.extend(_remove_vanished(kb, folders))
        # Files whose duplicate owner was just replaced or removed: index them in this run.
        seen = {str(p) for p in files}
        for record in kb.registry.documents(statuses=["pending"]):
            if record.path in seen and Path(record.path).is_file():
                _index_one(kb, Path(record.path), batch, report, True, parser)
        batch.flush()
    finally:
        parser.close()
        bar.close()
        kb.save()
    report.seconds = time.perf_counter() - started
    return report


def _index_one(
    kb: KnowledgeBase, path: Path, batch: _Batch, report: IndexReport, force: bool, parser: GuardedParser
) -> None:
    key = str(path)
    previous = kb.registry.get(key)
    try:
        stat = path.stat()
        digest = file_sha256(path)
    except OSError as exc:
        _fail(kb, key, previous, "", 0, 0.0, RefusalKind.CORRUPT.value, f"cannot read the file: {exc}", report)
        return
    replaces = previous.doc_id if previous is not None and previous.status in (INDEXED, DUPLICATE) else None
    if previous is not None and previous.doc_id == digest and not force and _still_valid(kb, previous):
        report.skipped.append(key)
        return
    record = DocumentRecord(path=key, doc_id=digest, file_type=_file_type(path), size=stat.st_size, mtime=stat.st_mtime)
    owner = batch.doc_ids.get(digest) or _indexed_owner(kb, digest, key)
    if owner is not None:
        record.status = DUPLICATE
        record.error_message = f"same content as {owner}"
        record.indexed_at = now_iso()
        batch.duplicates.append((record, replaces if replaces != digest else None))
        report.duplicates.append(key)
        return
    try:
        document = parser.parse(path)
        prepared = prepare_parsed(kb, document, record, replaces=replaces)
    except UnreadableDocument as exc:
        _fail(kb, key, previous, digest, stat.st_size, stat.st_mtime, exc.kind.value, exc.message, report)
        return
    except (RecursionError, MemoryError, ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        # A parser bug on one odd file must not stop a batch of thousands: record the
        # exception type and message (nothing is hidden) and go on.
        _fail(kb, key, previous, digest, stat.st_size, stat.st_mtime, "error", f"{type(exc).__name__}: {exc}", report)
        return
    if not prepared.chunks:
        _fail(kb, key, previous, digest, stat.st_size, stat.st_mtime, RefusalKind.EMPTY.value, "no chunks", report)
        return
    (report.updated if previous is not None and previous.status != REMOVED else report.added).append(key)
    batch.add(prepared)


def _still_valid(kb: KnowledgeBase, previous: DocumentRecord) -> bool:
    """An unchanged file may be skipped unless it waits for indexing or its duplicate owner left."""
    if previous.status in (INDEXED, FAILED):
        return True
    if previous.status == DUPLICATE:
        return kb.registry.is_indexed(previous.doc_id)
    return False


def _indexed_owner(kb: KnowledgeBase, doc_id: str, path: str) -> str | None:
    for record in kb.registry.by_doc_id(doc_id):
        if record.status == INDEXED and record.path != path and Path(record.path).exists():
            return record.path
    return None


def _fail(
    kb: KnowledgeBase,
    path: str,
    previous: DocumentRecord | None,
    digest: str,
    size: int,
    mtime: float,
    kind: str,
    message: str,
    report: IndexReport,
) -> None:
    """Record a failed file without losing what was indexed.

    A file that was indexed before and has now changed into something unreadable (a save
    interrupted half-way, a password added) keeps its previous version's chunks: the
    registry row stays ``indexed`` for the old content hash and carries the new error, so
    ``status`` shows both and the next ``index`` run tries the file again.
    """
    report.failed.append(FileFailure(path, kind, message))
    if previous is not None and previous.status == INDEXED and previous.doc_id != digest:
        previous.error_kind = kind
        previous.error_message = f"the changed file cannot be read ({message}); the previous version stays indexed"
        with kb.registry.transaction():
            kb.registry.upsert(previous)
        return
    replaces = previous.doc_id if previous is not None and previous.status in (INDEXED, DUPLICATE) else None
    record = DocumentRecord(
        path=path,
        doc_id=digest or (previous.doc_id if previous else ""),
        file_type=Path(path).suffix.lower().lstrip("."),
        size=size,
        mtime=mtime,
        status=FAILED,
        error_kind=kind,
        error_message=message,
        indexed_at=now_iso(),
    )
    kb.record_only(record, replaces=replaces)


def _remove_vanished(kb: KnowledgeBase, folders: Sequence[Path]) -> Iterator[str]:
    """Remove registered files under the walked folders that no longer exist."""
    for folder in folders:
        for record in list(kb.registry.iter_paths_under(str(folder))):
            if record.status != REMOVED and not Path(record.path).exists():
                kb.remove(record.path)
                yield record.path
