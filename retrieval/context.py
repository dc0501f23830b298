"""What one question carries through the answerers: :class:`QuestionContext`, built once by :func:`build_context`.

Why one typed object: the answerers (``retrieval.answerers``) each decide from the same facts —
the standalone question, its language, whether a model answers, the documents in scope, the
L0 route — and none of them may recompute them (the model probe and the follow-up rewrite run
once per question). What an answerer leaves for the next one (materials for the model, a
low-confidence rule result to fall back on, notes for the metadata) is written here too, in
named fields, not in a dictionary passed by hand.

:class:`Tools` is how a question reaches its knowledge: retrieval, the extractive answer, the
finishing touches. The question service passes :class:`retrieval.knowledge.Knowledge` (a
knowledge base); :class:`retrieval.pipeline.AnswerPipeline` passes plain callables.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from officeqa.scripts import detect_language
from officeqa.settings import Settings
from prompts.assembler import Material, TokenCount
from retrieval.answering import Answer, AnswerMode, Failure, HitLike, probe
from retrieval.catalog import CatalogEntry
from retrieval.citations import Citation, Tokenize
from retrieval.extractive import ExtractiveAnswer, default_tokenize, extractive_answer
from retrieval.followup import Rewrite, Turn, rewrite_followup
from retrieval.rule_answers import StoredDocument
from retrieval.scope import Scope

if TYPE_CHECKING:
    from officeqa.generation import OllamaGenerator
    from retrieval.handlers.results import HandlerResult
    from retrieval.l0 import RouteDecision

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


@dataclass(slots=True)
class QuestionContext:
    """One question and everything decided about it so far (see the module docstring)."""

    question: str
    language: str
    turns: list[Turn]
    rewrite: Rewrite
    failure: Failure | None  # why no model answers (probed once), None when one does
    tools: Tools
    stream: bool = False
    mode: str = "hybrid"  # retrieval mode: hybrid, bm25 or dense
    requested: list[str] | None = None  # documents (paths or doc ids) the caller named
    catalog: Mapping[str, CatalogEntry] = field(default_factory=dict)
    scope: Scope = field(default_factory=lambda: Scope("retrieved"))
    stored: list[StoredDocument] = field(default_factory=list)  # parsed forms of the scope's documents
    missing: list[str] = field(default_factory=list)  # scope documents with no stored parsed form
    decision: RouteDecision | None = None
    background: str = ""  # the documents in scope, named in the prompt
    budget: int = 0  # tokens of the prompt's window the materials may take
    extra: list[Material] = field(default_factory=list)  # materials an answerer hands to the model
    fallback: Answer | None = None  # a low-confidence rule result, shown when no model weighs it
    hits: list[HitLike] | None = None  # retrieved once, by the first answerer that needs them
    rule_result: HandlerResult | None = None  # the route's handler over ``stored``, run once (answerers.handled)
    meta: dict[str, Any] = field(default_factory=dict)  # the account every answer's metadata starts from
    memo: dict[Any, Any] = field(default_factory=dict)  # work two answerers would repeat, done once per question
    timings: dict[str, float] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    @property
    def standalone(self) -> str:
        return self.rewrite.standalone

    @property
    def route(self) -> str:
        return self.decision.route if self.decision is not None else ""

    def reply(self, text: str, citations: list[Citation], mode: AnswerMode, notice: str | None = None,
              metadata: dict[str, Any] | None = None) -> Answer:
        """An answer to this question; ``metadata`` defaults to a copy of the account so far."""
        return Answer(text, citations, mode, self.question, self.standalone, self.language, notice,
                      dict(self.meta) if metadata is None else metadata)

    def close(self, answer: Answer) -> Answer:
        """The answer with this question's timings (total included) in its metadata."""
        timings = {**self.timings, **answer.metadata.get("timings", {})}
        timings["total_s"] = time.monotonic() - self.started
        answer.metadata["timings"] = {k: round(v, 4) for k, v in timings.items()}
        return answer


class Tools:
    """How a question reaches its knowledge. This base retrieves nothing; subclasses say how."""

    def __init__(self, settings: Settings, generator: OllamaGenerator | None = None, *,
                 count: TokenCount | None = None, tokenize: Tokenize | None = None) -> None:
        self.settings = settings
        self.generator = generator
        self._count = count
        self._tokenize = tokenize

    @property
    def count(self) -> TokenCount:
        if self._count is None:
            from officeqa.tokens import default_token_counter

            self._count = default_token_counter().count
        return self._count

    @property
    def tokenize(self) -> Tokenize:
        if self._tokenize is None:
            self._tokenize = default_tokenize()
        return self._tokenize

    def place(self, ctx: QuestionContext) -> None:
        """Fill in what the knowledge decides before any answerer runs (catalog, scope, route)."""

    def retrieve(self, ctx: QuestionContext, query: str, k: int) -> list[HitLike]:
        return []

    def summary_of(self, hit: HitLike) -> str | None:
        """A hit's summary-tree text, which the assembler prefers when the chunk does not fit."""
        return None

    def extract(self, ctx: QuestionContext, materials: Sequence[Material]) -> ExtractiveAnswer:
        """The no-model answer: the materials' best sentences."""
        return extractive_answer(ctx.standalone, materials, language=ctx.language, tokenize=self.tokenize)

    def annotate(self, material: Material, language: str) -> Material:
        """A material as the model should read it (comments labelled as such)."""
        return material

    def finish(self, ctx: QuestionContext, answer: Answer) -> Answer:
        """A retrieval answer completed with what the knowledge adds (scope notes, precise citations)."""
        return answer

    def present(self, ctx: QuestionContext, answer: Answer) -> Answer:
        """The answer as users see it (no server paths in its texts)."""
        return answer


def build_context(tools: Tools, question: str, *, history: History = (), stream: bool = False,
                  mode: str = "hybrid", documents: Sequence[str] | None = None) -> QuestionContext:
    """The context of one question: language, model probe and follow-up rewrite (each once), then what
    ``tools`` place (the documents in scope and the route)."""
    started = time.monotonic()
    failure = probe(tools.generator)
    probed = time.monotonic()
    turns = to_turns(history)
    rewrite = rewrite_followup(question, turns, tools.generator if failure is None else None)
    ctx = QuestionContext(question, detect_language(question), turns, rewrite, failure, tools, stream, mode,
                          started=started)
    ctx.timings.update(probe_s=probed - started, rewrite_s=time.monotonic() - probed)
    ctx.meta["rewrite"] = {"standalone": rewrite.standalone, "method": rewrite.method}
    ctx.requested = list(documents) if documents else None
    tools.place(ctx)
    return ctx


__all__ = ["History", "QuestionContext", "Tools", "build_context", "to_turns"]
