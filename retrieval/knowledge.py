"""A knowledge base as the question path sees it: its catalog, scopes, routing, scoped search, stored forms.

:class:`Knowledge` is the :class:`~retrieval.context.Tools` of :class:`~retrieval.service.QuestionService`:
built once per service (it caches the catalog until the registry changes, and the quote locators),
it places each question (:meth:`Knowledge.place`: the documents in scope and the L0 route) and
serves the answerers (search inside the scope, stored documents and tables, the summary trees).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from indexing.profile import DocumentProfile, name_key
from indexing.registry import INDEXED
from indexing.summary import SummaryStore, summary_store_path
from officeqa.scripts import detect_language
from officeqa.settings import Settings
from prompts.assembler import Material
from retrieval.answer_texts import based_on, naming_words, scope_notes, shared_naming_words, summary_note
from retrieval.answering import Answer, HitLike
from retrieval.catalog import CatalogEntry
from retrieval.context import QuestionContext, Tools
from retrieval.dense import background_coverage
from retrieval.extractive import ExtractiveAnswer
from retrieval.l0 import L0Router, RouteDecision
from retrieval.placing import place
from retrieval.quoting import Quoting
from retrieval.rule_answers import StoredDocument, stored_documents
from retrieval.scope import Scope, newest_versions
from retrieval.search import SearchHit, search, without_naming_words
from retrieval.show_paths import DisplayPaths
from retrieval.subjects_text import text_holds

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.generation import OllamaGenerator

#: Handler routes answered from retrieval's top document when the question names none.
RETRIEVED_SCOPE_DOCUMENTS = 1
#: Documents with tables (from the top retrieved) the table linker chooses among when the question names none.
TABLE_SCOPE_DOCUMENTS = 5


def same_language_first(question: str, ranked: Sequence[str], catalog: Mapping[str, CatalogEntry]) -> list[str]:
    """The retrieved documents with those in the question's language first, each group in rank order.

    Why: a question that names no document means "the report" it is about, and retrieval alone may rank a
    report in another script first (dense vectors vote across scripts: an English "main risk factors" lands on a
    Chinese report's 风险 section). A reader asking in English about "the report" means the English one when
    one is among the retrieved; with none in the question's language the rank decides, as before.
    """
    language = detect_language(question)
    same = [d for d in ranked if d in catalog and catalog[d].profile.language == language]
    return [*same, *(d for d in ranked if d not in same)]


class Knowledge(Tools):
    """One knowledge base's answers-side helpers; build once per service, share across its questions."""

    def __init__(self, settings: Settings, kb: KnowledgeBase, generator: OllamaGenerator | None,
                 router: L0Router) -> None:
        super().__init__(settings, generator)
        self.kb = kb
        self.router = router
        self.quoting = Quoting(kb, settings.embedding.batch_size)
        self._catalog: dict[str, CatalogEntry] = {}
        self._catalog_marker: tuple[int, int] | None = None
        self.superseded: dict[str, str] = {}  # every older version's doc id -> the newest version's
        self.paths = DisplayPaths({})
        self._summary_store: SummaryStore | None = None

    def close(self) -> None:
        if self._summary_store is not None:
            self._summary_store.close()
            self._summary_store = None

    # -- placing a question -------------------------------------------------------------------------
    def place(self, ctx: QuestionContext) -> None:
        place(self, ctx)

    def catalog(self) -> dict[str, CatalogEntry]:
        """Indexed documents with their profiles (cached until the registry changes)."""
        marker = self.kb.registry.change_marker()
        if marker != self._catalog_marker:
            profiles = self.kb.documents.profiles()
            catalog: dict[str, CatalogEntry] = {}
            for record in self.kb.registry.documents(statuses=[INDEXED]):
                if record.doc_id not in catalog:
                    profile = profiles.get(record.doc_id) or bare_profile(record.doc_id, record.path)
                    catalog[record.doc_id] = CatalogEntry(record.doc_id, record.path, profile, record.mtime)
            self._catalog, self._catalog_marker = catalog, marker
            self.superseded = newest_versions(list(catalog), catalog)[1]
            self.paths = DisplayPaths({d: e.path for d, e in catalog.items()})
        return self._catalog

    def mentions(self, name: str) -> bool:
        """Whether any indexed text spells ``name`` (folded: case, width, script and spacing aside)."""
        return text_holds(self.kb, name)

    def stored(self, doc_ids: Sequence[str], catalog: Mapping[str, CatalogEntry]
               ) -> tuple[list[StoredDocument], list[str]]:
        """The stored parsed forms of ``doc_ids``, and the ids that have none."""
        paths = {d: catalog[d].path for d in doc_ids if d in catalog}
        return stored_documents(doc_ids, paths, self.kb.documents.get)

    def route(self, question: str, scope: Scope, documents: Sequence[StoredDocument],
              catalog: Mapping[str, CatalogEntry]) -> RouteDecision:
        from retrieval.rule_answers import table_columns

        file_type = None
        if len(scope.doc_ids) == 1 and scope.doc_ids[0] in catalog:
            file_type = PurePath(catalog[scope.doc_ids[0]].path).suffix.lstrip(".").lower() or None
        columns = table_columns(documents) or None
        return self.router.route(question, file_type=file_type, context={"columns": columns})

    # -- search --------------------------------------------------------------------------------------
    def retrieved_scope(self, question: str, mode: str, catalog: Mapping[str, CatalogEntry]) -> Scope:
        """For a handler route with no named document: the top retrieved document(s), newest versions, those in
        the question's language first (:func:`same_language_first`)."""
        hits = search(self.kb, question, mode, 10) if catalog else []
        ranked = list(dict.fromkeys(h.doc_id for h in hits if h.doc_id in catalog))
        ranked = list(dict.fromkeys(self.superseded.get(d, d) for d in ranked))
        return Scope("retrieved", same_language_first(question, ranked, catalog)[:RETRIEVED_SCOPE_DOCUMENTS])

    def table_documents(self, question: str, mode: str, catalog: Mapping[str, CatalogEntry]) -> list[str]:
        """Documents with tables among the top retrieved ones (the table linker then picks one table)."""
        hits = search(self.kb, question, mode, 20) if catalog else []
        ranked = [self.superseded.get(h.doc_id, h.doc_id) for h in hits if h.doc_id in catalog]
        with_tables = [d for d in dict.fromkeys(ranked) if d in catalog and catalog[d].profile.has_tables]
        return with_tables[:TABLE_SCOPE_DOCUMENTS]

    def retrieve(self, ctx: QuestionContext, query: str, k: int) -> list[HitLike]:
        """Hits inside the question's scope; the words that named every document of the scope are not searched
        for (inside it they match each document alike and rank each one's title chunk first)."""
        query = without_naming_words(query, shared_naming_words(ctx.scope, ctx.catalog))
        return list(self.scoped_search(query, ctx.mode, k, ctx.scope))

    def scoped_search(self, query: str, mode: str, k: int, scope: Scope) -> list[SearchHit]:
        """Hybrid search inside the scope; hits of superseded versions give way to the newest version."""
        if not scope.retrieval or (scope.restricts and not scope.doc_ids):
            return []
        filters = {"doc_id": {"$in": list(scope.doc_ids)}} if scope.restricts else None
        hits = search(self.kb, query, mode, k, filters)
        old = [h for h in hits if h.doc_id in self.superseded] if not scope.restricts else []
        if not old:
            return hits
        newer = sorted({self.superseded[h.doc_id] for h in old})
        for h in old:
            scope.superseded.setdefault(h.doc_id, self.superseded[h.doc_id])
        replacement = search(self.kb, query, mode, k, {"doc_id": {"$in": newer}})
        kept = [h for h in hits if h.doc_id not in self.superseded]
        merged = sorted([*kept, *replacement], key=lambda h: -h.score)
        return list({h.chunk_id: h for h in merged}.values())[:k]

    def chunk_texts(self, doc_id: str) -> list[tuple[str, str, dict[str, Any]]]:
        """A document's chunks as (chunk id, text, metadata), for quoting evidence."""
        ids = self.kb.registry.chunk_ids(doc_id)
        stored = self.kb.fetch(ids) if ids else {}
        return [(cid, *stored[cid]) for cid in ids if cid in stored]

    def summaries(self) -> SummaryStore | None:
        """The summary-tree store, when one exists (a question never creates it)."""
        if self._summary_store is None:
            path = summary_store_path(self.settings)
            if not path.exists():
                return None
            self._summary_store = SummaryStore(path)
        return self._summary_store

    # -- retrieval answers ----------------------------------------------------------------------------
    def extract(self, ctx: QuestionContext, materials: Sequence[Material]) -> ExtractiveAnswer:
        compare = ctx.route == "compare"
        per_document = compare or (ctx.scope.restricts and len(ctx.scope.doc_ids) > 1)
        return self.quoting.extract(ctx.standalone, materials, ctx.language, per_document=per_document,
                                    compare=compare, ignore=naming_words(ctx.scope, ctx.catalog))

    def annotate(self, material: Material, language: str) -> Material:
        return self.quoting.annotate(material, language)

    def finish(self, ctx: QuestionContext, answer: Answer) -> Answer:
        """Scope notes before the answer, the documents it rests on after it, precise citations."""
        scope = ctx.scope
        if not scope.restricts:
            # a superseded version matters only when the answer rests on its newer version
            cited = {c.doc_id for c in answer.citations}
            scope.superseded = {old: new for old, new in scope.superseded.items() if new in cited}
        notes = [*summary_note(ctx.meta.get("summary", {}), ctx.catalog, ctx.language),
                 *scope_notes(scope, ctx.catalog, ctx.language)]
        if notes:
            answer.text = "\n".join([*notes, answer.text])
        if scope.restricts:
            answer.text = f"{answer.text}\n{based_on(scope, ctx.catalog, ctx.language)}"
        answer.metadata["scope"] = scope.to_json(ctx.catalog)
        coverage = background_coverage(self.kb, scope.doc_ids if scope.restricts else None)
        if coverage is not None:
            answer.metadata["background_model"] = coverage
        self.quoting.refine(answer.citations)
        return answer

    def present(self, ctx: QuestionContext, answer: Answer) -> Answer:
        return self.paths.relative(answer)


def knowledge_of(ctx: QuestionContext) -> Knowledge | None:
    """The question's knowledge base, or None (a bare retrieval pipeline: the knowledge answerers decline)."""
    return ctx.tools if isinstance(ctx.tools, Knowledge) else None


def bare_profile(doc_id: str, path: str) -> DocumentProfile:
    """A profile for a document indexed before profiles were stored: its file name only."""
    stem = PurePath(path).stem
    return DocumentProfile(doc_id=doc_id, title=stem, names=[stem], family=name_key(stem))


__all__ = ["Knowledge", "bare_profile", "knowledge_of"]
