"""The answer pipeline: question -> (follow-up rewrite) -> retrieval -> materials -> prompt -> model or degrade.

Why one place: the chat endpoint, the CLI and the eval harness must answer the same
way. The pipeline checks ONCE, with a short timeout, whether a model can answer; when
not (or when generation fails later: timeout, dropped connection, empty answer) it
answers extractively — quoted sentences with citations and a notice saying why no
model answered — so a dead Ollama costs seconds, not minutes.

Everything heavy comes in as arguments: ``retrieve(query, k)`` returns ranked hits
(anything with chunk_id, doc_id, score, text, metadata — e.g. ``retrieval.search``'s
SearchHit), ``generator`` is an :class:`~officeqa.generation.OllamaGenerator` or None.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal, Protocol

from officeqa.settings import Settings
from prompts.assembler import AssembledPrompt, Material, TokenCount, assemble, source_label
from prompts.language import detect_language
from prompts.loader import load_qa_template
from retrieval.citations import (
    Citation,
    Tokenize,
    best_quote,
    citation_from_metadata,
    claims_by_marker,
    heading_list,
    resolve_markers,
)
from retrieval.extractive import ExtractiveAnswer, default_tokenize, extractive_answer
from retrieval.followup import Rewrite, Turn, rewrite_followup
from retrieval.messages import MESSAGES
from retrieval.messages import text as message

if TYPE_CHECKING:
    from officeqa.generation import GenerationError, OllamaGenerator

AnswerMode = Literal["model", "extractive", "rule"]


class HitLike(Protocol):
    chunk_id: str
    doc_id: str
    score: float
    text: str
    metadata: Mapping[str, Any]


Retrieve = Callable[[str, int], Sequence[HitLike]]
Extract = Callable[[str, Sequence[Material], str], ExtractiveAnswer]

@dataclass(slots=True)
class Answer:
    """What a question gets: text, structured citations, how it was produced, and an account of the work."""

    text: str
    citations: list[Citation]
    mode: AnswerMode
    question: str
    standalone_question: str
    language: str
    notice: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "answer": self.text,
            "mode": self.mode,
            "notice": self.notice,
            "question": self.question,
            "standalone_question": self.standalone_question,
            "language": self.language,
            "citations": [c.to_json() for c in self.citations],
            "metadata": self.metadata,
        }


@dataclass(slots=True)
class AnswerEvent:
    """A streamed step: ``delta`` (model text as it arrives) or the final ``answer``."""

    kind: Literal["delta", "answer"]
    text: str = ""
    answer: Answer | None = None


def material_from_hit(hit: HitLike, summary: str | None = None) -> Material:
    """A prompt material from a search hit; the chunk metadata travels along for citations."""
    meta = dict(hit.metadata)
    meta.setdefault("doc_id", hit.doc_id)
    path = str(meta.get("path", ""))
    document = PurePath(path).name if path else str(meta.get("document", hit.doc_id))

    def as_int(key: str) -> int | None:
        value = meta.get(key)
        return int(value) if isinstance(value, int | float) else None

    label = source_label(
        document,
        page=as_int("page"),
        page_end=as_int("page_end"),
        sheet=str(meta["sheet"]) if meta.get("sheet") is not None else None,
        slide=as_int("slide"),
        heading_path=heading_list(meta.get("heading_path")),
    )
    return Material(text=hit.text, source=label, score=float(hit.score), chunk_id=hit.chunk_id, document=document,
                    summary=summary, meta=meta)


def notice_for(reason: str, language: str, detail: str = "", suffix: str = "suffix") -> str:
    """Why no model answered (``reason`` is a FailureKind value or "no_model") and what is shown instead."""
    head = message(reason if reason in MESSAGES["en"] else "server_error", language)
    if detail:
        head += f"（{detail}）" if language == "zh" else f" ({detail})"
    return head + message(suffix, language)


class AnswerPipeline:
    """Answers questions over one knowledge base; build once, reuse (it holds no per-question state)."""

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
        """``summary_of`` looks up a hit's summary-tree text; the assembler prefers it when chunks do not fit.

        ``annotate(material, language)`` may relabel a material for the model (comments marked as such);
        ``extract(question, materials, language)`` makes the no-model answer; the question service
        passes one that knows the knowledge base (term weights, comment labels, table context, an
        embedder for cross-language questions); the default uses :func:`extractive_answer` alone.
        """
        self.settings = settings
        self.retrieve = retrieve
        self.generator = generator
        self.summary_of = summary_of
        self.extract = extract
        self.annotate = annotate
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
        rewrite: Rewrite | None = None,
        probed: tuple[GenerationError | _NoModel | None] | None = None,
    ) -> Iterator[AnswerEvent]:
        """Yield ``delta`` events while the model writes, then one ``answer`` event.

        ``extra`` materials (e.g. an L0 handler's result) go before the retrieved ones. A caller
        that already rewrote the question and probed the model passes ``rewrite`` and
        ``probed=(failure_or_None,)`` so neither happens twice.
        """
        started = time.monotonic()
        timings: dict[str, float] = {}
        language = detect_language(question)
        failure = self.probe() if probed is None else probed[0]
        timings["probe_s"] = time.monotonic() - started

        mark = time.monotonic()
        if rewrite is None:
            rewrite = rewrite_followup(question, history, self.generator if failure is None else None)
        timings["rewrite_s"] = time.monotonic() - mark

        mark = time.monotonic()
        hits = list(self.retrieve(rewrite.standalone, self.settings.retrieval.top_k))
        summary_of = self.summary_of or (lambda hit: None)
        materials = [*extra, *(material_from_hit(h, summary_of(h)) for h in hits)]
        timings["retrieval_s"] = time.monotonic() - mark
        metadata: dict[str, Any] = {
            "rewrite": {"standalone": rewrite.standalone, "method": rewrite.method},
            "retrieval": {"hits": len(hits), "chunk_ids": [h.chunk_id for h in hits]},
            "timings": timings,
        }

        if not materials:
            text = message("no_hits", language)
            yield self._final(Answer(text, [], "extractive", question, rewrite.standalone, language, None, metadata),
                              started)
            return

        if failure is None:
            failure = yield from self._generate(question, rewrite, language, materials, scope, metadata, started,
                                                streaming)
            if failure is None:
                return
        yield self._degraded(question, rewrite, language, materials, failure, metadata, started)

    # -- steps --------------------------------------------------------------------------------

    def probe(self) -> GenerationError | _NoModel | None:
        """None when the model can answer, else why not (checked once per question, with a short timeout)."""
        if self.generator is None:
            return _NoModel()
        from officeqa.generation import GenerationError

        try:
            self.generator.check_available()
        except GenerationError as exc:
            return exc
        return None

    def _generate(
        self,
        question: str,
        rewrite: Rewrite,
        language: str,
        materials: list[Material],
        scope: str,
        metadata: dict[str, Any],
        started: float,
        streaming: bool,
    ) -> Generator[AnswerEvent, None, GenerationError | None]:
        """Yield the model's answer; return the error instead when generation fails (the caller degrades)."""
        from officeqa.generation import GenerationError

        assert self.generator is not None
        timings = metadata["timings"]
        mark = time.monotonic()
        template = load_qa_template(language)
        ollama = self.settings.ollama
        if self.annotate is not None:
            materials = [self.annotate(m, language) for m in materials]
        prompt = assemble(
            template, rewrite.standalone, materials, window=self.generator.num_ctx(),
            answer_reserve=ollama.answer_reserve_tokens, materials_share=ollama.materials_share,
            count=self.count, scope=scope,
        )
        metadata["assembly"] = prompt.report()
        timings["assembly_s"] = time.monotonic() - mark
        mark = time.monotonic()
        estimate = prompt.tokens["total"]
        streamed: list[str] = []
        try:
            if streaming:
                generation = self.generator.stream_chat(prompt.messages(), estimated_prompt_tokens=estimate)
                for piece in generation:
                    streamed.append(piece)
                    yield AnswerEvent("delta", text=piece)
                result = generation.result
                assert result is not None
            else:
                result = self.generator.chat(prompt.messages(), estimated_prompt_tokens=estimate)
        except GenerationError as exc:
            timings["generation_s"] = time.monotonic() - mark
            if streamed:
                metadata["partial_model_text"] = "".join(streamed)
            return exc
        timings["generation_s"] = time.monotonic() - mark
        metadata["generation"] = result.report()
        text, citations, removed = self._cite(result.text, prompt, template.not_found)
        metadata["markers_removed"] = removed
        yield self._final(Answer(text, citations, "model", question, rewrite.standalone, language, None, metadata),
                          started)
        return None

    def _cite(self, text: str, prompt: AssembledPrompt, not_found: str) -> tuple[str, list[Citation], int]:
        """Map [n] markers to the included materials; unreferenced answers cite everything they were given."""
        by_n = {item.n: item for item in prompt.included}
        resolution = resolve_markers(text, by_n)
        claims = claims_by_marker(resolution.text)
        citations = []
        for n in resolution.cited:
            item = by_n[n]
            quote = best_quote(claims.get(n, resolution.text), item.text, self.tokenize)
            citations.append(_citation(n, item.material, quote))
        if not citations and not_found.strip("。. ") not in resolution.text:
            for item in prompt.included:
                citation = _citation(item.n, item.material, best_quote(resolution.text, item.text, self.tokenize))
                citation.referenced = False
                citations.append(citation)
        return resolution.text.strip(), citations, resolution.removed

    def _degraded(
        self,
        question: str,
        rewrite: Rewrite,
        language: str,
        materials: list[Material],
        failure: GenerationError | _NoModel,
        metadata: dict[str, Any],
        started: float,
    ) -> AnswerEvent:
        mark = time.monotonic()
        if self.extract is not None:
            extractive = self.extract(rewrite.standalone, materials, language)
        else:
            extractive = extractive_answer(rewrite.standalone, materials, language=language, tokenize=self.tokenize)
        metadata["extractive"] = {"found": extractive.found, "coverage": extractive.coverage}
        metadata["timings"]["extractive_s"] = time.monotonic() - mark
        reason = failure.reason
        metadata["failure"] = {"kind": reason, "message": str(failure)}
        notice = notice_for(reason, language, self._failure_detail(reason))
        answer = Answer(extractive.text, extractive.citations, "extractive", question, rewrite.standalone, language,
                        notice, metadata)
        return self._final(answer, started)

    def _failure_detail(self, reason: str) -> str:
        ollama = self.settings.ollama
        if reason in ("unreachable", "timeout", "connection_dropped", "server_error"):
            return ollama.host
        if reason in ("model_missing", "empty_answer"):
            return ollama.model
        return ""

    @staticmethod
    def _final(answer: Answer, started: float) -> AnswerEvent:
        answer.metadata.setdefault("timings", {})["total_s"] = time.monotonic() - started
        answer.metadata["timings"] = {k: round(v, 4) for k, v in answer.metadata["timings"].items()}
        return AnswerEvent("answer", answer=answer)


class _NoModel:
    """Stands in for a generation error when no generator was configured."""

    reason = "no_model"

    def __str__(self) -> str:
        return "no generator configured"


def _citation(n: int, material: Material, quote: str) -> Citation:
    return citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")), material.meta, quote)


def handler_material(decision: Any, text: str) -> Material:
    """A handler's result (a low-confidence rule, a table refusal with its candidates) handed to the model
    as the first material."""
    label = f"rule {decision.rule_id or decision.route} · {decision.route}"
    return Material(text=text, source=label, score=float(decision.confidence),
                    chunk_id=f"rule:{decision.route}", document="", meta={"route": decision.route})
