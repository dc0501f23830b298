"""The contract for further per-document stores (tables, summary trees) that commit with a document.

Why a hook list: a document is visible in the registry, Chroma, BM25, the stored parsed
document and every further store together or not at all. The knowledge base does the
ordering (stage every store, then commit the registry transaction, then drop what the
commit replaced) and crash recovery; a store only has to be idempotent:

* ``put(doc_id, path, document)`` stores (or replaces) what it keeps of one parsed
  document. It is called while the document is *staged*, before the registry commit, so
  it may run again after a crash, or for a document whose commit then never happens.
* ``delete(doc_id)`` forgets a document (no error when it is not there).
* ``doc_ids()`` lists what it holds, so ``check`` can compare it with the registry and
  ``check --repair`` can drop orphans and re-``put`` documents it lacks (from the stored
  parsed documents).

Register one with :meth:`indexing.knowledge_base.KnowledgeBase.add_sink` (e.g. the DuckDB
table store). ``name`` appears in ``check`` output.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from officeqa.domain import ParsedDocument


@runtime_checkable
class DocumentSink(Protocol):
    """A per-document store that commits together with the registry (see the module docstring)."""

    name: str

    def put(self, doc_id: str, path: str, document: ParsedDocument) -> None: ...

    def delete(self, doc_id: str) -> None: ...

    def doc_ids(self) -> set[str]: ...


__all__ = ["DocumentSink"]
