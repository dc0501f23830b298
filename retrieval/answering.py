"""What an answer is: :class:`Answer` (text, citations, mode, metadata) and the streamed :class:`AnswerEvent`.

Why apart from the answerers: every shell (chat endpoint, OpenAI endpoint, CLI, eval harness)
reads these types, and every answerer makes them; the few helpers here (a material from a
search hit, the "why no model answered" notice, the model probe) are shared by several
answerers. Whether a model can answer is checked ONCE per question, with a short timeout
(:func:`probe`), so a dead Ollama costs seconds, not minutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal, Protocol

from officeqa.errors import GenerationError
from prompts.assembler import Material, source_label
from retrieval.citations import Citation, heading_list
from retrieval.messages import MESSAGES
from retrieval.messages import text as message

if TYPE_CHECKING:
    from officeqa.generation import OllamaGenerator

AnswerMode = Literal["model", "extractive", "rule"]


class HitLike(Protocol):
    """A search hit as answerers read it (``retrieval.search.SearchHit``, or a test's own)."""

    @property
    def chunk_id(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def text(self) -> str: ...
    @property
    def metadata(self) -> Mapping[str, Any]: ...


class Failure(Protocol):
    """Why no model answers: a :class:`~officeqa.errors.GenerationError`, or :class:`NoModel`."""

    reason: str


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


def probe(generator: OllamaGenerator | None) -> Failure | None:
    """None when the model can answer, else why not (checked once per question, with a short timeout)."""
    if generator is None:
        return NoModel()
    try:
        generator.check_available()
    except GenerationError as exc:
        return exc
    return None


class NoModel:
    """Stands in for a generation error when no generator was configured."""

    reason = "no_model"

    def __str__(self) -> str:
        return "no generator configured"


def handler_material(decision: Any, text: str) -> Material:
    """A handler's result (a low-confidence rule, a table refusal with its candidates) handed to the model
    as the first material."""
    label = f"rule {decision.rule_id or decision.route} · {decision.route}"
    return Material(text=text, source=label, score=float(decision.confidence),
                    chunk_id=f"rule:{decision.route}", document="", meta={"route": decision.route})


__all__ = ["Answer", "AnswerEvent", "AnswerMode", "Failure", "HitLike", "NoModel", "handler_material",
           "material_from_hit", "notice_for", "probe"]
