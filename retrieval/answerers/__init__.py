"""The answerers of the question path, in the order they are asked, and the walk over them.

Each answerer is a small module with one public method, ``answer(ctx)``, that answers the
question or declines (None). It may leave something for the later ones on the context (materials
for the model, a fallback answer, a note for the metadata). A streaming answerer returns an
iterator of events; one that ends without an ``answer`` event declined after trying (the model
failed mid-answer: ``ctx.failure`` says why) and the walk goes on.

A new kind of answer is one module plus one line in :data:`ANSWERERS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from retrieval.answerers.catalog import DocumentList
from retrieval.answerers.empty import EmptyKnowledgeBase
from retrieval.answerers.empty_rule_tables import EmptyRuleTables
from retrieval.answerers.extractive import RetrievalExtractive
from retrieval.answerers.figure_candidates import FigureCandidates
from retrieval.answerers.headline_summary import HeadlineSummary
from retrieval.answerers.linked_tables import LinkedTables
from retrieval.answerers.model import RetrievalWithModel
from retrieval.answerers.model_tables import ModelTablePlan
from retrieval.answerers.named_facts import NamedFacts
from retrieval.answerers.named_section import NamedSection
from retrieval.answerers.not_in_kb import NotInKnowledgeBase
from retrieval.answerers.report_facts import ReportFacts
from retrieval.answerers.rule import RuleHandler
from retrieval.answerers.segment_facts import SegmentFacts
from retrieval.answerers.small_talk import SmallTalk
from retrieval.answerers.summary import SummaryTree
from retrieval.answerers.table_probe import TableProbe
from retrieval.answerers.tables import StoredTables
from retrieval.answerers.unknown_company import UnknownCompany
from retrieval.answerers.yes_no import YesNo
from retrieval.answering import Answer, AnswerEvent
from retrieval.context import QuestionContext
from retrieval.question_kind import is_yes_no

Reply = Answer | Iterator[AnswerEvent] | None


class Answerer(Protocol):
    """Answers one kind of question, or declines with None."""

    def answer(self, ctx: QuestionContext) -> Reply: ...


#: The table: first come, first asked. The last one always answers.
#:
#: Table questions, precision first (issue 35): the table rules (StoredTables, EmptyRuleTables, TableProbe,
#: LinkedTables) end the walk only with an exact answer from a complete parse, every content word of the question
#: placed. An incomplete parse never answers: with a model, its refusal waits as the fallback (so RuleHandler's
#: other handlers step aside) and ModelTablePlan asks the model for a JSON plan, checked against the schema and run
#: in DuckDB, before the model sees any rule-derived material; without a model, the refusal is shown as "no exact
#: answer" naming the words it could not place and the candidate table. A question whose words mostly name
#: nothing in the table (prose about a report) is no table question at all: retrieval answers it.
ANSWERERS: tuple[Answerer, ...] = (
    EmptyKnowledgeBase(),  # nothing indexed: how to start
    SmallTalk(),  # "hi", "你好", "谢谢": what the assistant can do, not quotes
    DocumentList(),  # "which documents do you have?": the catalog
    NotInKnowledgeBase(),  # a company no document is about: said, not answered from another company's report
    UnknownCompany(),  # "贵州茅台2019年…", "Procter & Gamble's …": a leading name no indexed text holds
    HeadlineSummary(),  # "概括…经营情况", "Summarize … financial performance": headline figures, then prose
    SegmentFacts(),  # "营业收入按产品和地区是如何构成的": the composition table's rows from the facts
    ReportFacts(),  # figures, ratios and "not in this report" from the facts of the reports in scope
    NamedFacts(),  # 法定代表人, 会计师事务所, auditor, CEO…: the report's key-value rows, sentences and signatures
    FigureCandidates(),  # with a model, a figure question no rule settled: the named report's candidate rows to it
    NamedSection(),  # no model, "第三节讲了什么", "Summarize the Risk Factors section": that section's own prose
    SummaryTree(),  # whole-document questions: the summary trees (missing ones are queued)
    StoredTables(),  # count / aggregate / list routes: the stored tables
    EmptyRuleTables(),  # a confident rule that would find nothing: an exact table answer first
    RuleHandler(),  # the other L0 handlers over the stored parsed documents
    TableProbe(),  # a computation phrased as a plain question: only an exact table answer
    LinkedTables(),  # a count / list / date of a row the rules routed elsewhere: only an exact table answer
    ModelTablePlan(),  # with a model: its JSON query plan, checked against the schema, run by the store
    RetrievalWithModel(),  # retrieved chunks (and what earlier answerers handed over) to the model
    YesNo(),  # no model, a yes/no question: "Yes" with the evidence, or "Not found"
    RetrievalExtractive(),  # no model: quoted sentences, or the rule result waiting as fallback
)


FIGURE_ANSWERERS: tuple[type, ...] = (
    HeadlineSummary, SegmentFacts, ReportFacts, NamedFacts, StoredTables, EmptyRuleTables, RuleHandler, TableProbe,
    LinkedTables, ModelTablePlan,
)
"""Answerers whose reply is a figure, a table's cells or a rule's extraction: never a yes or a no. A yes/no question
skips them (issue 36: "did it change its dividend policy?" was answered by a rule quoting a quarterly dividend), so
it reaches the model, or, without one, :class:`YesNo`: "Yes" or "No" with the evidence sentence, or "not found"."""


def walk(ctx: QuestionContext, answerers: Sequence[Answerer] = ANSWERERS) -> Iterator[AnswerEvent]:
    """Ask each answerer in turn; yield the first one's events, ending with exactly one ``answer`` event.

    A yes/no question skips the :data:`FIGURE_ANSWERERS`."""
    yes_no = is_yes_no(ctx.standalone)
    for answerer in answerers:
        if yes_no and isinstance(answerer, FIGURE_ANSWERERS):
            continue
        reply = answerer.answer(ctx)
        if reply is None:
            continue
        events = [AnswerEvent("answer", answer=reply)] if isinstance(reply, Answer) else reply
        for event in events:
            if event.answer is None:
                yield event
                continue
            yield AnswerEvent("answer", answer=ctx.tools.present(ctx, ctx.close(event.answer)))
            return
    raise AssertionError("the last answerer always answers")  # pragma: no cover


__all__ = ["ANSWERERS", "FIGURE_ANSWERERS", "Answerer", "Reply", "walk"]
