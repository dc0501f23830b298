"""The chosen sentences as the answer a user reads: one line per quote, each tagged [n], with its citation.

Why apart: what is quoted (each quote once, a list announcement with its items, every row of a listed
table) is a rendering rule shared by the word-matched and the cross-language answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from prompts.assembler import Material, split_sentences
from retrieval.citations import Citation, citation_from_metadata
from retrieval.extractive.scoring import Candidate, LabelOf, clean, is_table, quotable

#: A question that asks for every item ("有哪些", "分别由谁负责", "list the ...").
_LIST_QUESTION = re.compile(r"哪些|分别|列出|列举|罗列|都有什么|都是什么|清单|名单|\blist\b|\bwhat are\b|\bwhich are\b|"
                            r"\ball the\b", re.IGNORECASE)
#: At most this many items of one list are quoted (a longer list says how many more there are).
LIST_ITEMS = 30


@dataclass(slots=True)
class ExtractiveAnswer:
    """Quoted sentences, each tagged [n], and the citations they point to."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    sentences: list[tuple[int, str, float]] = field(default_factory=list)  # (n, sentence, score)
    found: bool = True
    coverage: float = 0.0


def asks_for_list(question: str) -> bool:
    """Whether the question asks for every item of a list, not the best sentence."""
    return _LIST_QUESTION.search(question) is not None


def whole_lists(chosen: list[Candidate], materials: Sequence[Material]) -> list[Candidate]:
    """A list question: a chosen table row brings every row of its table chunk (the action items, all five),
    in the table's order; other chosen sentences stay where they are."""
    out: list[Candidate] = []
    expanded: set[int] = set()
    for candidate in chosen:
        if not is_table(materials[candidate.material]):
            out.append(candidate)
            continue
        if candidate.material in expanded:
            continue
        expanded.add(candidate.material)
        rows = quotable(materials[candidate.material])[:LIST_ITEMS]
        out += [Candidate(candidate.score, candidate.coverage, candidate.material, si, sentence)
                for si, sentence in rows]
    return out


def render(
    head: list[str],
    chosen: list[Candidate],
    materials: Sequence[Material],
    label_of: LabelOf | None,
    *,
    found: bool,
    coverage: float,
    listing: bool = False,
) -> ExtractiveAnswer:
    """``head`` lines, then one line per chosen sentence (each quote once), with one citation per material."""
    lines = list(head)
    citations: dict[int, Citation] = {}
    sentences: list[tuple[int, str, float]] = []
    quoted: list[str] = []
    for candidate in chosen:
        if any(candidate.sentence in earlier for earlier in quoted):
            continue  # each quote once: a sentence a list announcement already carried is not repeated
        n, material = candidate.material + 1, materials[candidate.material]
        sentence = with_continuation(candidate.sentence, material.text, candidate.index,
                                     *((LIST_ITEMS, 1_500) if listing else ()))
        quoted.append(sentence)
        label = label_of(material, candidate.sentence) if label_of is not None else None
        lines.append(f"- {f'{label}：{sentence}' if label else sentence} [{n}]")
        sentences.append((n, sentence, round(candidate.score, 4)))
        if n not in citations:
            citations[n] = _citation(n, material, candidate.sentence, label or "")
    return ExtractiveAnswer(text="\n".join(lines), citations=[citations[n] for n in sorted(citations)],
                            sentences=sentences, found=found, coverage=round(coverage, 4))


def _citation(n: int, material: Material, quote: str, label_note: str) -> Citation:
    citation = citation_from_metadata(n, material.chunk_id, str(material.meta.get("doc_id", "")), material.meta,
                                      quote=quote)
    citation.label_note = label_note
    return citation


def with_continuation(sentence: str, text: str, index: int, max_items: int = 4, max_chars: int = 240) -> str:
    """A sentence that announces a list ("…由三个主要元素组成：") keeps the items that follow it."""
    if not sentence.endswith(("：", ":")):
        return sentence
    parts = [sentence]
    following = (item for raw in split_sentences(text)[index + 1 :] if (item := clean(raw)))
    for item in following:
        if len(parts) > max_items or sum(len(p) for p in parts) + len(item) > max_chars:
            break
        parts.append(item)
    return " ".join(parts)
