"""An L0 handler's result as the user sees it: text in the question's language, every item cited with its evidence.

Why a renderer apart from the handlers: handlers compute (exact values, with the places they
came from); what the reader needs around each value — the sentence or the table row with its
header, the chunk that holds it, "批注（张三）" when it is a comment — comes from the stored
documents and the index, which handlers do not know about. Extraction and outline answers are
written here in Chinese or English; other handlers' texts are used as they come.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from officeqa.domain import BlockType, ParsedDocument
from retrieval.citations import Citation, heading_list
from retrieval.evidence import ChunkTexts, Evidence, evidence_for, find_chunk, role_label
from retrieval.handlers.extract import FINDERS
from retrieval.handlers.results import HandlerItem, HandlerResult
from retrieval.messages import extract_label
from retrieval.messages import text as message

MAX_CITED_ITEMS = 200
#: Rows quoted for one aggregate (the answer states how many rows matched). As many as the table executor lists
#: (``retrieval.tables.execute.CITED_ROWS``): a sum over eleven rows cites all eleven inputs, so the reader can
#: check each one; citing the first five left the rest of the evidence unseen.
MAX_CITED_ROWS = 20


@dataclass(slots=True)
class StoredDocument:
    """A document in scope: its id, registry path and stored parsed form."""

    doc_id: str
    path: str
    parsed: ParsedDocument


class _Citations:
    """Citations numbered in order of first use, one per distinct (document, quote)."""

    def __init__(self, documents: Sequence[StoredDocument], chunk_texts: ChunkTexts, language: str) -> None:
        self._by_parse_path = {d.parsed.path: d for d in documents}
        self._chunk_texts = chunk_texts
        self._language = language
        self._chunks_cache: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        self.items: list[Citation] = []
        self._index: dict[tuple[str, str], int] = {}

    def cite_rows(self, place: Any, limit: int = MAX_CITED_ROWS) -> list[int]:
        """A stored-table citation: each cited row quoted with its header (the first ``limit`` of them)."""
        document = self._by_parse_path.get(str(place.file))
        if document is None or place.table is None:
            return []
        block_index = table_block_index(document.parsed, place.table)
        if block_index is None:
            return []
        block = document.parsed.blocks[block_index]
        rows = list(getattr(place, "row_list", None) or [])
        if not rows and (place.sheet_row is not None or place.row is not None):
            rows = [place.sheet_row if place.sheet_row is not None else place.row]
        exact = rows_are_sheet_rows(block)
        numbers = []
        for row in rows[:limit]:
            data_row = row - block.meta["first_row"] - len(block.header_rows or []) + 1 if exact else row
            single = type(place)(file=place.file, page=place.page, sheet=place.sheet, table=place.table,
                                 row=data_row, sheet_row=row if exact else None, block=block_index)
            n = self.cite(single, "")
            if n is not None:
                numbers.append(n)
        return numbers

    def cite(self, place: Any, value: str) -> int | None:
        document = self._by_parse_path.get(str(place.file))
        if document is None:
            return None
        evidence = evidence_for(document.parsed, place.block, value, row=place.row, sheet_row=place.sheet_row)
        if evidence is None:
            evidence = Evidence(value, page=place.page, sheet=place.sheet, slide=place.slide, row=place.sheet_row)
        key = (document.doc_id, evidence.quote)
        if key in self._index:
            return self._index[key]
        chunks = self._chunks_cache.setdefault(document.doc_id, self._chunk_texts(document.doc_id))
        found = find_chunk(evidence.quote, chunks)
        chunk_id, meta = found if found is not None else ("", {})
        page = evidence.page if evidence.page is not None else _int(meta.get("page"))
        citation = Citation(
            n=len(self.items) + 1, chunk_id=chunk_id, doc_id=document.doc_id, file=document.path,
            document=PurePath(document.path).name,
            heading_path=evidence.heading_path or heading_list(meta.get("heading_path")),
            page=page, sheet=evidence.sheet, slide=evidence.slide, quote=evidence.quote, row=evidence.row,
            label_note=role_label(evidence.role, evidence.author, self._language),
        )
        self.items.append(citation)
        self._index[key] = citation.n
        return citation.n


def table_block_index(document: ParsedDocument, table_no: int) -> int | None:
    """The block index of the document's ``table_no``-th table (1-based, document order), as the table store
    numbers them."""
    seen = 0
    for index, block in enumerate(document.blocks):
        if block.type is BlockType.TABLE:
            seen += 1
            if seen == table_no:
                return index
    return None


def rows_are_sheet_rows(block: Any) -> bool:
    """True when the table store numbers this table's rows by spreadsheet row (the table is one contiguous
    band of rows: ``first_row``..``last_row`` hold exactly the header and data rows), as it decides."""
    first, last = block.meta.get("first_row"), block.meta.get("last_row")
    if not isinstance(first, int) or not isinstance(last, int):
        return False
    return last - first + 1 == len(block.header_rows or []) + len(block.rows or [])


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def render_rule_answer(
    result: HandlerResult,
    documents: Sequence[StoredDocument],
    chunk_texts: ChunkTexts,
    language: str,
) -> tuple[str, list[Citation]]:
    """(answer text, citations) for a handler result over ``documents``."""
    citations = _Citations(documents, chunk_texts, language)
    if getattr(result, "outcome", None) is not None:  # a stored-table query (retrieval.tables)
        for item in result.items[:MAX_CITED_ITEMS]:
            for place in item.citations[:1]:
                citations.cite_rows(place)
        return result.answer_text, citations.items
    if result.route in FINDERS:
        return _extraction(result, citations, language), citations.items
    if result.route == "outline":
        return _outline(result, documents, citations, language), citations.items
    for item in result.items[:MAX_CITED_ITEMS]:
        for place in item.citations[:1]:
            citations.cite(place, item.value)
    return result.answer_text, citations.items


def _extraction(result: HandlerResult, citations: _Citations, language: str) -> str:
    label = extract_label(result.route, language, count=len(result.items))
    if not result.items:
        return message("found_none", language, label=label)
    lines = [message("found_items", language, count=len(result.items), label=label)]
    for item in result.items:
        numbers = [n for place in item.citations[:3] if (n := citations.cite(place, item.value)) is not None]
        marks = "".join(f"[{n}]" for n in dict.fromkeys(numbers))
        lines.append(f"- {_shown(item, result.route)}" + (f" {marks}" if marks else ""))
    return "\n".join(lines)


def _shown(item: HandlerItem, route: str) -> str:
    if route == "extract_amount" and isinstance(item.normalized, dict):
        plain = f"{item.normalized.get('value')} {item.normalized.get('currency', '')}".strip()
        return item.value if plain == item.value else f"{item.value} ({plain})"
    if item.normalized is not None and str(item.normalized) != item.value:
        return f"{item.value} ({item.normalized})"
    return item.value


def _outline(result: HandlerResult, documents: Sequence[StoredDocument], citations: _Citations, language: str) -> str:
    if not result.items:
        return message("no_headings", language)
    lines: list[str] = []
    by_path = {d.parsed.path: d for d in documents}
    current = None
    for item in _without_table_of_contents(result.items):
        place = item.citations[0] if item.citations else None
        if place is not None and place.file != current:
            current = place.file
            document = by_path.get(str(place.file))
            name = (document.parsed.title if document and document.parsed.title else PurePath(str(place.file)).name)
            lines.append(message("outline_header", language, document=name))
        level = int(item.normalized.get("level", 1)) if isinstance(item.normalized, dict) else 1
        n = citations.cite(place, item.value) if place is not None else None
        page = f" (p. {place.page})" if place is not None and place.page is not None else ""
        lines.append("  " * (level - 1) + f"- {item.value}{page}" + (f" [{n}]" if n else ""))
    return "\n".join(lines)


def _without_table_of_contents(items: list[HandlerItem]) -> list[HandlerItem]:
    """A heading listed twice in one document is a table-of-contents entry and then the heading: keep the last."""
    last: dict[tuple[str, str], int] = {}
    for index, item in enumerate(items):
        place = item.citations[0] if item.citations else None
        last[(str(place.file) if place else "", " ".join(item.value.split()))] = index
    return [item for index, item in enumerate(items)
            if last[(str(item.citations[0].file) if item.citations else "", " ".join(item.value.split()))] == index]


def stored_documents(
    doc_ids: Sequence[str], paths: Mapping[str, str], load: Any
) -> tuple[list[StoredDocument], list[str]]:
    """The stored parsed documents of ``doc_ids`` and the ids that have none (indexed before storing)."""
    found: list[StoredDocument] = []
    missing: list[str] = []
    for doc_id in doc_ids:
        parsed = load(doc_id)
        if parsed is None:
            missing.append(doc_id)
        else:
            found.append(StoredDocument(doc_id, paths.get(doc_id, parsed.path), parsed))
    return found, missing


def table_columns(documents: Sequence[StoredDocument]) -> list[str]:
    """Every table header cell of the documents (routing preconditions look at them)."""
    return [c for d in documents for b in d.parsed.blocks if b.type is BlockType.TABLE for c in b.header]


__all__ = ["StoredDocument", "render_rule_answer", "stored_documents", "table_columns"]
