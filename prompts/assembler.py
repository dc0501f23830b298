"""Token-budgeted prompt assembly: fit the most relevant materials into the model's window.

Why a pure function: the budget decides what evidence the model sees, so it must be
exact and testable with literal numbers. Ollama silently drops the start of a prompt
that exceeds ``num_ctx``; the assembler guarantees ``prompt tokens + answer reserve <=
window`` and says what it gave up to get there.

Order of the user message (DESIGN.md, "Prompt assembly"): task instruction ->
background (documents, scope) -> materials, each prefixed ``[n] file · location ·
heading path`` -> the question -> output requirements.

When the materials exceed their budget (``materials_share`` of the window, and never
more than what the fixed parts leave), the degrade steps run in this order:

1. ``summaries``     replace materials by their summary-tree text, least relevant first;
2. ``fewer_chunks``  keep the longest most-relevant prefix that fits, drop the rest;
3. ``truncated``     cut the next material (or the only one) at a sentence end to use
                     the room left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from officeqa.errors import ConfigurationError
from officeqa.locations import Location
from officeqa.sentences import sentence_pieces
from prompts.loader import QATemplate

TokenCount = Callable[[str], int]

#: Tokens a chat template adds around each message (role markers, separators).
MESSAGE_OVERHEAD_TOKENS = 8
#: Below this many free tokens a truncated fragment is not worth including.
MIN_FRAGMENT_TOKENS = 32

_ELLIPSIS = "……"


@dataclass(frozen=True, slots=True)
class Material:
    """One ranked piece of evidence offered to the assembler.

    ``source`` is the label after the number: "file · page/sheet · heading path"
    (see :func:`source_label`); ``summary`` is the summary-tree text for the same
    span when one exists; ``meta`` carries provenance for citations, untouched here.
    """

    text: str
    source: str
    score: float
    chunk_id: str
    document: str = ""
    summary: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IncludedMaterial:
    """A material as it went into the prompt: its number, form and cost."""

    n: int
    material: Material
    form: str  # "full" | "summary" | "truncated"
    text: str
    tokens: int


@dataclass(slots=True)
class AssembledPrompt:
    """The messages to send plus an account of the budget."""

    system: str
    user: str
    tokens: dict[str, int]
    budget: dict[str, int]
    included: list[IncludedMaterial]
    dropped: list[Material]
    steps: list[str]

    def messages(self) -> list[dict[str, str]]:
        """Chat messages in Ollama's shape."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    def report(self) -> dict[str, Any]:
        """JSON-ready summary for the answer's metadata."""
        return {
            "tokens": dict(self.tokens),
            "budget": dict(self.budget),
            "steps": list(self.steps),
            "included": [
                {"n": i.n, "chunk_id": i.material.chunk_id, "form": i.form, "tokens": i.tokens} for i in self.included
            ],
            "dropped": [m.chunk_id for m in self.dropped],
        }


def source_label(
    document: str,
    *,
    page: int | None = None,
    page_end: int | None = None,
    sheet: str | None = None,
    slide: int | None = None,
    heading_path: Sequence[str] = (),
) -> str:
    """"file · location · heading path" with the parts that exist (location: p. 3, p. 3-4, sheet X, slide 2)."""
    return Location(document or "?", page=page, page_end=page_end, sheet=sheet, slide=slide,
                    heading_path=list(heading_path)).label()


def split_sentences(text: str) -> list[str]:
    """Sentences with their end punctuation kept, so joining them restores the text.

    The product's one splitter (:func:`officeqa.sentences.sentence_pieces`): the same cut
    points as the chunker's, so a quote or an "e.g." the chunker kept whole is not cut here.
    """
    return sentence_pieces(text)


