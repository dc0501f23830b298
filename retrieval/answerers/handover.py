"""Complete or hand over: the one rule every deterministic answerer's result passes before it ends the walk.

Why shared: "which firm audited, and what opinion?" answered with the firm alone, "who chaired the board and who
was CEO?" with the chairman alone, a figure from a report the answerer was unsure of — each reads as the answer
while half of it is missing, and the model, which could have read the rest, was never asked (DESIGN.md,
"Precision first"). So an answerer does not decide that it answered: it reports a :class:`Resolution` (the asks
of the question, ``retrieval.asks``, and which of them it resolved; what it was unsure of), and
:func:`complete_or_hand_over` decides the same way for all of them:

* every ask resolved, nothing unsure: the answer ends the walk;
* otherwise, with a model: the answer's text (its candidate rows with period, unit and page, as the answerer
  wrote them) goes into the prompt as a material and the model answers; the candidates are kept as the fallback
  should generation fail;
* otherwise, without a model: the candidates are shown under "no exact answer", naming what was not resolved,
  never as the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prompts.assembler import Material
from retrieval.answering import Answer
from retrieval.asks import split_asks
from retrieval.context import QuestionContext
from retrieval.messages import text as message

__all__ = ["Resolution", "complete_or_hand_over", "one_ask"]


@dataclass(slots=True)
class Resolution:
    """What an answerer settled: the question's asks, those it resolved, and what it was unsure of."""

    asks: list[str]
    resolved: list[str] = field(default_factory=list)
    unsure: list[str] = field(default_factory=list)  # "company", "period", "statement", or a field's name

    @property
    def missing(self) -> list[str]:
        return [a for a in self.asks if a not in self.resolved]

    @property
    def complete(self) -> bool:
        return not self.missing and not self.unsure

    def to_json(self) -> dict[str, object]:
        return {"asks": list(self.asks), "missing": self.missing, "unsure": list(self.unsure)}


def one_ask(question: str) -> Resolution:
    """The resolution of an answerer that answers one ask: complete when the question asks one thing."""
    asks = split_asks(question)
    return Resolution(asks, resolved=asks[:1])


def complete_or_hand_over(ctx: QuestionContext, answer: Answer, resolution: Resolution, source: str) -> Answer | None:
    """``answer`` when ``resolution`` is complete; else its candidates to the model (None: the walk goes on) or,
    without a model, the candidates under "no exact answer". ``source`` names the answerer in the material."""
    answer.metadata["resolution"] = resolution.to_json()
    if resolution.complete:
        return answer
    shown = _candidates(ctx, answer, resolution)
    if ctx.failure is not None:
        return shown  # no model: the candidates as candidates
    ctx.fallback = shown  # generation may fail: the candidates are what is left
    first = answer.citations[0] if answer.citations else None
    meta = {"route": source, **({"doc_id": first.doc_id, "path": str(first.file), "page": first.page} if first else {})}
    ctx.extra.append(Material(text=answer.text, source=f"{source} · candidates", score=0.0,
                              chunk_id=f"candidates:{source}", document=first.document if first else "", meta=meta))
    ctx.meta.setdefault("handed_over", []).append({"answerer": source, **resolution.to_json()})
    return None


#: What an answerer was unsure of, as the "no exact answer" line names it (English, Chinese).
UNSURE_NAMES = {
    "company": ("which company", "所指的公司"),
    "period": ("which period", "所指的期间"),
    "statement": ("which statement the figure comes from (only a note's row matched)",
                  "数据出自哪张报表（仅附注中的行相符）"),
    "tables": ("which table's figure is meant (two tables print this row for the period with different values)",
               "应采用哪张表的数据（两张表对同一期间的该行数值不同）"),
}


def _candidates(ctx: QuestionContext, answer: Answer, resolution: Resolution) -> Answer:
    english = ctx.language == "en"
    unsure = [UNSURE_NAMES.get(u, (u, u))[0 if english else 1] for u in resolution.unsure]
    parts = [*(f"“{p}”" for p in resolution.missing), *unsure]
    head = message("no_exact_answer", ctx.language, missing="; ".join(parts))
    text = f"{head}\n{message('candidates_header', ctx.language)}\n{answer.text}"
    metadata = {**answer.metadata, "no_exact_answer": True}
    return Answer(text, answer.citations, answer.mode, answer.question, answer.standalone_question, answer.language,
                  answer.notice, metadata)
