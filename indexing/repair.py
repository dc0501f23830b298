"""``check`` and ``check --repair``: compare every store with the registry, and bring them back in line.

Why repair from the registry: it is the commit point of every document (see
:mod:`indexing.stores`), so what it lists is what was committed. Knowledge bases damaged
before the commit protocol existed (a kill mid-run left the registry and Chroma holding
chunks BM25 lacked, and ``index`` then skipped those files as unchanged), or whose files
were truncated or garbled since, are repaired store by store:

* chunks a store holds that the registry does not list are dropped;
* chunks BM25 lacks are re-added from the texts Chroma keeps;
* chunks Chroma lacks are rebuilt from the stored parsed document (re-chunked; when the
  chunk ids no longer match, e.g. the chunking settings changed, the document goes back
  to the job queue instead);
* a BM25 or Chroma file that cannot be read is moved aside (kept for inspection) and the
  store rebuilt as above;
* per-document sinks are compared by doc id: orphans deleted, missing ones re-``put``.

A registry that cannot be read is the one store nothing else can rebuild exactly:
:func:`recover_registry` moves it aside and queues every file the vector store still names
for a fresh index (re-parsing the source files).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexing.preparation import prepare
from indexing.registry import INDEXED, REGISTRY_FIX, REMOVED, DocumentRecord, Registry, now_iso
from indexing.stores import Stores
from indexing.vector_store import VectorStore, chunk_metadata, probe
from indexing.walking import display_path
from officeqa.errors import OfficeQAError, StoreDamaged
from officeqa.settings import Settings


@dataclass(slots=True)
class ConsistencyReport:
    """What ``check`` found; ``clean`` means every store holds exactly the registry's chunks."""

    registry_chunks: int = 0
    chroma_chunks: int = 0
    bm25_chunks: int = 0
    missing_in_chroma: list[str] = field(default_factory=list)
    missing_in_bm25: list[str] = field(default_factory=list)
    orphans_in_chroma: list[str] = field(default_factory=list)
    orphans_in_bm25: list[str] = field(default_factory=list)
    count_mismatches: list[str] = field(default_factory=list)
    model_problem: str | None = None
    missing_files: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    interrupted: list[str] = field(default_factory=list)  # dirty doc ids: a writer stopped mid-commit
    sinks: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (
            self.missing_in_chroma
            or self.missing_in_bm25
            or self.orphans_in_chroma
            or self.orphans_in_bm25
            or self.count_mismatches
            or self.model_problem
            or self.damaged
            or self.interrupted
            or any(v["missing"] or v["orphans"] for v in self.sinks.values())
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "registry_chunks": self.registry_chunks,
            "chroma_chunks": self.chroma_chunks,
            "bm25_chunks": self.bm25_chunks,
            "missing_in_chroma": self.missing_in_chroma,
            "missing_in_bm25": self.missing_in_bm25,
            "orphans_in_chroma": self.orphans_in_chroma,
            "orphans_in_bm25": self.orphans_in_bm25,
            "count_mismatches": self.count_mismatches,
            "model_problem": self.model_problem,
            "missing_files": [display_path(p) for p in self.missing_files],
            "damaged": self.damaged,
            "interrupted": self.interrupted,
            "sinks": self.sinks,
        }


@dataclass(slots=True)
class RepairReport:
    """What ``check --repair`` did, one line per action, and the files it sent back to the queue."""

    actions: list[str] = field(default_factory=list)
    requeued: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"actions": self.actions, "requeued": [display_path(p) for p in self.requeued]}


def check(kb: Stores, limit: int = 50) -> ConsistencyReport:
    """Compare the chunk ids of registry, Chroma, BM25 and the sinks (lists cut to ``limit`` ids each).

    Takes the write lock for a moment so that a commit in progress elsewhere is not
    reported as a difference; damaged files are reported, not raised.
    """
    report = ConsistencyReport()
    with kb.lock:
        problem = kb.registry.quick_check()
        if problem is not None:
            report.damaged.append(f"the registry {kb.registry.path}: {problem}")
            return report
        kb.sync_for_write()
        registry_ids = set(kb.registry.chunk_ids())
        chroma_ids = _ids_or_damage(report, lambda: set(kb.vectors.all_ids()))
        bm25_ids = _ids_or_damage(report, lambda: set(kb.bm25_store.ids()))
        report.interrupted = kb.registry.dirty_doc_ids()[:limit]
        report.registry_chunks = len(registry_ids)
        if chroma_ids is not None:
            report.chroma_chunks = len(chroma_ids)
            report.missing_in_chroma = sorted(registry_ids - chroma_ids)[:limit]
            report.orphans_in_chroma = sorted(chroma_ids - registry_ids)[:limit]
        if bm25_ids is not None:
            report.bm25_chunks = len(bm25_ids)
            report.missing_in_bm25 = sorted(registry_ids - bm25_ids)[:limit]
            report.orphans_in_bm25 = sorted(bm25_ids - registry_ids)[:limit]
        owners = _check_counts(kb, report)
        for sink in kb.sinks:
            held = sink.doc_ids()
            report.sinks[sink.name] = {
                "missing": sorted(owners - held)[:limit],
                "orphans": sorted(held - owners)[:limit],
            }
        if chroma_ids and not report.damaged:
            report.model_problem = _model_problem(kb)
    return report


