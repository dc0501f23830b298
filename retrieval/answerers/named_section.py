"""A question that names a section and asks what it says ("第三节讲了什么", "核心竞争力分析讲了什么",
"公司治理一节的要点", "What does the MD&A say about liquidity and capital resources?", "Summarize the Risk Factors
section"): with no model, that section's own prose (``retrieval.section_finder``, ``retrieval.section_digest``),
its heads and lead sentences cited by page; a section the document lacks is said, with the sections it has; a
section whose name no indexed text mentions ("Summarize the History section" where no document says "history") is
said to be not found, in one line, instead of quoting whatever passage ranks first; so is a named section that no
document mentioning its name has (the documents that could have it are those whose text holds its words). A section
asked for by its place ("the first section", "the last section of en_wiki.md") is the document's outline entry at
that place; over several documents with none named, the answer asks which document is meant.

Why: the summary tree's answer to such a question starts from the document's root summary, and an extractive
summary of a 年报 chapter is mostly table rows; the reader asked for one part of the document, in its words. With a
model this answerer declines: the summary tree hands the named section's nodes to the model.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from indexing.summary.query import is_generic
from officeqa.domain import BlockType
from officeqa.text_tokens import subject_words
from retrieval.answer_texts import based_on
from retrieval.answering import Answer, notice_for
from retrieval.context import QuestionContext
from retrieval.extractive import QUESTION_WORDS
from retrieval.knowledge import Knowledge, knowledge_of, same_language_first
from retrieval.messages import text as message
from retrieval.placing import SUMMARY_ROUTE
from retrieval.report_sections import asks_amount
from retrieval.scope import Scope
from retrieval.search import search
from retrieval.section_digest import digest
from retrieval.section_finder import Section, find_section, names_a_section, outline, section_at, section_name
from retrieval.section_outline import section_position

__all__ = ["NamedSection", "asks_what_it_says"]

_ASKS = re.compile(
    r"讲了什么|说了什么|讲的是什么|讲些什么|写了什么|主要内容|要点|概括|总结|归纳|概述|简述|介绍|"
    r"summari[sz]e|overview|outline|\bdescribe\b|key\s+points|\bwhat\s+does\b.*\bsay\b|\bwhat\s+is\s+in\b",
    re.IGNORECASE,
)
#: Documents of the scope looked into, and their chunk texts kept between questions.
_DOCUMENTS = 3
#: Hits of a search for a section's name whose documents are looked into when the question names no document.
_NAME_HITS = 20
_NAMES_LISTED = 5
_CACHED = 8
_LISTED = 20
#: Words that name a section by its place, not its subject ("the first section", "the next section").
_POSITIONS = frozenset([
    "first", "second", "third", "fourth", "fifth", "last", "next", "final", "previous", "following", "preceding",
    "opening", "closing", "introductory", "concluding", "above", "below", "same", "other", "whole", "entire",
])

Chunks = list[tuple[str, str, dict[str, Any]]]
Parsed = list[tuple[str, int]]


def asks_what_it_says(question: str) -> bool:
    """An open request for what a part of the document says, not for an amount."""
    return bool(_ASKS.search(question)) and not asks_amount(question)


class NamedSection:
    """The named section's prose from the documents in scope; a named section they lack, said; else declines."""

    def __init__(self) -> None:
        self._chunks: dict[str, tuple[Chunks, Parsed]] = {}

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or ctx.failure is None or not ctx.catalog or not asks_what_it_says(ctx.standalone):
            return None
        position = section_position(ctx.standalone)  # "en_wiki.md的最后一节" names no section "en_wiki.md的最后"
        if position is not None:
            return self._placed(ctx, knowledge, *position)
        absent = unmentioned_name(knowledge, ctx.standalone)
        if absent:
            return self._absent(ctx, absent)
        named = ctx.scope.method in ("named", "explicit")
        scope = ctx.scope if named else knowledge.retrieved_scope(ctx.standalone, ctx.mode, ctx.catalog)
        doc_ids = scope.doc_ids[:_DOCUMENTS] if named else self._candidates(ctx, knowledge, scope)
        store = knowledge.summaries()
        for doc_id in doc_ids:
            chunks, parsed = self._texts(knowledge, doc_id)
            section = find_section(store, doc_id, chunks, ctx.standalone, parsed)
            if section is not None:
                return self._quote(ctx, scope if doc_id in scope.doc_ids else Scope("retrieved", [doc_id]), section)
        if not scope.doc_ids or not names_a_section(ctx.standalone):
            return None
        name = section_name(ctx.standalone)
        if not named and name and any(outline(store, d, *self._texts(knowledge, d)) for d in doc_ids):
            return self._missing(ctx, name)
        return self._lacking(ctx, knowledge, scope, scope.doc_ids[0])

    def _candidates(self, ctx: QuestionContext, knowledge: Knowledge, scope: Scope) -> list[str]:
        """With no document named: the retrieved one, then those a keyword search for the section's name finds
        (a document with a heading by that name holds its words), those in the question's language first."""
        name = section_name(ctx.standalone)
        hits = search(knowledge.kb, name, "bm25", _NAME_HITS) if name else []
        found = [knowledge.superseded.get(h.doc_id, h.doc_id) for h in hits if h.doc_id in ctx.catalog]
        ranked = same_language_first(ctx.standalone, list(dict.fromkeys(found)), ctx.catalog)
        return list(dict.fromkeys([*scope.doc_ids, *ranked]))[:_DOCUMENTS + 2]

    def _placed(self, ctx: QuestionContext, knowledge: Knowledge, index: int, phrase: str) -> Answer | None:
        """"The first section": of the one document the question is about; over several, which one is asked."""
        named = ctx.scope.method in ("named", "explicit")
        doc_ids = list(ctx.scope.doc_ids) if named else list(ctx.catalog)
        if len(doc_ids) != 1:
            return self._which(ctx, phrase, doc_ids) if doc_ids else None
        scope = ctx.scope if named else Scope("retrieved", doc_ids)
        chunks, parsed = self._texts(knowledge, doc_ids[0])
        section = section_at(knowledge.summaries(), doc_ids[0], chunks, index, parsed)
        return self._quote(ctx, scope, section) if section is not None else self._lacking(
            ctx, knowledge, scope, doc_ids[0])

    def _which(self, ctx: QuestionContext, phrase: str, doc_ids: list[str]) -> Answer:
        """One line: "the first section" is a place in one document, and the question fits several."""
        names = [_name(ctx, d) for d in doc_ids]
        comma = "; " if ctx.language == "en" else "、"
        listed = comma.join(names[:_NAMES_LISTED]) + (f"{comma}…" if len(names) > _NAMES_LISTED else "")
        text = message("section_which", ctx.language, phrase=phrase, count=len(names), names=listed,
                       example=names[0])
        meta = {**ctx.meta, "named_section": {"found": False, "position": phrase, "documents": len(names)}}
        assert ctx.failure is not None
        return ctx.reply(text, [], "extractive", notice_for(ctx.failure.reason, ctx.language), meta)

    def _missing(self, ctx: QuestionContext, name: str) -> Answer:
        """A section no document that mentions its name has: one line, no passage quoted in its place."""
        meta = {**ctx.meta, "named_section": {"found": False, "mentioned": True, "name": name}}
        assert ctx.failure is not None
        notice = notice_for(ctx.failure.reason, ctx.language)
        return ctx.reply(message("section_missing", ctx.language, name=name), [], "extractive", notice, meta)

    def _texts(self, knowledge: Knowledge, doc_id: str) -> tuple[Chunks, Parsed]:
        """A document's chunks and its parser's headings (title, level), kept for the next questions."""
        if doc_id not in self._chunks:
            if len(self._chunks) >= _CACHED:
                self._chunks.pop(next(iter(self._chunks)))
            documents, _ = knowledge.stored([doc_id], {})
            parsed = [(b.text, b.level or 1) for d in documents for b in d.parsed.blocks
                      if b.type is BlockType.HEADING and b.text.strip()]
            self._chunks[doc_id] = (knowledge.chunk_texts(doc_id), parsed)
        return self._chunks[doc_id]

    def _quote(self, ctx: QuestionContext, scope: Scope, section: Section) -> Answer:
        english = ctx.language == "en"
        lines, citations = digest(section, 0)
        name = _name(ctx, section.doc_id)
        first, last = section.pages
        pages = "" if first is None else (f"p. {first}" if first == last else f"p. {first}-{last}")
        if english:
            head = f"{section.title} of {name}" + (f" ({pages})" if pages else "") + ", in its own sentences:"
        else:
            head = f"《{name}》{section.title}" + (f"（{pages}）" if pages else "") + "的原文要点："
        text = "\n".join([head, *lines, based_on(scope, ctx.catalog, ctx.language)]).strip()
        ctx.scope = scope
        ctx.meta["route"] = {**ctx.meta.get("route", {}), "route": SUMMARY_ROUTE, "reason": "named section"}
        meta = {**ctx.meta, "scope": scope.to_json(ctx.catalog),
                "named_section": {"title": section.title, "doc_id": section.doc_id, "lines": len(lines)}}
        return ctx.reply(text, citations, "extractive", self._notice(ctx), meta)

    def _lacking(self, ctx: QuestionContext, knowledge: Knowledge, scope: Scope, doc_id: str) -> Answer | None:
        """A named section the document lacks, said with the sections it has; when its sections cannot be listed
        (no chapter headings, no summary tree) absence is not known, so it declines and later answerers search."""
        titles = outline(knowledge.summaries(), doc_id, *self._texts(knowledge, doc_id))[:_LISTED]
        if not titles:
            return None
        name = _name(ctx, doc_id)
        if ctx.language == "en":
            text = f"{name} has no section by the name the question gives. Its sections are: {'; '.join(titles)}."
        else:
            text = f"《{name}》中没有问题所说的这一章节。它的章节有：{'；'.join(titles)}。"
        ctx.scope = scope
        meta = {**ctx.meta, "scope": scope.to_json(ctx.catalog), "named_section": {"found": False, "doc_id": doc_id}}
        return ctx.reply(text, [], "extractive", self._notice(ctx, "outline_suffix"), meta)

    def _absent(self, ctx: QuestionContext, name: str) -> Answer:
        """A section whose name no indexed text spells: said in one line, never another passage in its place
        (a near-tie of dense scores would otherwise quote an unrelated document as its summary)."""
        meta = {**ctx.meta, "named_section": {"found": False, "mentioned": False, "name": name}}
        assert ctx.failure is not None
        notice = notice_for(ctx.failure.reason, ctx.language)  # as every "not found" without a model
        return ctx.reply(message("section_absent", ctx.language, name=name), [], "extractive", notice, meta)

    @staticmethod
    def _notice(ctx: QuestionContext, suffix: str = "section_suffix") -> str:
        """Why no model answered, and what follows: the section's own sentences (``digest`` quotes them), or the
        document's headings when it lacks the section."""
        assert ctx.failure is not None
        return notice_for(ctx.failure.reason, ctx.language, suffix=suffix)


def unmentioned_name(knowledge: Knowledge, question: str) -> str:
    """The name the question gives its section when no indexed chunk mentions one of its words ("History" in a
    knowledge base without the word), else "". A section named by number, or by position ("the first section"),
    is not judged here."""
    name = section_name(question)
    words = [w for w in subject_words(name)
             if w not in QUESTION_WORDS and w not in _POSITIONS and not is_generic(w)]
    return name if any(not knowledge.kb.bm25.mentions(w) for w in words) else ""


def _name(ctx: QuestionContext, doc_id: str) -> str:
    entry = ctx.catalog.get(doc_id)
    return PurePath(entry.path).name if entry is not None else doc_id
