"""Named facts of reports (法定代表人, 会计师事务所 and 签字会计师, 注册地址, 股票代码, 利润分配预案, auditor, CEO, CFO,
principal executive offices, ticker) answered from the report's own key-value layout, sentences and signatures
(``retrieval.named_facts``), with no model: the value, its page and the row quoted.

Which reports: those the question names or the caller gave (scope by company: never a name from another
company's report); a question naming no document is answered from the top retrieved document when that is a
report, and the answer names it. A field the report does not print is said so; when none of the asked
fields is found the question goes on to retrieval (quoted passages), never to a guess.
"""

from __future__ import annotations

from retrieval.answerers.handover import Resolution, complete_or_hand_over
from retrieval.answering import Answer
from retrieval.asks import split_asks
from retrieval.citations import Citation
from retrieval.context import QuestionContext
from retrieval.knowledge import Knowledge, knowledge_of
from retrieval.named_facts.answer import ReportReading, write_answer
from retrieval.named_facts.extract import FactCache
from retrieval.named_facts.fields import asked_fields
from retrieval.named_facts.question import wanted_fields
from retrieval.named_facts.share_class import unlisted_class_answer
from retrieval.placing import SUMMARY_ROUTE
from retrieval.rule_answers import StoredDocument
from retrieval.scope import Scope

#: The route the metadata names (a named fact is a report fact: the eval's annual tasks expect this route); the
#: metadata's ``named_facts`` says this answerer answered and which fields were asked.
ROUTE = "report_facts"


class NamedFacts:
    """Answers a named-field question from the reports in scope, or declines."""

    def __init__(self) -> None:
        self.cache = FactCache()

    def answer(self, ctx: QuestionContext) -> Answer | None:
        knowledge = knowledge_of(ctx)
        if knowledge is None or not ctx.catalog or ctx.route == SUMMARY_ROUTE:
            return None
        fields = wanted_fields(ctx.standalone)
        if not fields:
            return None
        readings = [self._reading(ctx, knowledge, d) for d in _reports(ctx, knowledge)]
        if not readings:
            return None
        unlisted = unlisted_class_answer(ctx.standalone, fields, readings, ctx.language != "zh")
        if unlisted is not None:  # "H股股票代码" of a report listing no H share: said so, not its A-share code
            text, reading = unlisted
            metadata = {**ctx.meta, "scope": Scope(ctx.scope.method, [reading.doc_id]).to_json(ctx.catalog),
                        "named_facts": {"fields": fields, "unlisted_class": True}}
            return ctx.reply(text, [], "rule", metadata=metadata)
        written = write_answer(readings, fields, english=ctx.language != "zh")
        if not written.found:
            return None
        citations = [
            Citation(file=r.path, page=f.page, n=n, doc_id=r.doc_id, document=r.document, quote=f.quote)
            for n, (r, f) in enumerate(written.cited, start=1)
        ]
        scope = ctx.scope if ctx.scope.doc_ids else Scope(ctx.scope.method, [r.doc_id for r in readings])
        metadata = {**ctx.meta, "scope": scope.to_json(ctx.catalog), "named_facts": {"fields": fields}}
        metadata["route"] = {**metadata.get("route", {}), "route": ROUTE}
        answer = ctx.reply(written.text, citations, "rule", metadata=metadata)
        return complete_or_hand_over(ctx, answer, resolution(ctx.standalone, fields, readings), "named_facts")

    def _reading(self, ctx: QuestionContext, knowledge: Knowledge, document: StoredDocument) -> ReportReading:
        entry = ctx.catalog[document.doc_id]
        subject = entry.profile.subject
        company = ctx.scope.matched.get(document.doc_id) or (subject.entity if subject else "") or entry.title
        return ReportReading(document.doc_id, document.path, company, knowledge.paths.shown(document.path),
                             self.cache.facts(document.doc_id, document.parsed))


def resolution(question: str, fields: list[str], readings: list[ReportReading]) -> Resolution:
    """Each ask of the question resolved when it asks for a field and every report in scope prints each field it
    asks for ("which firm audited, and what opinion?": the opinion is no field, so that ask stays open)."""
    asks = split_asks(question)
    resolved = []
    for ask in asks:
        wanted = fields if len(asks) == 1 else [f for f in asked_fields(ask) if f in fields]
        if wanted and all(r.facts.get(f) for r in readings for f in wanted):
            resolved.append(ask)
    return Resolution(asks, resolved=resolved)


def _is_report(ctx: QuestionContext, doc_id: str) -> bool:
    entry = ctx.catalog.get(doc_id)
    subject = entry.profile.subject if entry is not None else None
    return bool(subject and subject.kind)


def _reports(ctx: QuestionContext, knowledge: Knowledge) -> list[StoredDocument]:
    """The stored reports in scope: named or given ones, else the top retrieved document if it is a report."""
    if ctx.scope.method in ("named", "explicit"):
        return [d for d in ctx.stored if _is_report(ctx, d.doc_id)]
    if ctx.scope.method != "retrieved" or not any(_is_report(ctx, d) for d in ctx.catalog):
        return []
    scope = knowledge.retrieved_scope(ctx.standalone, ctx.mode, ctx.catalog)
    stored, _ = knowledge.stored([d for d in scope.doc_ids if _is_report(ctx, d)], ctx.catalog)
    return stored


__all__ = ["ROUTE", "NamedFacts"]
