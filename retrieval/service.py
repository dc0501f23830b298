"""The one question path: every shell (CLI ``ask``, HTTP chat and OpenAI endpoints, eval harness,
summary builder) answers through :class:`QuestionService`.

Order of the steps, each in its own module:

1. follow-up rewriting (``retrieval.followup``), with the model when one answers, else a rule;
2. L0 routing (``retrieval.l0``) of the standalone question;
3. scope (``retrieval.scope``): the documents given, else the documents the question names,
   else the top retrieved ones; of two versions of one document the newest wins;
4. a deterministic handler over the STORED parsed documents (``indexing.document_store``) —
   questions never parse source files — rendered with quoted evidence (``retrieval.rule_answers``);
   or hybrid retrieval inside the scope, prompt assembly and the model, or the extractive
   fallback (``retrieval.answering``);
5. citations and an account of the work (route, scope, retrieval, budget, timings) in the
   answer's metadata.

Long-lived resources (knowledge base, embedder, compiled rules, generator client) are built
once and passed in; :meth:`QuestionService.open` builds them from settings for shells.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from indexing.profile import DocumentProfile, name_key
from indexing.registry import INDEXED
from indexing.summary import (
    SummaryBuilder,
    SummaryContext,
    SummaryStore,
    document_source,
    summary_materials,
    summary_store_path,
)
from officeqa.errors import DocumentNotFound
from officeqa.settings import Settings
from officeqa.text_tokens import subject_words, tokenize_for_bm25
from prompts.assembler import Material, split_sentences
from prompts.language import detect_language
from retrieval.answering import Answer, AnswerEvent, AnswerPipeline, handler_material, notice_for
from retrieval.citations import citation_from_metadata
from retrieval.evidence import QuoteLocator
from retrieval.extractive import ExtractiveAnswer, extractive_answer
from retrieval.followup import Rewrite, Turn, rewrite_followup
from retrieval.l0 import L0Router, RouteDecision, get_router, run_handler
from retrieval.messages import text as message
from retrieval.rule_answers import StoredDocument, render_rule_answer, stored_documents, table_columns
from retrieval.rules.arbitration import DEFAULT_ROUTE
from retrieval.rules.loader import HANDLER_ROUTES
from retrieval.scope import CatalogEntry, Scope, newest_versions, resolve_explicit, resolve_named
from retrieval.search import SearchHit, search, without_naming_words
from retrieval.tables.answer import TABLE_ROUTES, answer_for_route

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.embeddings import Embedder
    from officeqa.generation import OllamaGenerator

#: Handler routes answered from retrieval's top document when the question names none.
RETRIEVED_SCOPE_DOCUMENTS = 1
#: Table refusals that mean "not a question about these tables": retrieval answers instead.
NOT_TABLE_QUESTIONS = ("no_table", "no_link")
#: Words that ask for a computation over rows: a question routed to plain retrieval that has one is also tried
#: on the stored tables (only an exact table answer is used).
_COMPUTES = re.compile(
    r"how many|in total|\btotal\b|\bsum\b|average|\bmean\b|(?:the )?(?:most|least|fewest|highest|lowest|largest|"
    r"smallest)\b|maximum|minimum|合计|总计|共计|一共|总共|加起来|平均|最高|最低|最多|最少|最大|最小|多少个|多少条|"
    r"多少笔|多少家|多少人|几个|几条|几笔|几家",
    re.IGNORECASE,
)
#: Documents with tables (from the top retrieved) the table linker chooses among when the question names none.
TABLE_SCOPE_DOCUMENTS = 5
#: The L0 route of whole-document questions ("总结", "概括第四章", "overview"): answered from the summary tree.
SUMMARY_ROUTE = "summary_tree"
_LOCATOR_CACHE = 32
#: Words of a comparison question that name no content ("对比新旧两版…有哪些变化").
COMPARE_WORDS = ("对比", "比较", "新旧", "两版", "变化", "区别", "差异", "不同", "compare", "difference", "changed")
#: Weight of a one-character Chinese question word (去, 报, 能) against its idf.
SINGLE_CHARACTER_WEIGHT = 0.3

History = Sequence[Turn | Mapping[str, str]]


def to_turns(history: History) -> list[Turn]:
    """Chat history as turns: ``Turn`` objects, or ``{"role": "user"|"assistant", "content"}`` messages."""
    turns: list[Turn] = []
    for item in history:
        if isinstance(item, Turn):
            turns.append(item)
            continue
        role, content = str(item.get("role", "")), str(item.get("content", ""))
        if role == "user":
            turns.append(Turn(question=content))
        elif role == "assistant" and turns and not turns[-1].answer:
            turns[-1].answer = content
    return turns


class QuestionService:
    """Answers questions over one knowledge base; build once, call :meth:`answer` many times."""

    def __init__(
        self,
        settings: Settings,
        kb: KnowledgeBase,
        generator: OllamaGenerator | None = None,
        *,
        router: L0Router | None = None,
        owns_resources: bool = False,
    ) -> None:
        self.settings = settings
        self.kb = kb
        self.generator = generator
        self.router = router or get_router(settings)
        self._owns = owns_resources
        self._catalog: dict[str, CatalogEntry] = {}
        self._catalog_marker: tuple[int, int] | None = None
        self._superseded: dict[str, str] = {}
        self._locators: OrderedDict[str, QuoteLocator] = OrderedDict()
        self._summary_store: SummaryStore | None = None

    @classmethod
    def open(
        cls, settings: Settings, *, generator: OllamaGenerator | str | None = "ollama", embedder: Embedder | None = None
    ) -> QuestionService:
        """A service over the knowledge base ``settings`` name; ``generator="ollama"`` talks to settings.ollama,
        ``None`` never calls a model (extractive answers). Use as a context manager or call :meth:`close`."""
        from indexing.knowledge_base import KnowledgeBase

        kb = KnowledgeBase.open(settings, embedder)
        if generator == "ollama":
            from officeqa.generation import OllamaGenerator

            generator = OllamaGenerator(settings.ollama)
        return cls(settings, kb, generator if not isinstance(generator, str) else None, owns_resources=True)

    def close(self) -> None:
        if self._summary_store is not None:
            self._summary_store.close()
            self._summary_store = None
        if self._owns:
            if self.generator is not None:
                self.generator.close()
            self.kb.close()

    def __enter__(self) -> QuestionService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the entry point -------------------------------------------------------------------------
    def ask(self, question: str, **kwargs: Any) -> Answer:
        """The whole answer at once (see :meth:`answer` for the arguments)."""
        for event in self.answer(question, stream=False, **kwargs):
            if event.answer is not None:
                return event.answer
        raise AssertionError("the service always ends with an answer")  # pragma: no cover

    def answer(
        self,
        question: str,
        *,
        documents: Sequence[str] | None = None,
        history: History = (),
        stream: bool = False,
        mode: str = "hybrid",
    ) -> Iterator[AnswerEvent]:
        """Yield ``delta`` events while a model writes (``stream=True``), then one ``answer`` event.

        ``documents``: paths or doc ids the question is about (else the question's own words
        and retrieval decide); ``history``: earlier turns for follow-up questions.
        """
        started = time.monotonic()
        language = detect_language(question)
        failure = AnswerPipeline(self.settings, _no_retrieval, self.generator).probe()
        turns = to_turns(history)
        rewrite = rewrite_followup(question, turns, self.generator if failure is None else None)
        standalone = rewrite.standalone
        catalog = self.catalog()
        if not catalog:  # nothing indexed yet: say how to start, not "nothing matches"
            yield AnswerEvent("answer", answer=self._final(Answer(
                message("empty_kb", language), [], "extractive", question, standalone, language, None,
                {"rewrite": {"standalone": standalone, "method": rewrite.method}, "scope": {"method": "empty"}}),
                started))
            return
        scope = self._scope(standalone, documents, catalog)
        stored = self._stored(scope.doc_ids, catalog) if scope.doc_ids else ([], [])
        decision = self._route(standalone, scope, stored[0], catalog)
        if decision.route == DEFAULT_ROUTE and scope.method in ("named", "explicit") and scope.doc_ids:
            # "zh_test.txt 讲了什么？": with the name read as "this document" the question asks for the document as
            # a whole; only such routes (summary, outline) are taken from the second reading
            deictic = strip_names(standalone, self._naming_words(scope, catalog), "这份文件" if language == "zh"
                                  else "this document")
            again = self._route(deictic, scope, stored[0], catalog) if deictic != standalone else decision
            if again.route in (SUMMARY_ROUTE, "outline"):
                decision = again
        base = {
            "route": decision.to_json(),
            "rewrite": {"standalone": standalone, "method": rewrite.method},
        }
        extra: list[Material] = []
        rule_fallback: Answer | None = None
        if decision.route == SUMMARY_ROUTE:
            if scope.method in ("retrieved", "all"):
                scope = self._retrieved_scope(standalone, mode, catalog)
            summary = self._summary_context(standalone, scope, catalog)
            if summary is not None and summary.materials:
                base["summary"] = {"named_sections": summary.named, "extractive": summary.extractive,
                                   "tokens": summary.tokens}
                if failure is not None:
                    yield AnswerEvent("answer", answer=self._summary_answer(
                        question, rewrite, language, summary, failure, scope, catalog, base, started))
                    return
                extra.extend(summary.materials)
                scope = Scope(scope.method, scope.doc_ids, scope.superseded, scope.matched, scope.unknown,
                              retrieval=False)
        if decision.mode in ("answer", "handler_then_model") and decision.route in HANDLER_ROUTES:
            if scope.method == "retrieved":
                scope = self._retrieved_scope(standalone, mode, catalog)
                stored = self._stored(scope.doc_ids, catalog)
            table = self._table_answer(decision, standalone, scope, language, mode, catalog) \
                if decision.route in TABLE_ROUTES else None
            if table is not None and table.result.data.get("kind") in NOT_TABLE_QUESTIONS:
                base["handler_skipped"] = table.result.data.get("reason", "")
            elif decision.mode == "handler_then_model" and failure is not None and table is None:
                # a low-confidence rule and no model to weigh its result: quoting the documents is safer
                base["handler_skipped"] = "low-confidence rule and no model to check it"
            elif table is not None:
                rule = self._table_rule(table, question, rewrite, language, catalog, base, started)
                if table.result.outcome == "exact" or failure is not None:
                    yield AnswerEvent("answer", answer=rule)  # exact, or a refusal shown as it is (no model)
                    return
                rule_fallback = rule  # refused: its candidates go to the model as material
                extra.append(handler_material(decision, rule.text))
            elif decision.route in TABLE_ROUTES and not table_columns(stored[0]):
                # a count/aggregate over documents without tables: the rule cannot apply ("内测用户数达到多少人"
                # asks for a stated figure); retrieval answers, and the metadata says why
                base["handler_skipped"] = "no table in the documents in scope"
            else:
                rule = self._rule_answer(question, rewrite, language, decision, scope, stored, catalog, base,
                                         started)
                empty = rule.metadata.get("handler", {}).get("items") == []
                if decision.mode == "answer":
                    yield AnswerEvent("answer", answer=rule)
                    return
                if empty:
                    # a low-confidence rule that found nothing ("未找到金额" for an amount in a table cell): its
                    # "none" is no evidence, so the model reads the retrieved passages without it
                    base["handler_skipped"] = "low-confidence rule found nothing"
                else:
                    rule_fallback = rule
                    extra.append(handler_material(decision, rule.text))
        elif decision.route == DEFAULT_ROUTE and _COMPUTES.search(standalone):
            # no rule routed it to the tables, but it asks for a computation ("Which team won the Stanley Cup the
            # most times?"): an exact table answer wins; anything short of exact leaves the question to retrieval
            probe = self._table_answer(replace(decision, route="table_aggregate"), standalone, scope, language,
                                       mode, catalog)
            base["table_probe"] = probe.result.outcome if probe is not None else "no table"
            if probe is not None and probe.result.outcome == "exact":
                yield AnswerEvent("answer", answer=self._table_rule(probe, question, rewrite, language, catalog, base,
                                                                     started))
                return
        yield from self._retrieval_answer(
            question, turns, rewrite, failure, scope, catalog, extra, rule_fallback, base, stream, mode,
            language, started,
        )

    # -- catalog and scope -------------------------------------------------------------------------
    def catalog(self) -> dict[str, CatalogEntry]:
        """Indexed documents with their profiles (cached until the registry changes)."""
        marker = self.kb.registry.change_marker()
        if marker != self._catalog_marker:
            records = [r for r in self.kb.registry.documents(statuses=[INDEXED])]
            profiles = self.kb.documents.profiles()
            catalog: dict[str, CatalogEntry] = {}
            for record in records:
                if record.doc_id in catalog:
                    continue
                profile = profiles.get(record.doc_id) or _bare_profile(record.doc_id, record.path)
                catalog[record.doc_id] = CatalogEntry(record.doc_id, record.path, profile, record.mtime)
            self._catalog = catalog
            self._superseded = newest_versions(list(catalog), catalog)[1]
            self._catalog_marker = marker
        return self._catalog

    def _scope(self, question: str, documents: Sequence[str] | None, catalog: Mapping[str, CatalogEntry]) -> Scope:
        if documents:
            scope = resolve_explicit(documents, catalog)
            kept, superseded = newest_versions(scope.doc_ids, catalog)
            scope.doc_ids, scope.superseded = kept, superseded
            return scope
        return resolve_named(question, catalog) or Scope("retrieved")

    def _retrieved_scope(self, question: str, mode: str, catalog: Mapping[str, CatalogEntry]) -> Scope:
        """For a handler route with no named document: the top retrieved document(s), newest versions."""
        hits = search(self.kb, question, mode, 10) if catalog else []
        ranked = list(dict.fromkeys(h.doc_id for h in hits if h.doc_id in catalog))
        ranked = [self._superseded.get(d, d) for d in ranked]
        ranked = list(dict.fromkeys(ranked))[:RETRIEVED_SCOPE_DOCUMENTS]
        return Scope("retrieved", ranked)

    def _stored(self, doc_ids: Sequence[str], catalog: Mapping[str, CatalogEntry]) -> tuple[list[StoredDocument],
                                                                                         list[str]]:
        paths = {d: catalog[d].path for d in doc_ids if d in catalog}
        return stored_documents(doc_ids, paths, self.kb.documents.get)

    def _route(self, question: str, scope: Scope, documents: Sequence[StoredDocument],
               catalog: Mapping[str, CatalogEntry]) -> RouteDecision:
        file_type = None
        if len(scope.doc_ids) == 1 and scope.doc_ids[0] in catalog:
            file_type = PurePath(catalog[scope.doc_ids[0]].path).suffix.lstrip(".").lower() or None
        columns = table_columns(documents) or None
        return self.router.route(question, file_type=file_type, context={"columns": columns})

    # -- handler answers ---------------------------------------------------------------------------
    # -- summary-tree answers ----------------------------------------------------------------------
    def _summaries(self) -> SummaryStore:
        if self._summary_store is None:
            self._summary_store = SummaryStore(summary_store_path(self.settings))
        return self._summary_store

    def _summary_context(
        self, question: str, scope: Scope, catalog: Mapping[str, CatalogEntry]
    ) -> SummaryContext | None:
        """The tree materials of the scope's documents; a missing tree is built now, extractively (about a
        second per 100 pages), so a global question never waits for a model (``officeqa summarize`` upgrades it)."""
        if not scope.doc_ids:
            return None
        store = self._summaries()
        ollama = self.settings.ollama
        budget = int((ollama.num_ctx - ollama.answer_reserve_tokens) * ollama.materials_share)
        context = summary_materials(store, question, scope.doc_ids, budget)
        if context.missing:
            with SummaryBuilder(self.settings, store, None) as builder:
                for doc_id in context.missing:
                    entry = catalog.get(doc_id)
                    try:
                        builder.build(document_source(self.kb, doc_id, entry.path if entry else None))
                    except DocumentNotFound:
                        continue  # no stored form (indexed before) or no text: retrieval answers instead
            context = summary_materials(store, question, scope.doc_ids, budget)
        return context

    def _summary_answer(
        self,
        question: str,
        rewrite: Rewrite,
        language: str,
        summary: SummaryContext,
        failure: Any,
        scope: Scope,
        catalog: Mapping[str, CatalogEntry],
        base: dict[str, Any],
        started: float,
    ) -> Answer:
        """No model: the tree's own summaries, cited by section and pages."""
        citations = []
        for n, material in enumerate(summary.materials, start=1):
            quote = next((s.strip() for s in split_sentences(material.text) if s.strip()), "")
            citations.append(citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")),
                                                    material.meta, quote))
        text = "\n".join([summary.answer, self._based_on(scope, catalog, language)]).strip()
        notice = notice_for(failure.reason, language, suffix="summary_suffix")
        metadata = {**base, "scope": scope.to_json(catalog), "failure": {"kind": failure.reason}}
        return self._final(Answer(text, citations, "extractive", question, rewrite.standalone, language, notice,
                                  metadata), started)

    def _rule_answer(
        self,
        question: str,
        rewrite: Rewrite,
        language: str,
        decision: RouteDecision,
        scope: Scope,
        stored: tuple[list[StoredDocument], list[str]],
        catalog: Mapping[str, CatalogEntry],
        base: dict[str, Any],
        started: float,
    ) -> Answer:
        documents, missing = stored
        lines = self._scope_notes(scope, catalog, language)
        for doc_id in missing:
            lines.append(message("not_stored", language, document=_name(doc_id, catalog)))
        if not documents:
            text = "\n".join([*lines, message("no_documents", language)]) if not missing else "\n".join(lines)
            return self._final(Answer(text, [], "rule", question, rewrite.standalone, language, None,
                                      {**base, "scope": scope.to_json(catalog), "handler": {"items": []}}), started)
        result = run_handler(decision, [d.parsed for d in documents])
        return self._render_result(question, rewrite, language, result, scope, (documents, []), catalog, base,
                                   started, lines)

    def _render_result(
        self,
        question: str,
        rewrite: Rewrite,
        language: str,
        result: Any,
        scope: Scope,
        stored: tuple[list[StoredDocument], list[str]],
        catalog: Mapping[str, CatalogEntry],
        base: dict[str, Any],
        started: float,
        lines: list[str] | None = None,
    ) -> Answer:
        """A handler or table result as an answer: the text, its evidence quotes, the documents used."""
        lines = lines if lines is not None else self._scope_notes(scope, catalog, language)
        body, citations = render_rule_answer(result, stored[0], self._chunk_texts, language)
        text = "\n".join([*lines, body, self._based_on(scope, catalog, language)]).strip()
        metadata = {**base, "scope": scope.to_json(catalog), "handler": result.to_json()}
        return self._final(Answer(text, citations, "rule", question, rewrite.standalone, language, None, metadata),
                           started)

    # -- stored tables -------------------------------------------------------------------------------
    def _table_answer(
        self, decision: RouteDecision, question: str, scope: Scope, language: str, mode: str,
        catalog: Mapping[str, CatalogEntry],
    ) -> _TableAnswer | None:
        """A count / aggregate / list question over the stored tables: exact, or a refusal naming what is
        ambiguous. None when no stored table is in scope (old knowledge bases: the parsed-document handlers)."""
        if scope.restricts or scope.method == "all":
            doc_ids = list(scope.doc_ids)
        else:
            doc_ids = self._table_documents(question, mode, catalog)
            scope = Scope("retrieved", doc_ids)
        if not doc_ids:
            return None
        names = self._naming_words(scope, catalog) if scope.restricts else []
        with self.kb.tables_for(doc_ids) as store:  # the backend's table store (a DuckDB file, or a cache)
            if store is None:
                return None
            # a word that named the document but is also a column ("Stanley Cups" of stanley-cups.csv) stays
            columns = {c.name.casefold() for t in store.tables(doc_ids) for c in t.columns}
            asked = strip_names(question, [n for n in names if n.casefold() not in columns])
            result = answer_for_route(decision.route, asked, store, doc_ids, language)
        if result is None:
            return None
        used = [d for d in doc_ids if any(str(p.file) == catalog[d].path for i in result.items for p in i.citations)
                if d in catalog] or doc_ids
        return _TableAnswer(result, Scope(scope.method, used, scope.superseded, scope.matched), used)

    def _table_rule(self, table: _TableAnswer, question: str, rewrite: Rewrite, language: str,
                    catalog: Mapping[str, CatalogEntry], base: dict[str, Any], started: float) -> Answer:
        """A table result as the answer, citing the documents whose tables it read."""
        documents = self._stored([d for d in dict.fromkeys(table.doc_ids) if d in catalog], catalog)
        return self._render_result(question, rewrite, language, table.result, table.scope, documents, catalog, base,
                                   started)

    def _table_documents(self, question: str, mode: str, catalog: Mapping[str, CatalogEntry]) -> list[str]:
        """Documents with tables among the top retrieved ones (the table linker then picks one table)."""
        hits = search(self.kb, question, mode, 20) if catalog else []
        ranked = [self._superseded.get(h.doc_id, h.doc_id) for h in hits if h.doc_id in catalog]
        with_tables = [d for d in dict.fromkeys(ranked) if d in catalog and catalog[d].profile.has_tables]
        return with_tables[:TABLE_SCOPE_DOCUMENTS]

    def _chunk_texts(self, doc_id: str) -> list[tuple[str, str, dict[str, Any]]]:
        ids = self.kb.registry.chunk_ids(doc_id)
        stored = self.kb.fetch(ids) if ids else {}
        return [(cid, *stored[cid]) for cid in ids if cid in stored]

    # -- retrieval answers -------------------------------------------------------------------------
    def _pipeline(
        self, mode: str, scope: Scope, per_document: bool, compare: bool, ignore: Sequence[str]
    ) -> AnswerPipeline:
        """A pipeline whose retrieval stays inside this question's scope (built per question: no shared state)."""

        def retrieve(query: str, k: int) -> list[SearchHit]:
            return self._scoped_search(without_naming_words(query, ignore), mode, k, scope)

        def extract(question: str, materials: Sequence[Material], language: str) -> ExtractiveAnswer:
            ignored_words = {t for text in ignore for t in tokenize_for_bm25(text)}
            retrieved = "".join(m.text for m in materials)
            missing = [w for w in subject_words(question)
                       if w not in ignored_words and w not in retrieved and not self.kb.bm25.mentions(w)]
            return extractive_answer(
                question, materials, language=language, tokenize=tokenize_for_bm25, weights=self._weight,
                label_of=lambda material, sentence: self._label(material, sentence, language),
                context_of=self._context, similarity=self._similarity, per_document=per_document,
                compare=compare, ignore=ignore, missing_subjects=missing,
            )

        return AnswerPipeline(self.settings, retrieve, self.generator, extract=extract, annotate=self._annotate)

    def _annotate(self, material: Material, language: str) -> Material:
        locator = self._locator(str(material.meta.get("doc_id", "")))
        if locator is None:
            return material
        text = locator.annotate(material.text, language)
        return material if text == material.text else replace(material, text=text)

    def _weight(self, term: str) -> float:
        """How much a question word matters: its idf in this knowledge base.

        A word no chunk contains gets half the maximum (it may be the subject the documents lack,
        "年终奖", or a phrasing they do not use, "每晚"); a lone Chinese character weighs little.
        """
        bm25 = self.kb.bm25
        weight = bm25.idf(term) if bm25.document_frequency(term) else 0.5 * bm25.idf(term)
        if len(term) == 1 and "\u4e00" <= term <= "\u9fff":
            weight *= SINGLE_CHARACTER_WEIGHT
        return weight

    def _context(self, material: Material) -> str:
        """A table chunk's lead-in (the paragraph before its table, and its caption), from the stored document."""
        if str(material.meta.get("kind", "")) not in ("table", "oversize_table"):
            return ""
        locator = self._locator(str(material.meta.get("doc_id", "")))
        return locator.table_context(material.text) if locator is not None else ""

    def _similarity(self, question: str, sentences: list[str]) -> list[float]:
        """Cosine similarity in the embedder's space (multilingual: bridges Chinese and English)."""
        embedder = self.kb.embedder
        query = embedder.embed_query(question)
        matrix = embedder.embed_documents(sentences, batch_size=self.settings.embedding.batch_size)
        return [float(x) for x in matrix @ query]

    def _locator(self, doc_id: str) -> QuoteLocator | None:
        locator = self._locators.get(doc_id)
        if locator is None:
            parsed = self.kb.documents.get(doc_id) if doc_id else None
            if parsed is None:
                return None
            locator = self._locators[doc_id] = QuoteLocator(parsed)
            while len(self._locators) > _LOCATOR_CACHE:
                self._locators.popitem(last=False)
        return locator

    def _label(self, material: Material, sentence: str, language: str) -> str | None:
        locator = self._locator(str(material.meta.get("doc_id", "")))
        return locator.label(sentence, language) if locator is not None else None

    def _refine_citations(self, answer: Answer) -> None:
        """Each quote's own section and page, from the stored document (a chunk may span several)."""
        for citation in answer.citations:
            locator = self._locator(citation.doc_id)
            if locator is not None:
                locator.refine(citation)

    def _scoped_search(self, query: str, mode: str, k: int, scope: Scope) -> list[SearchHit]:
        """Hybrid search inside the scope; hits of superseded versions give way to the newest version."""
        if not scope.retrieval or (scope.restricts and not scope.doc_ids):
            return []
        filters = {"doc_id": {"$in": list(scope.doc_ids)}} if scope.restricts else None
        hits = search(self.kb, query, mode, k, filters)
        if scope.restricts or not self._superseded:
            return hits
        old = [h for h in hits if h.doc_id in self._superseded]
        if not old:
            return hits
        newer = sorted({self._superseded[h.doc_id] for h in old})
        for h in old:
            scope.superseded.setdefault(h.doc_id, self._superseded[h.doc_id])
        replacement = search(self.kb, query, mode, k, {"doc_id": {"$in": newer}})
        kept = [h for h in hits if h.doc_id not in self._superseded]
        merged = sorted([*kept, *replacement], key=lambda h: -h.score)
        return list({h.chunk_id: h for h in merged}.values())[:k]

    def _retrieval_answer(
        self,
        question: str,
        turns: list[Turn],
        rewrite: Rewrite,
        failure: Any,
        scope: Scope,
        catalog: Mapping[str, CatalogEntry],
        extra: list[Material],
        rule_fallback: Answer | None,
        base: dict[str, Any],
        stream: bool,
        mode: str,
        language: str,
        started: float,
    ) -> Iterator[AnswerEvent]:
        compare = decision_route(base) == "compare"
        per_document = compare or (scope.restricts and len(scope.doc_ids) > 1)
        pipeline = self._pipeline(mode, scope, per_document, compare, self._naming_words(scope, catalog))
        background = "、".join(_name(d, catalog) for d in scope.doc_ids) if scope.restricts else ""
        for event in pipeline.stream(question, turns, scope=background, extra=extra, streaming=stream,
                                     rewrite=rewrite, probed=(failure,)):
            if event.answer is None:
                yield event
                continue
            answer = event.answer
            if rule_fallback is not None and answer.mode == "extractive":
                # No model to weigh a low-confidence rule result: show it as it is, with a notice.
                kind = (answer.metadata.get("failure") or {"kind": "no_model"})["kind"]
                rule_fallback.notice = notice_for(kind, language, suffix="rule_suffix")
                rule_fallback.metadata["failure"] = answer.metadata.get("failure") or {"kind": "no_model"}
                yield AnswerEvent("answer", answer=rule_fallback)
                return
            if not scope.restricts:
                # a superseded version matters only when the answer rests on its newer version
                cited = {c.doc_id for c in answer.citations}
                scope.superseded = {old: new for old, new in scope.superseded.items() if new in cited}
            notes = self._scope_notes(scope, catalog, language)
            if notes:
                answer.text = "\n".join([*notes, answer.text])
            if scope.restricts:
                answer.text = f"{answer.text}\n{self._based_on(scope, catalog, language)}"
            answer.metadata = {**base, **answer.metadata, "scope": scope.to_json(catalog)}
            self._refine_citations(answer)
            self._final(answer, started)
            yield AnswerEvent("answer", answer=answer)

    @staticmethod
    def _naming_words(scope: Scope, catalog: Mapping[str, CatalogEntry]) -> list[str]:
        """Words that chose the documents (the matched names and titles, "对比新旧两版"): not asked about."""
        if not scope.restricts:
            return []
        words = [*scope.matched.values(), *COMPARE_WORDS]
        for doc_id in scope.doc_ids:
            entry = catalog.get(doc_id)
            if entry is not None:
                words.extend([entry.title, PurePath(entry.path).stem])
        return words

    # -- texts ------------------------------------------------------------------------------------
    def _scope_notes(self, scope: Scope, catalog: Mapping[str, CatalogEntry], language: str) -> list[str]:
        lines = []
        if scope.unknown:
            lines.append(message("scope_unknown", language, documents=", ".join(scope.unknown)))
        for older, newer in scope.superseded.items():
            entry = catalog.get(newer)
            version = (entry.profile.version if entry and entry.profile.version else "") or "—"
            lines.append(message("newest_version", language, newer=_name(newer, catalog),
                                 older=_name(older, catalog), version=version))
        return lines

    @staticmethod
    def _based_on(scope: Scope, catalog: Mapping[str, CatalogEntry], language: str) -> str:
        if not scope.doc_ids:
            return ""
        names = "、".join(_name(d, catalog) for d in scope.doc_ids) if language == "zh" else ", ".join(
            _name(d, catalog) for d in scope.doc_ids)
        key = "scope_retrieved" if scope.method == "retrieved" else "scope_named"
        return message(key, language, documents=names)

    @staticmethod
    def _final(answer: Answer, started: float) -> Answer:
        timings = answer.metadata.setdefault("timings", {})
        timings["total_s"] = round(time.monotonic() - started, 4)
        return answer