def cut_at_sentence_end(text: str, fits: Callable[[str], bool]) -> tuple[str, bool]:
    """The longest sentence prefix of ``text`` for which ``fits`` holds.

    Returns (prefix, at_sentence_end). When not even the first sentence fits, falls
    back to the longest character prefix (plus an ellipsis) so the most relevant
    evidence is not lost entirely; ``at_sentence_end`` is then False.
    """
    sentences = split_sentences(text)
    lo, hi = 0, len(sentences)
    while lo < hi:  # largest k with fits(first k sentences)
        mid = (lo + hi + 1) // 2
        if fits("".join(sentences[:mid]).rstrip()):
            lo = mid
        else:
            hi = mid - 1
    if lo > 0:
        return "".join(sentences[:lo]).rstrip(), True
    first = sentences[0] if sentences else ""
    lo, hi = 0, len(first)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(first[:mid].rstrip() + _ELLIPSIS):
            lo = mid
        else:
            hi = mid - 1
    cut = first[:lo].rstrip()
    return (cut + _ELLIPSIS if cut else ""), False


@dataclass(slots=True)
class _Layout:
    template: QATemplate
    question: str
    background_documents: str
    scope: str

    def background(self) -> str:
        return self.template.background.format(background_documents=self.background_documents, scope=self.scope)

    def item(self, n: int, material: Material, text: str) -> str:
        return self.template.material_item.format(n=n, source=material.source, text=text)

    def user(self, items: Sequence[str]) -> str:
        parts = [self.template.instruction, self.background(), self.template.materials_header]
        if items:
            parts[-1] = parts[-1] + "\n" + "\n\n".join(items)
        parts.append(self.template.question.format(question=self.question))
        parts.append(self.template.render_requirements())
        return "\n\n".join(parts)


def assemble(
    template: QATemplate,
    question: str,
    materials: Sequence[Material],
    *,
    window: int,
    answer_reserve: int,
    count: TokenCount,
    materials_share: float = 0.7,
    scope: str = "",
    min_fragment_tokens: int = MIN_FRAGMENT_TOKENS,
    message_overhead_tokens: int = MESSAGE_OVERHEAD_TOKENS,
) -> AssembledPrompt:
    """Build the prompt for ``question`` from ``materials`` (ranked, most relevant first).

    ``count`` is the token counter of the model's tokenizer (or the best estimate);
    ``window`` is the num_ctx sent to the model. Raises ConfigurationError when even
    the instruction, background, question and requirements do not fit.
    """
    prompt_budget = window - answer_reserve
    if prompt_budget <= 0:
        raise ConfigurationError(f"answer reserve {answer_reserve} leaves no room in a window of {window} tokens")
    if not 0 < materials_share <= 1:
        raise ConfigurationError(f"materials_share must be in (0, 1], got {materials_share}")
    steps: list[str] = []
    all_scope = "全部已索引文档" if template.language == "zh" else "all indexed documents"
    layout = _Layout(template, question, _documents_text(template, materials), scope or all_scope)
    overhead = 2 * message_overhead_tokens

    def fixed_cost() -> int:
        return count(template.system) + count(layout.user([])) + overhead

    if fixed_cost() > prompt_budget:
        _shrink_fixed_parts(layout, prompt_budget, fixed_cost, steps)
    fixed = fixed_cost()
    materials_budget = min(int(window * materials_share), prompt_budget - fixed)

    sep_cost = count("\n\n")

    def cost(n: int, material: Material, text: str) -> int:
        return count(layout.item(n, material, text)) + sep_cost

    forms = ["full"] * len(materials)
    texts = [m.text for m in materials]
    costs = [cost(i + 1, m, m.text) for i, m in enumerate(materials)]

    if sum(costs) > materials_budget:
        for i in reversed(range(len(materials))):  # 1. summaries, least relevant first
            if sum(costs) <= materials_budget:
                break
            summary = materials[i].summary
            if summary and (c := cost(i + 1, materials[i], summary)) < costs[i]:
                forms[i], texts[i], costs[i] = "summary", summary, c
                if "summaries" not in steps:
                    steps.append("summaries")

    keep = len(materials)
    if sum(costs) > materials_budget:  # 2. fewer chunks: the longest prefix that fits
        used, keep = 0, 0
        while keep < len(materials) and used + costs[keep] <= materials_budget:
            used += costs[keep]
            keep += 1
        steps.append("fewer_chunks")
        for i in range(keep):  # a summary that is no longer needed goes back to full text
            if forms[i] == "summary":
                full = cost(i + 1, materials[i], materials[i].text)
                if used - costs[i] + full <= materials_budget:
                    used += full - costs[i]
                    forms[i], texts[i], costs[i] = "full", materials[i].text, full

    included = [IncludedMaterial(i + 1, materials[i], forms[i], texts[i], costs[i]) for i in range(keep)]
    dropped = list(materials[keep:])

    room = materials_budget - sum(costs[:keep])
    if dropped and (room >= min_fragment_tokens or not included):  # 3. cut the next material at a sentence end
        n, material = keep + 1, materials[keep]
        fragment, clean = cut_at_sentence_end(texts[keep], lambda t: cost(n, material, t) <= room)
        if fragment:
            included.append(IncludedMaterial(n, material, "truncated", fragment, cost(n, material, fragment)))
            dropped.pop(0)
            steps.append("truncated" if clean else "truncated_mid_sentence")

    return _finish(layout, template, included, dropped, steps, count, overhead, fixed,
                   window=window, answer_reserve=answer_reserve, prompt_budget=prompt_budget,
                   materials_budget=materials_budget)


