"""Retrieval with the model: the prompt (materials that fit the window), the model's answer, its [n] citations.

Declines when no model answers (the probe said why). When generation fails on the way
(timeout, dropped connection, empty answer) it records why on the context and ends without an
answer, after any text it streamed: the extractive answerer, next in the table, answers instead.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING

from officeqa.errors import GenerationError
from prompts.assembler import AssembledPrompt, Material, assemble
from prompts.loader import QATemplate, load_qa_template
from retrieval.answerers.materials import materials
from retrieval.answering import AnswerEvent
from retrieval.citations import (
    Citation,
    Tokenize,
    best_quote,
    citation_from_metadata,
    claims_by_marker,
    resolve_markers,
)
from retrieval.context import QuestionContext

if TYPE_CHECKING:
    from officeqa.generation import GenerationResult


class RetrievalWithModel:
    """The model writes the answer from the retrieved materials (and any an earlier answerer handed over)."""

    def answer(self, ctx: QuestionContext) -> Iterator[AnswerEvent] | None:
        if ctx.failure is not None or ctx.tools.generator is None:
            return None
        found = materials(ctx)
        if not found:
            return None
        return self._write(ctx, found)

    def _write(self, ctx: QuestionContext, found: list[Material]) -> Iterator[AnswerEvent]:
        """Deltas, then the answer; nothing more when generation fails (``ctx.failure`` says why)."""
        template = load_qa_template(ctx.language)
        prompt = self._prompt(ctx, found, template)
        mark = time.monotonic()
        streamed: list[str] = []
        try:
            result = yield from self._generate(ctx, prompt, streamed)
        except GenerationError as exc:
            ctx.timings["generation_s"] = time.monotonic() - mark
            if streamed:
                ctx.meta["partial_model_text"] = "".join(streamed)
            ctx.failure = exc
            return
        ctx.timings["generation_s"] = time.monotonic() - mark
        ctx.meta["generation"] = result.report()
        text, citations, removed = cite(result.text, prompt, template.not_found, ctx.tools.tokenize)
        ctx.meta["markers_removed"] = removed
        yield AnswerEvent("answer", answer=ctx.tools.finish(ctx, ctx.reply(text, citations, "model")))

    @staticmethod
    def _prompt(ctx: QuestionContext, found: list[Material], template: QATemplate) -> AssembledPrompt:
        mark = time.monotonic()
        tools, ollama = ctx.tools, ctx.tools.settings.ollama
        assert tools.generator is not None
        prompt = assemble(
            template, ctx.standalone, [tools.annotate(m, ctx.language) for m in found],
            window=tools.generator.num_ctx(), answer_reserve=ollama.answer_reserve_tokens,
            materials_share=ollama.materials_share, count=tools.count, scope=ctx.background,
        )
        ctx.meta["assembly"] = prompt.report()
        ctx.timings["assembly_s"] = time.monotonic() - mark
        return prompt

    @staticmethod
    def _generate(ctx: QuestionContext, prompt: AssembledPrompt, streamed: list[str]
                  ) -> Generator[AnswerEvent, None, GenerationResult]:
        """Yield the pieces as they arrive (when streaming); return the whole result."""
        generator = ctx.tools.generator
        assert generator is not None
        estimate = prompt.tokens["total"]
        if not ctx.stream:
            return generator.chat(prompt.messages(), estimated_prompt_tokens=estimate)
        generation = generator.stream_chat(prompt.messages(), estimated_prompt_tokens=estimate)
        for piece in generation:
            streamed.append(piece)
            yield AnswerEvent("delta", text=piece)
        result = generation.result
        assert result is not None
        return result


def cite(text: str, prompt: AssembledPrompt, not_found: str, tokenize: Tokenize) -> tuple[str, list[Citation], int]:
    """Map [n] markers to the included materials; unreferenced answers cite everything they were given."""
    by_n = {item.n: item for item in prompt.included}
    resolution = resolve_markers(text, by_n)
    claims = claims_by_marker(resolution.text)
    citations = []
    for n in resolution.cited:
        item = by_n[n]
        quote = best_quote(claims.get(n, resolution.text), item.text, tokenize)
        citations.append(_citation(n, item.material, quote))
    if not citations and not_found.strip("。. ") not in resolution.text:
        for item in prompt.included:
            citation = _citation(item.n, item.material, best_quote(resolution.text, item.text, tokenize))
            citation.referenced = False
            citations.append(citation)
    return resolution.text.strip(), citations, resolution.removed


def _citation(n: int, material: Material, quote: str) -> Citation:
    return citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")), material.meta, quote)


__all__ = ["RetrievalWithModel", "cite"]