def strip_names(question: str, names: Sequence[str], replacement: str = " ") -> str:
    """The question without the words that named its documents ("供应商名录里", "年报中"): the table linker
    must not read them as columns or values. ``replacement``: what stands in their place ("这份文件")."""
    out = question
    for name in sorted({n for n in names if n and len(n) >= 2}, key=len, reverse=True):
        out = re.sub(re.escape(name) + r"(?:\.\w{2,5})?(?:里面|里|中|内|上|的)?", f" {replacement} ", out,
                     flags=re.IGNORECASE)
    return " ".join(out.split()) or question


def decision_route(base: Mapping[str, Any]) -> str:
    return str(base.get("route", {}).get("route", ""))


def _no_retrieval(query: str, k: int) -> list[SearchHit]:
    return []


def _name(doc_id: str, catalog: Mapping[str, CatalogEntry]) -> str:
    """The file name; when another indexed document has the same name, with its folder and stated version."""
    entry = catalog.get(doc_id)
    if entry is None:
        return doc_id[:12]
    name = PurePath(entry.path).name
    if sum(1 for other in catalog.values() if PurePath(other.path).name == name) > 1:
        folder = PurePath(entry.path).parent.name
        version = f" ({entry.profile.version})" if entry.profile.version else ""
        return f"{folder}/{name}{version}"
    return name


def _bare_profile(doc_id: str, path: str) -> DocumentProfile:
    """A profile for a document indexed before profiles were stored: its file name only."""
    stem = PurePath(path).stem
    return DocumentProfile(doc_id=doc_id, title=stem, names=[stem], family=name_key(stem))


@dataclass(slots=True)
class _TableAnswer:
    result: Any
    scope: Scope
    doc_ids: list[str]


__all__ = ["QuestionService", "to_turns"]
