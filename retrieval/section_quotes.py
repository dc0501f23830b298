"""A report-topic answer ("有哪些风险", "发展战略和经营计划", "main risk factors") with no model quotes, after the
sections' summaries, the parts of those sections' own text that name the topic (with a model, the chunks holding
them are its materials beside the summaries): each numbered head that names it
("（1）市场风险：", "2、公司发展战略") with the start of the paragraph under it, and each enumerating paragraph that
names it ("…factors: …; …; …"). Read from the chunks of the sections the summary tree chose, not the whole report.

Why: an extractive section summary is a few central sentences, and a list of risks or plans is rarely central
(each item is said once); the items' heads are the answer a reader looks for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prompts.assembler import Material
from retrieval.answering import material_from_hit
from retrieval.citations import Citation, citation_from_metadata
from retrieval.knowledge import Knowledge

__all__ = ["MAX_CHUNKS", "MAX_POINTS", "MODEL_CHUNKS", "section_chunks", "section_quotes"]

#: Chunks of the chosen sections read (a section of a 300-page report is a few pages).
MAX_CHUNKS = 24
#: Chunks holding the quoted parts handed to a model beside the sections' summaries.
MODEL_CHUNKS = 4
#: Quoted parts at most, and characters per part.
MAX_POINTS = 8
MAX_CHARS = 1200
_HEAD_CHARS = 40
_UNDER_CHARS = 160
#: A head run into its own text ("3、公司行业地位公司是特色原料药企业…") is quoted this far: its text is the item.
_RUN_INTO_CHARS = 400
_HEAD = re.compile(r"^\s*(?:[（(]\s*[\d一二三四五六七八九十]{1,3}\s*[)）]|[\d一二三四五六七八九十]{1,3}\s*[、.．])")
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=\.)\s")


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n+", text) if p.strip()]


def _start(paragraph: str, limit: int = _UNDER_CHARS) -> str:
    """The paragraph's first sentences within ``limit`` characters (the first one cut when longer)."""
    taken = ""
    for sentence in (s for s in _SENTENCE_END.split(paragraph) if s.strip()):
        if taken and len(taken) + len(sentence) > limit:
            break
        taken += sentence
    taken = taken.strip()
    return taken if len(taken) <= limit else taken[:limit] + "…"


def _points(paragraphs: list[tuple[str, str]], words: Sequence[str]) -> list[tuple[str, str]]:
    """(part, chunk id): heads naming the topic with the start of what follows them (in the next chunk too),
    and enumerating paragraphs naming it."""
    found: list[tuple[str, str]] = []
    for i, (paragraph, chunk_id) in enumerate(paragraphs):
        lowered = paragraph.lower()
        if not any(w in lowered for w in words):
            continue
        if len(paragraph) <= _HEAD_CHARS and _HEAD.match(paragraph):
            under = _start(paragraphs[i + 1][0]) if i + 1 < len(paragraphs) else ""
            found.append((f"{paragraph} {under}".strip(), chunk_id))
        elif _HEAD.match(paragraph) and any(w in lowered[:_HEAD_CHARS // 2] for w in words):
            found.append((_start(paragraph, _RUN_INTO_CHARS), chunk_id))  # "1、业绩波动风险公司…": head run into text
        elif len(re.findall(r"[;；]", paragraph)) >= 3:
            found.append((paragraph if len(paragraph) <= MAX_CHARS else paragraph[:MAX_CHARS] + "…", chunk_id))
    return found


def _read(knowledge: Knowledge, chunk_ids: Sequence[str], words: Sequence[str]
          ) -> tuple[list[tuple[str, str]], dict[str, tuple[str, dict[str, Any]]]]:
    """The parts that name ``words`` as (part, chunk id), and the fetched chunks (text, metadata) by id."""
    ids = list(dict.fromkeys(chunk_ids))[:MAX_CHUNKS]
    fetched = knowledge.kb.fetch(ids) if ids and words else {}
    paragraphs: list[tuple[str, str]] = []  # the sections' text in order, chunk overlaps read once
    for chunk_id in (c for c in ids if c in fetched):
        known = {p for p, _ in paragraphs[-40:]}
        paragraphs.extend((p, chunk_id) for p in _paragraphs(fetched[chunk_id][0]) if p not in known)
    parts: list[tuple[str, str]] = []
    for point, chunk_id in _points(paragraphs, [w.lower() for w in words]):
        if len(parts) < MAX_POINTS and not any(point in s or s in point for s, _ in parts):
            parts.append((point, chunk_id))
    return parts, fetched


def section_quotes(knowledge: Knowledge, chunk_ids: Sequence[str], words: Sequence[str],
                   offset: int) -> tuple[list[str], list[Citation]]:
    """Quoted lines ("- part [n]", n from ``offset`` + 1) and their citations; none when no part names a word."""
    parts, fetched = _read(knowledge, chunk_ids, words)
    lines: list[str] = []
    citations: list[Citation] = []
    for n, (point, chunk_id) in enumerate(parts, start=offset + 1):
        meta = fetched[chunk_id][1]
        citations.append(citation_from_metadata(n, chunk_id, str(meta.get("doc_id", "")), meta, point))
        lines.append(f"- {_one_line(point)} [{n}]")
    return lines, citations


def section_chunks(knowledge: Knowledge, chunk_ids: Sequence[str], words: Sequence[str]) -> list[Material]:
    """For a model: the chunks holding those parts (at most :data:`MODEL_CHUNKS`), as materials to cite."""
    parts, fetched = _read(knowledge, chunk_ids, words)
    holding = list(dict.fromkeys(chunk_id for _, chunk_id in parts))[:MODEL_CHUNKS]
    return [material_from_hit(_Chunk(c, str(fetched[c][1].get("doc_id", "")), fetched[c][0], fetched[c][1]))
            for c in holding]


@dataclass(frozen=True, slots=True)
class _Chunk:
    """A stored chunk as a search hit (what a material is made from)."""

    chunk_id: str
    doc_id: str
    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    score: float = 1.0


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