def _ids_or_damage(report: ConsistencyReport, read: Callable[[], set[str]]) -> set[str] | None:
    try:
        return read()
    except StoreDamaged as exc:
        report.damaged.append(str(exc))
        return None


def _check_counts(kb: Stores, report: ConsistencyReport) -> set[str]:
    counts = kb.registry.chunk_counts()
    owners: set[str] = set()
    for record in kb.registry.documents():
        if record.status == INDEXED:
            owners.add(record.doc_id)
            if counts.get(record.doc_id, 0) != record.chunk_count:
                listed = counts.get(record.doc_id, 0)
                report.count_mismatches.append(
                    f"{display_path(record.path)}: registry says {record.chunk_count} chunks, {listed} listed"
                )
            if not Path(record.path).exists() and "://" not in record.path:
                report.missing_files.append(record.path)
    for doc_id in sorted(set(counts) - owners):
        report.count_mismatches.append(f"doc {doc_id}: {counts[doc_id]} chunks listed but no indexed path owns them")
    return owners


def _model_problem(kb: Stores) -> str | None:
    recorded = kb.vectors.model
    if recorded is None:
        return None
    try:
        configured = kb.model
    except OfficeQAError as exc:  # the configured model cannot be built: say so, still report the rest
        return f"cannot build the configured embedder: {exc}"
    if recorded != configured:
        return (
            f"vectors were made by {recorded[0]!r} (dim {recorded[1]}) but the configured embedder is "
            f"{configured[0]!r} (dim {configured[1]}); run `officeqa reindex`"
        )
    return None


# -- repair ---------------------------------------------------------------------------------------------
def repair(kb: Stores) -> RepairReport:
    """Bring every store in line with the registry (see the module docstring); returns what was done."""
    report = RepairReport()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    with kb.writing():
        if kb.has_store_files:  # a database backend has no files to probe or move aside
            _repair_bm25_file(kb, report, stamp)
            _repair_chroma_files(kb, report, stamp)
        registry_ids = set(kb.registry.chunk_ids())
        chroma_ids = set(kb.vectors.all_ids())
        orphans = sorted(chroma_ids - registry_ids)
        if orphans:
            kb.vectors.delete_ids(orphans)
            report.actions.append(f"dropped {len(orphans)} chunks from the vector store the registry does not list")
        bm25_orphans = sorted(kb.bm25_store.ids() - registry_ids)
        if bm25_orphans:
            kb.bm25_store.remove(bm25_orphans)
            report.actions.append(f"dropped {len(bm25_orphans)} chunks from BM25 that the registry does not list")
        _repair_counts(kb, report)
        registry_ids = set(kb.registry.chunk_ids())
        missing_vectors = registry_ids - chroma_ids
        if missing_vectors:
            _rebuild_vectors(kb, missing_vectors, report)
        missing_bm25 = sorted(cid for cid in set(kb.registry.chunk_ids()) if cid not in kb.bm25_store.index)
        if missing_bm25:
            texts = kb.vectors.texts(missing_bm25)
            found = [cid for cid in missing_bm25 if cid in texts]
            kb.bm25_store.add(found, [texts[cid] for cid in found])
            report.actions.append(f"re-added {len(found)} chunks to BM25 from the vector store's texts")
        _repair_sinks(kb, report)
        kb.bm25_store.fold(force=True)
        with kb.registry.transaction():
            kb.mark_committed()
    return report


def _repair_bm25_file(kb: Stores, report: RepairReport, stamp: str) -> None:
    try:
        kb.bm25_store.verify()
    except StoreDamaged as exc:
        moved = kb.move_bm25_files_aside(f"damaged-{stamp}")
        kb.bm25_store.reset()
        names = ", ".join(p.name for p in moved)
        report.actions.append(f"BM25: {exc.reason}; moved aside ({names}) and rebuilt from the vector store")


def _repair_chroma_files(kb: Stores, report: RepairReport, stamp: str) -> None:
    if not (kb.chroma_path / "chroma.sqlite3").exists():
        return
    problem = probe(kb.chroma_path)
    if problem is None:
        try:
            kb.vectors.count()
            return
        except StoreDamaged as exc:
            problem = exc.reason
    kb._vectors = None
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient._identifier_to_system.pop(str(kb.chroma_path), None)
    SharedSystemClient._identifier_to_refcount.pop(str(kb.chroma_path), None)
    target = kb.chroma_path.with_name(f"chroma.damaged-{stamp}")
    kb.chroma_path.replace(target)
    with kb.registry.transaction():
        kb.registry.set_meta("chroma_fingerprint", "")
    report.actions.append(
        f"vector store: {problem}; moved aside to {target.name} and rebuilt from the stored documents"
    )


