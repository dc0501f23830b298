"""The section of a document a question names ("第三节", "核心竞争力分析", "公司治理一节", "the Risk Factors
section", "MD&A … liquidity and capital resources"), as the text under its heading, chunk by chunk.

Two places a section is found, the first that answers wins:

* the document's own chapter headings, read from its chunks' lines: "第三节 公司业务概要" (a 年报's chapters) and
  capitalised headings ("LIQUIDITY AND CAPITAL RESOURCES"). A PDF's summary tree often misses these (its nodes are
  page ranges with the "一、…" headings under them), and a chapter spans many of its nodes. The section runs from its
  heading line to the next heading of the same kind; table-of-contents lines (dot leaders) and running page headers
  (a capitalised line on many chunks) are not headings;
* the summary tree's section nodes, named the same way (by ordinal, or by a heading's own words without its
  "二、" / "（一）" / "Item 7." numbering): the node and its children's chunks, from the node's heading line on.

Why: such a question asks for what that part of the document says; the root summary or the passages that share its
words ("公司治理" is on fifty pages) are not that.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from indexing.summary.query import (
    fold_question,
    fold_title,
    is_generic,
    question_ordinals,
    section_chunk_ids,
    title_ordinal,
)
from indexing.summary.store import SummaryStore

__all__ = ["Heading", "Piece", "Section", "find_section", "names_a_section", "scan_headings", "section_name"]

#: A chapter heading line: "第三节公司业务概要", "第十二节 财务报告", "第4章 结论".
_CHAPTER = re.compile(r"^\s*#*\s*第\s*[零〇一二两三四五六七八九十百\d]{1,4}\s*[章节篇部]\s*\S.{0,28}$")
#: A table-of-contents line: dot leaders, or a title followed by its page number.
_TOC = re.compile(r"\.{4,}|…{2,}|·{4,}|\s\d{1,3}\s*$")
_NOT_TITLE = re.compile(r"[。，；;“”\"]|[.,]$")
#: Chunks a capitalised line may repeat on before it is a running page header, not a heading.
_HEADER_CHUNKS = 3
#: Letters a Latin heading's words need to name it ("Outlook" does; "Tax" is a word of too many questions).
_MIN_LATIN = 5
#: Chunks of one section read at most (a 年报 chapter of twenty pages).
MAX_CHUNKS = 48
#: A question that names a section by its form, whether or not the document has it.
_NAMING = re.compile(
    r"第\s*[零〇一二两三四五六七八九十百\d]{1,4}\s*[章节篇部]|(?P<zh>\S{2,16}?)(?:这一节|一节|这一章|章节)|"
    r"\bthe\s+(?P<en>[\w&'’ -]{2,40}?)\s+section\b|\b(?:chapter|section|part)\s+(?:\d{1,3}|[ivxl]{1,6})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Heading:
    """A chapter heading found in a document's text: the line, its position (chunk, line) and its kind."""

    title: str
    chunk: int
    line: int
    kind: str  # "chapter" (第X节) or "caps" (LIQUIDITY AND CAPITAL RESOURCES)


@dataclass(frozen=True, slots=True)
class Piece:
    """Part of a section's text that lies in one chunk."""

    chunk_id: str
    text: str
    meta: dict[str, Any]


@dataclass(slots=True)
class Section:
    """A named section: its title and its text, piece by piece in reading order."""

    doc_id: str
    title: str
    pieces: list[Piece] = field(default_factory=list)

    @property
    def pages(self) -> tuple[int | None, int | None]:
        pages = [int(p.meta["page"]) for p in self.pieces if str(p.meta.get("page", "")).isdigit()]
        return (min(pages), max(pages)) if pages else (None, None)


def names_a_section(question: str) -> bool:
    """The question names a section by its form ("第三节", "公司治理一节", "the Risk Factors section")."""
    return _NAMING.search(question) is not None


def section_name(question: str) -> str:
    """The words a question names its section by ("History" of "Summarize the History section", "数据并行" of
    "数据并行一节讲了什么"); "" for a section named by its number ("第三节", "section 2") or none named."""
    match = _NAMING.search(question)
    if match is None:
        return ""
    return (match.group("zh") or match.group("en") or "").strip()


def _is_caps(line: str) -> bool:
    """A capitalised heading line of Latin text: 2-9 words, at least 8 letters, none lower-case."""
    letters = [c for c in line if c.isascii() and c.isalpha()]
    words = line.split()
    return (2 <= len(words) <= 9 and len(letters) >= 8 and all(c.isupper() for c in letters)
            and line[0].isascii() and line[0].isalpha() and len(letters) >= 0.6 * len(line.replace(" ", "")))


