"""The question path over any retrieval function: :class:`AnswerPipeline` (no knowledge base behind it).

Why: the model path (prompt assembly, streaming, citations, degrading when the model fails) is
tested and benchmarked against hand-made hits, and integrations may retrieve their own way. The
pipeline builds the same :class:`~retrieval.context.QuestionContext` as the question service and
walks the same answerer table; the knowledge-base answerers decline (there is none), so the
retrieval ones answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from officeqa.settings import Settings
from prompts.assembler import Material, TokenCount
from retrieval.answerers import walk
from retrieval.answering import Answer, AnswerEvent, HitLike
from retrieval.citations import Tokenize
from retrieval.context import QuestionContext, Tools, build_context
from retrieval.extractive import ExtractiveAnswer
from retrieval.followup import Turn

if TYPE_CHECKING:
    from officeqa.generation import OllamaGenerator

Retrieve = Callable[[str, int], Sequence[HitLike]]
Extract = Callable[[str, Sequence[Material], str], ExtractiveAnswer]


class _Callables(Tools):
    """Tools made of the callables an :class:`AnswerPipeline` was given."""

    def __init__(self, settings: Settings, retrieve: Retrieve, generator: OllamaGenerator | None, *,
                 count: TokenCount | None, tokenize: Tokenize | None,
                 summary_of: Callable[[HitLike], str | None] | None, extract: Extract | None,
                 annotate: Callable[[Material, str], Material] | None) -> None:
        super().__init__(settings, generator, count=count, tokenize=tokenize)
        self._retrieve, self._summary_of, self._extract, self._annotate = retrieve, summary_of, extract, annotate

    def retrieve(self, ctx: QuestionContext, query: str, k: int) -> list[HitLike]:
        return list(self._retrieve(query, k))

    def summary_of(self, hit: HitLike) -> str | None:
        return self._summary_of(hit) if self._summary_of is not None else None

    def extract(self, ctx: QuestionContext, materials: Sequence[Material]) -> ExtractiveAnswer:
        if self._extract is None:
            return super().extract(ctx, materials)
        return self._extract(ctx.standalone, materials, ctx.language)

    def annotate(self, material: Material, language: str) -> Material:
        return self._annotate(material, language) if self._annotate is not None else material


class AnswerPipeline:
    """Answers questions from ``retrieve(query, k)``'s hits; build once, reuse (no per-question state)."""

    def __init__(
        self,
        settings: Settings,
        retrieve: Retrieve,
        generator: OllamaGenerator | None = None,
        *,
        count: TokenCount | None = None,
        tokenize: Tokenize | None = None,
        summary_of: Callable[[HitLike], str | None] | None = None,
        extract: Extract | None = None,
        annotate: Callable[[Material, str], Material] | None = None,
    ) -> None:
        """``summary_of`` looks up a hit's summary-tree text (preferred when chunks do not fit);
        ``extract(question, materials, language)`` makes the no-model answer; ``annotate(material,
        language)`` relabels a material for the model."""
        self.settings = settings
        self.generator = generator
        self.tools = _Callables(settings, retrieve, generator, count=count, tokenize=tokenize,
                                summary_of=summary_of, extract=extract, annotate=annotate)

    def ask(
        self, question: str, history: Sequence[Turn] = (), *, scope: str = "", extra: Sequence[Material] = ()
    ) -> Answer:
        """The whole answer at once (non-streaming generation)."""
        for event in self.stream(question, history, scope=scope, extra=extra, streaming=False):
            if event.answer is not None:
                return event.answer
        raise AssertionError("the pipeline always ends with an answer")  # pragma: no cover

    def stream(
        self,
        question: str,
        history: Sequence[Turn] = (),
        *,
        scope: str = "",
        extra: Sequence[Material] = (),
        streaming: bool = True,
    ) -> Iterator[AnswerEvent]:
        """Yield ``delta`` events while the model writes, then one ``answer`` event. ``extra`` materials
        go before the retrieved ones; ``scope`` names the documents in the prompt."""
        ctx = build_context(self.tools, question, history=history, stream=streaming)
        ctx.background, ctx.extra = scope, list(extra)
        yield from walk(ctx)


__all__ = ["AnswerPipeline", "Extract", "Retrieve"]
