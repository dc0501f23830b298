"""The one question path: every shell (CLI ``ask``, HTTP chat and OpenAI endpoints, eval harness) answers
through :class:`QuestionService`.

A question walks three steps, each in its own module:

1. :func:`retrieval.context.build_context`: the language, the model probe and the follow-up rewrite
   (each once), then :mod:`retrieval.placing`: the documents in scope (given, named, or retrieved;
   newest versions), their stored parsed forms, and the L0 route;
2. :func:`retrieval.answerers.walk` over the ordered table :data:`retrieval.answerers.ANSWERERS`
   (empty knowledge base, summary tree, stored tables, rule handler, table probe, retrieval with
   the model, retrieval extractive): the first that does not decline answers;
3. the answer's texts with no server path (:mod:`retrieval.show_paths`); its metadata holds the
   account of the work (route, scope, retrieval, budget, timings).

Long-lived resources (knowledge base, embedder, compiled rules, generator client) are built once
and passed in; :meth:`QuestionService.open` builds them from settings for shells. Answering a
question reads only: a missing summary tree is queued for the background summariser.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from indexing.questions_first import answering
from officeqa.settings import Settings
from retrieval.answerers import walk
from retrieval.answering import Answer, AnswerEvent
from retrieval.catalog import CatalogEntry
from retrieval.context import History, build_context, to_turns
from retrieval.knowledge import Knowledge
from retrieval.l0 import L0Router, get_router

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.embeddings import Embedder
    from officeqa.generation import OllamaGenerator


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
        self.knowledge = Knowledge(settings, kb, generator, self.router)
        self._owns = owns_resources

    @classmethod
    def open(
        cls, settings: Settings, *, generator: OllamaGenerator | str | None = "ollama", embedder: Embedder | None = None
    ) -> QuestionService:
        """A service over the knowledge base ``settings`` name; ``generator="ollama"`` talks to settings.ollama,
        ``None`` never calls a model (extractive answers). Use as a context manager or call :meth:`close`."""
        from indexing.storage import open_knowledge_base

        kb = open_knowledge_base(settings, embedder)
        if generator == "ollama":
            from officeqa.generation import OllamaGenerator

            generator = OllamaGenerator(settings.ollama)
        return cls(settings, kb, generator if not isinstance(generator, str) else None, owns_resources=True)

    def close(self) -> None:
        self.knowledge.close()
        if self._owns:
            if self.generator is not None:
                self.generator.close()
            self.kb.close()

    def __enter__(self) -> QuestionService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        with answering():  # background work in this process waits meanwhile (indexing/questions_first.py)
            ctx = build_context(self.knowledge, question, history=history, stream=stream, mode=mode,
                                documents=documents)
            yield from walk(ctx)

    def catalog(self) -> dict[str, CatalogEntry]:
        """Indexed documents with their profiles (cached until the registry changes)."""
        return self.knowledge.catalog()


__all__ = ["QuestionService", "to_turns"]
