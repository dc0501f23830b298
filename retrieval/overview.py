"""What a knowledge base holds, for the chat page before its first question: counts by kind, and example questions.

Why: a chat page that opens empty leaves a newcomer guessing what to ask, and a made-up example ("the hotel limit
for business trips") that the documents cannot answer teaches them that the product fails. The examples here are
drawn from the indexed documents themselves, in the two forms the deterministic answerers finish without a model:
a section named by its stored heading (``retrieval.answerers.named_section``: the section's own sentences, quoted)
and the total of a numeric table column (``retrieval.tables``: exact arithmetic over the stored rows). A column
whose name more than one stored table carries would make the table question ambiguous, so only a column name that
one table has is used; the file is named in each question so its scope is that document.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Protocol

from indexing.registry import DUPLICATE, INDEXED, DocumentRecord

#: Documents and chunks looked into for headings: the page asks on every load, so the work is bounded.
_DOCUMENTS_SCANNED = 8
_CHUNKS_SCANNED = 60
_EXAMPLES = 3
#: A heading worth asking about: a few characters at least, not a bare number or page furniture.
_MIN_HEADING_CHARS = 3
_MAX_HEADING_CHARS = 40
_NOT_A_NAME = re.compile(r"^[\W\d_]+$")
#: A sheet's "headings" are its captions and table titles, not sections with prose under them.
_NO_SECTIONS = frozenset({"xlsx", "xls", "xlsm", "ods", "et", "csv", "tsv"})


class _KnowledgeBase(Protocol):
    """What the overview reads of a knowledge base (:class:`indexing.knowledge_base.KnowledgeBase`)."""

    @property
    def registry(self) -> Any: ...

    def fetch(self, ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]: ...

    def tables_for(self, doc_ids: list[str]) -> Any: ...


@dataclass(frozen=True, slots=True)
class Example:
    """One example question, in English and Chinese, and what it was drawn from."""

    kind: str  # "section" | "table"
    document: str  # the file name, as the question names it
    source: str  # the heading or the column
    en: str
    zh: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "document": self.document, "source": self.source, "en": self.en, "zh": self.zh}


@dataclass(slots=True)
class Overview:
    """Indexed documents by kind (file type), documents that failed, and example questions."""

    documents: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    examples: list[Example] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"documents": self.documents, "kinds": self.kinds, "failed": self.failed,
                "examples": [e.to_json() for e in self.examples]}


def knowledge_base_overview(kb: _KnowledgeBase, examples: int = _EXAMPLES) -> Overview:
    """Counts of the indexed documents by kind, and up to ``examples`` questions their headings and tables answer."""
    records = kb.registry.documents()
    indexed = sorted((r for r in records if r.status in (INDEXED, DUPLICATE)), key=lambda r: r.path)
    kinds = Counter((r.file_type or PurePath(r.path).suffix.lstrip(".") or "other").lower() for r in indexed)
    overview = Overview(documents=len(indexed), kinds=dict(kinds.most_common()),
                        failed=sum(1 for r in records if r.error_kind))
    if indexed:
        overview.examples = pick_examples(_section_examples(kb, indexed), _table_examples(kb, indexed), examples)
    return overview


def pick_examples(sections: list[Example], tables: list[Example], limit: int) -> list[Example]:
    """A section, then a table, then alternate; at most one example per document while others are left."""
    order = [x for pair in zip(sections, tables, strict=False) for x in pair]
    order += sections[len(tables):] + tables[len(sections):]
    chosen: list[Example] = []
    for relaxed in (False, True):
        for example in order:
            if len(chosen) < limit and example not in chosen and (
                    relaxed or example.document not in {c.document for c in chosen}):
                chosen.append(example)
    return chosen


def section_example(document: str, heading: str) -> Example:
    """The named-section question of ``heading`` in ``document``; the section's sentences are quoted in the
    language they are written in, whichever page asks."""
    return Example("section", document, heading, f"What does the {heading} section of {document} say?",
                   f"{document}中“{heading}”一节讲了什么？")


def table_example(document: str, column: str) -> Example:
    """The column-total question of ``column`` in ``document``, as a user would type it on either page."""
    return Example("table", document, column, f"What is the total {column} in {document}?",
                   f"{document}中{column}的合计是多少？")


def _section_examples(kb: _KnowledgeBase, records: list[DocumentRecord]) -> list[Example]:
    """One heading per document: the first stored sub-heading (a heading under another), else a lone heading."""
    found: list[Example] = []
    prose = [r for r in records if (r.file_type or PurePath(r.path).suffix.lstrip(".")).lower() not in _NO_SECTIONS]
    for record in prose[:_DOCUMENTS_SCANNED]:
        ids = kb.registry.chunk_ids(record.doc_id)[:_CHUNKS_SCANNED]
        paths = [_heading_path(meta) for _text, meta in kb.fetch(ids).values()] if ids else []
        usable = [p for p in paths if p and _askable(p[-1])]
        deep = [p for p in usable if len(p) > 1]
        if deep or usable:
            found.append(section_example(PurePath(record.path).name, (deep or usable)[0][-1]))
    return found


def _table_examples(kb: _KnowledgeBase, records: list[DocumentRecord]) -> list[Example]:
    """One numeric column per document whose name no other stored table has."""
    names = {r.doc_id: PurePath(r.path).name for r in records}
    with kb.tables_for(list(names)) as store:
        tables = store.tables() if store is not None else []
    owners = Counter(c.name.casefold() for t in tables for c in {c.name: c for c in t.columns}.values())
    found: dict[str, Example] = {}
    for table in tables:
        if table.doc_id not in names or table.doc_id in found or table.row_count < 2:
            continue
        for column in table.columns:
            if column.is_measure and owners[column.name.casefold()] == 1 and _askable(column.name):
                found[table.doc_id] = table_example(names[table.doc_id], column.name)
                break
    return list(found.values())


def _heading_path(meta: dict[str, Any]) -> list[str]:
    value = meta.get("heading_path")
    if isinstance(value, str):
        return [part.strip() for part in value.split(" > ") if part.strip()]
    return [str(part).strip() for part in value or [] if str(part).strip()]


def _askable(name: str) -> bool:
    return _MIN_HEADING_CHARS <= len(name) <= _MAX_HEADING_CHARS and not _NOT_A_NAME.match(name)


__all__ = ["Example", "Overview", "knowledge_base_overview", "pick_examples", "section_example", "table_example"]
