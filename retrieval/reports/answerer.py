"""The report-facts answerer: the facts of the reports in scope, read from the stored documents, answer a
figure, computed or not-in-report question with no model, or decline so the next answerer runs.

Why a per-process cache keyed by document id: a document id is the content hash, so a document's facts
never change under it; loading a stored parsed document is the expensive part, and it happens once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from indexing.reports import report_of
from officeqa.domain import Block, BlockRole, BlockType
from retrieval.answering import Answer
from retrieval.citations import Citation
from retrieval.reports.answer import answer_from_facts, asks_for_figure
from retrieval.reports.facts import Report, load_report

if TYPE_CHECKING:
    from indexing.stores import Stores

__all__ = ["ROUTE", "ReportCache", "answer_with_facts", "display_name"]

ROUTE = "report_facts"
_CACHED = 256
_PROSE = (BlockType.HEADING, BlockType.PARAGRAPH, BlockType.LIST)


def display_name(path: str, root: Path | None) -> str:
    """The file name a user sees: relative to the knowledge-base root when given, else the bare name."""
    if root is not None:
        try:
            return Path(path).resolve().relative_to(root.resolve()).as_posix()
        except (ValueError, OSError):
            pass
    return PurePath(path).name


def _store_key(kb: Stores) -> str:
    """Which knowledge base: its data folder, or its PostgreSQL database and schema."""
    settings = kb.settings
    storage = settings.storage
    if storage.backend == "postgres":
        return f"postgres|{storage.postgres_dsn}|{storage.postgres_schema}"
    return f"embedded|{Path(settings.data_dir).resolve()}"


class ReportCache:
    """Reports (or None: not a report) by knowledge base and document id, loaded from the stored parsed documents."""

    def __init__(self) -> None:
        self._reports: dict[str, Report | None] = {}
        self._lock = threading.Lock()

    def reports(
        self,
        kb: Stores,
        documents: Iterable[tuple[str, str]],
        root: Path | None = None,
        shown: Callable[[str], str] | None = None,
    ) -> list[Report]:
        """The reports among ``documents`` ((doc id, path) pairs), named by ``shown`` (else relative to ``root``)."""
        found: list[Report] = []
        base = _store_key(kb)
        for doc_id, path in documents:
            key = f"{base}\n{doc_id}"  # one process may serve several knowledge bases holding the same file
            with self._lock:
                known = key in self._reports
                report = self._reports.get(key)
            if not known:
                parsed = kb.documents.get(doc_id)
                data = report_of(parsed)
                report = None
                if data is not None and parsed is not None:
                    text = "\n".join(b.text for b in parsed.blocks)
                    name = shown(path) if shown is not None else display_name(path, root)
                    report = load_report(path, name, data, text, prose_pages(parsed.blocks))
                with self._lock:
                    if len(self._reports) >= _CACHED:
                        self._reports.pop(next(iter(self._reports)))
                    self._reports[key] = report
            if report is not None:
                found.append(report)
        return found


def prose_pages(blocks: Iterable[Block]) -> tuple[tuple[int | None, str], ...]:
    """The text of each page's headings, paragraphs and lists, in order (a letter's lines are separate blocks)."""
    pages: dict[int | None, list[str]] = {}
    for block in blocks:
        if block.type in _PROSE and block.role == BlockRole.BODY and block.text:
            pages.setdefault(block.page, []).append(block.text)
    return tuple((page, " ".join(texts)) for page, texts in pages.items())


def answer_with_facts(
    kb: Stores,
    cache: ReportCache,
    question: str,
    standalone: str,
    language: str,
    documents: Mapping[str, str],
    root: Path | None = None,
    metadata: Mapping[str, Any] | None = None,
    shown: Callable[[str], str] | None = None,
    scoped: bool = False,
) -> Answer | None:
    """The answer from the facts of ``documents`` ({doc id: path}), or None to leave the question to others.

    ``metadata`` is the account so far (its L0 route is kept); ``report_facts`` says this answerer answered."""
    if not asks_for_figure(standalone):
        return None  # before loading any report: most questions are not about figures
    reports = cache.reports(kb, documents.items(), root, shown)
    result = answer_from_facts(standalone, reports, language, scoped)
    if result is None:
        return None
    ids = {path: doc_id for doc_id, path in documents.items()}
    citations = [
        Citation(file=c.path, page=c.page, n=n, doc_id=ids.get(c.path, ""), document=c.name, quote=c.quote)
        for n, c in enumerate(result.citations, 1)
    ]
    facts_meta: dict[str, Any] = {"kind": result.kind}
    if result.value is not None:
        facts_meta.update(value=result.value, unit=result.unit)
    if result.unsure:
        facts_meta["unsure"] = list(result.unsure)  # the answerer hands the figure over (complete_or_hand_over)
    meta: dict[str, Any] = {**(metadata or {}), "report_facts": facts_meta}
    meta.setdefault("route", {"route": ROUTE})
    return Answer(result.text, citations, "rule", question, standalone, result.language, None, meta)