def scan_headings(chunks: Sequence[tuple[str, str, dict[str, Any]]]) -> list[Heading]:
    """The chapter headings of a document's chunks (id, text, metadata) in reading order, each once."""
    found: list[Heading] = []
    caps_chunks: Counter[str] = Counter()
    for index, (_, text, _) in enumerate(chunks):
        for number, raw in enumerate(text.splitlines()):
            line = raw.strip().lstrip("#").strip()  # a Markdown heading's marks
            if not line or _TOC.search(line) or _NOT_TITLE.search(line):
                continue
            if _CHAPTER.match(line):
                found.append(Heading(line, index, number, "chapter"))
            elif _is_caps(line):
                found.append(Heading(line, index, number, "caps"))
        caps_chunks.update({h.title for h in found if h.chunk == index and h.kind == "caps"})
    seen: set[str] = set()
    kept: list[Heading] = []
    for heading in found:  # a chunk overlap repeats a heading; a running header repeats on many chunks
        key = re.sub(r"\s+", "", heading.title)
        if key in seen or (heading.kind == "caps" and caps_chunks[heading.title] > _HEADER_CHUNKS):
            continue
        seen.add(key)
        kept.append(heading)
    return kept


def _match(heading: str, folded: str, ordinals: list[tuple[int, str]]) -> int:
    """How well ``heading`` is named: by its ordinal (best), else by the length of its words; 0 when not named."""
    ordinal = title_ordinal(heading)
    if ordinal is not None and ordinal in ordinals:
        return 1000
    words = fold_title(heading)
    long_enough = len(words) >= (_MIN_LATIN if words.isascii() else 2)
    return len(words) if long_enough and not is_generic(words) and words in folded else 0


def _slice(chunks: Sequence[tuple[str, str, dict[str, Any]]], start: Heading, end: Heading | None) -> list[Piece]:
    """The text from ``start``'s line to ``end``'s (or :data:`MAX_CHUNKS` chunks), piece by chunk."""
    last = min(end.chunk if end is not None else len(chunks) - 1, start.chunk + MAX_CHUNKS - 1)
    pieces: list[Piece] = []
    for index in range(start.chunk, last + 1):
        chunk_id, text, meta = chunks[index]
        lines = text.splitlines()
        first = start.line if index == start.chunk else 0
        stop = end.line if end is not None and index == end.chunk else len(lines)
        body = "\n".join(lines[first:stop]).strip()
        if body:
            pieces.append(Piece(chunk_id, body, dict(meta)))
    return pieces


def _from_headings(doc_id: str, chunks: Sequence[tuple[str, str, dict[str, Any]]], question: str
                   ) -> Section | None:
    headings = scan_headings(chunks)
    folded, ordinals = fold_question(question), question_ordinals(question)
    scores = [_match(h.title, folded, ordinals) for h in headings]
    if not any(scores):
        return None
    best = scores.index(max(scores))  # the earliest of the best named
    heading = headings[best]
    end = next((h for h in headings[best + 1:] if h.kind == heading.kind), None)
    return Section(doc_id, heading.title, _slice(chunks, heading, end))


def _from_tree(store: SummaryStore, doc_id: str, chunks: Sequence[tuple[str, str, dict[str, Any]]],
               question: str) -> Section | None:
    tree = store.tree(doc_id)
    nodes = [n for n in tree.nodes if n.parent is not None and n.kind == "section"] if tree is not None else []
    folded, ordinals = fold_question(question), question_ordinals(question)
    scores = [_match(n.title, folded, ordinals) for n in nodes]
    if tree is None or not any(scores):
        return None
    node = nodes[scores.index(max(scores))]  # the earliest of the best named: an outer one before its own parts
    wanted = section_chunk_ids(tree, node)[:MAX_CHUNKS]
    by_id = {chunk_id: (index, text) for index, (chunk_id, text, _) in enumerate(chunks)}
    present = [c for c in wanted if c in by_id]
    if not present:
        return None
    first_index, first_text = by_id[present[0]]
    lines = first_text.splitlines()
    title_line = next((n for n, line in enumerate(lines) if fold_title(line) == fold_title(node.title)), 0)
    start = Heading(node.title, first_index, title_line, "tree")
    pieces = _slice(chunks, start, None)[:1]
    pieces += [Piece(c, chunks[by_id[c][0]][1], dict(chunks[by_id[c][0]][2])) for c in present[1:]]
    return Section(doc_id, node.title, pieces)


def find_section(store: SummaryStore | None, doc_id: str, chunks: Sequence[tuple[str, str, dict[str, Any]]],
                 question: str) -> Section | None:
    """The section of the document ``question`` names: a chapter heading of its text, else a tree node."""
    section = _from_headings(doc_id, chunks, question)
    if section is None and store is not None:
        section = _from_tree(store, doc_id, chunks, question)
    return section if section is not None and section.pieces else None