def _repair_counts(kb: Stores, report: RepairReport) -> None:
    counts = kb.registry.chunk_counts()
    with kb.registry.transaction():
        owners = set()
        for record in kb.registry.documents(statuses=[INDEXED]):
            owners.add(record.doc_id)
            listed = counts.get(record.doc_id, 0)
            if listed != record.chunk_count:
                kb.registry.set_status(record.path, INDEXED, chunk_count=listed)
                report.actions.append(f"{display_path(record.path)}: chunk count {record.chunk_count} -> {listed}")
        for doc_id in sorted(set(counts) - owners):
            kb.registry.delete_chunks(doc_id)
            report.actions.append(f"doc {doc_id}: dropped {counts[doc_id]} chunk rows no indexed path owns")


def _rebuild_vectors(kb: Stores, missing: set[str], report: RepairReport) -> None:
    """Re-embed chunks the vector store lacks from the stored parsed documents, or requeue their files."""
    by_doc: dict[str, set[str]] = {}
    for cid, doc_id in kb.registry.chunk_doc_map().items():
        if cid in missing:
            by_doc.setdefault(doc_id, set()).add(cid)
    rebuilt = 0
    for doc_id in sorted(by_doc):
        owners = [r for r in kb.registry.by_doc_id(doc_id) if r.status == INDEXED]
        document = kb.documents.get(doc_id)
        if not owners:
            continue
        record = owners[0]
        chunks = []
        if document is not None:
            prepared = prepare(kb.settings.chunking, document, DocumentRecord(path=record.path, doc_id=doc_id))
            listed = set(kb.registry.chunk_ids(doc_id))
            if {c.id for c in prepared.chunks} == listed:
                chunks = [c for c in prepared.chunks if c.id in by_doc[doc_id]]
        if not chunks:
            kb.send_back(doc_id, "its vectors were lost; indexed again")
            report.requeued.extend(r.path for r in owners)
            continue
        vectors = kb.embedder.embed_documents([c.text for c in chunks], batch_size=kb.settings.embedding.batch_size)
        metas = [chunk_metadata(c, record.path, record.file_type) for c in chunks]
        kb.vectors.upsert([c.id for c in chunks], vectors, [c.text for c in chunks], metas, kb.model)
        rebuilt += len(chunks)
    if rebuilt:
        report.actions.append(f"re-embedded {rebuilt} chunks the vector store lacked, from the stored documents")
    if report.requeued:
        report.actions.append(f"queued {len(report.requeued)} files to be indexed again (no usable stored document)")


def _repair_sinks(kb: Stores, report: RepairReport) -> None:
    owners = {r.doc_id for r in kb.registry.documents(statuses=[INDEXED])}
    for sink in kb.sinks:
        held = sink.doc_ids()
        for doc_id in sorted(held - owners):
            sink.delete(doc_id)
        for doc_id in sorted(owners - held):
            kb.sink_put(sink, doc_id)
        if held - owners or owners - held:
            report.actions.append(
                f"{sink.name}: dropped {len(held - owners)} documents, re-stored {len(owners - held)}"
            )


# -- a lost registry ------------------------------------------------------------------------------------
def registry_damage(settings: Settings) -> StoreDamaged | None:
    """The registry's damage, or None when it opens and passes SQLite's quick check (a database backend
    has no registry file: ``check`` reports its schema instead)."""
    if settings.storage.backend != "embedded":
        return None
    try:
        registry = Registry(Path(settings.data_dir) / "registry.sqlite3")
    except StoreDamaged as exc:
        return exc
    try:
        problem = registry.quick_check()
    except StoreDamaged as exc:
        return exc
    finally:
        registry.close()
    if problem is None:
        return None
    return StoreDamaged(f"the registry {Path(settings.data_dir) / 'registry.sqlite3'}", problem, REGISTRY_FIX)


def recover_registry(settings: Settings) -> tuple[str, list[str]]:
    """Move a damaged registry aside and queue every file the vector store names; (moved to, paths).

    Chunk ids and stored documents cannot be recovered from the other stores exactly, so
    the vector store and BM25 are emptied and every surviving path is indexed again.
    """
    data_dir = Path(settings.data_dir)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = data_dir / "registry.sqlite3"
    target = base.with_name(f"registry.sqlite3.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{base}{suffix}")
        if part.exists():
            part.replace(Path(f"{target}{suffix}"))
    paths: dict[str, str] = {}
    chroma = data_dir / "chroma"
    if (chroma / "chroma.sqlite3").exists() and probe(chroma) is None:
        paths = VectorStore(chroma).paths()
    kb = Stores(settings)
    try:
        kb.reset_stores()
        live = sorted(p for p in paths if Path(p).is_file())
        with kb.registry.transaction():
            for path in live:
                kb.registry.upsert(
                    DocumentRecord(path=path, doc_id=paths[path], status="pending", indexed_at=now_iso())
                )
                kb.jobs.enqueue_in_tx(path, "index", None, True, "recover")
            for path in sorted(set(paths) - set(live)):
                kb.registry.upsert(DocumentRecord(path=path, doc_id=paths[path], status=REMOVED, indexed_at=now_iso()))
    finally:
        kb.close()
    return str(target), live


__all__ = [
    "ConsistencyReport",
    "RepairReport",
    "check",
    "recover_registry",
    "registry_damage",
    "repair",
]