def _documents_text(template: QATemplate, materials: Sequence[Material]) -> str:
    """The background's document list; naming all candidates is an upper bound of the final one."""
    documents = list(dict.fromkeys(m.document for m in materials if m.document))
    if template.language == "zh":
        return "、".join(documents) or "（无）"
    return ", ".join(documents) or "(none)"


def _shrink_fixed_parts(layout: _Layout, prompt_budget: int, fixed_cost: Callable[[], int], steps: list[str]) -> None:
    """Cut the document list, then the question, when the fixed parts alone overflow."""
    original = layout.background_documents
    layout.background_documents = ""
    if fixed_cost() <= prompt_budget:
        def fits_docs(text: str) -> bool:
            layout.background_documents = text
            return fixed_cost() <= prompt_budget

        kept, _ = cut_at_sentence_end(original.replace("、", "、\n").replace(", ", ",\n"), fits_docs)
        layout.background_documents = kept.replace("\n", "")
        steps.append("background_cut")
        return
    original_question = layout.question

    def fits_question(text: str) -> bool:
        layout.question = text
        return fixed_cost() <= prompt_budget

    kept, _ = cut_at_sentence_end(original_question, fits_question)
    layout.question = kept
    if not kept or fixed_cost() > prompt_budget:
        raise ConfigurationError(
            f"the window ({prompt_budget} tokens after the answer reserve) cannot hold the prompt template"
        )
    steps.extend(["background_cut", "question_cut"])


def _finish(
    layout: _Layout,
    template: QATemplate,
    included: list[IncludedMaterial],
    dropped: list[Material],
    steps: list[str],
    count: TokenCount,
    overhead: int,
    fixed: int,
    *,
    window: int,
    answer_reserve: int,
    prompt_budget: int,
    materials_budget: int,
) -> AssembledPrompt:
    """Render, re-count the whole text, and drop from the tail if token counts were not additive."""
    while True:
        if "background_cut" not in steps:  # name only the documents that made it in
            layout.background_documents = _documents_text(template, [i.material for i in included])
        items = [layout.item(i.n, i.material, i.text) for i in included]
        user = layout.user(items)
        total = count(template.system) + count(user) + overhead
        materials_tokens = sum(i.tokens for i in included)
        if (total <= prompt_budget and materials_tokens <= materials_budget) or not included:
            break
        dropped.insert(0, included.pop().material)
        if "fewer_chunks" not in steps:
            steps.append("fewer_chunks")
    parts = {
        "system": count(template.system),
        "instruction": count(template.instruction),
        "background": count(layout.background()),
        "materials": materials_tokens,
        "question": count(template.question.format(question=layout.question)),
        "requirements": count(template.render_requirements()),
        "overhead": overhead,
        "total": total,
    }
    budget = {
        "window": window,
        "answer_reserve": answer_reserve,
        "prompt_budget": prompt_budget,
        "materials_budget": materials_budget,
        "fixed": fixed,
    }
    return AssembledPrompt(
        system=template.system,
        user=user,
        tokens=parts,
        budget=budget,
        included=included,
        dropped=dropped,
        steps=steps or ["all_fit"],
    )
