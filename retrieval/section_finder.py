"""The section of a document a question names ("第三节", "核心竞争力分析", "公司治理一节", "the Risk Factors
section", "MD&A … liquidity and capital resources"), as the text under its heading, chunk by chunk.

Three places a section is found, the first that answers wins:

* the document's own chapter headings, read from its chunks' lines: "第三节 公司业务概要" (a 年报's chapters) and
  capitalised headings ("LIQUIDITY AND CAPITAL RESOURCES"). A PDF's summary tree often misses these (its nodes are
  page ranges with the "一、…" headings under them), and a chapter spans many of its nodes. The section runs from its
  heading line to the next heading of the same kind; table-of-contents lines (dot leaders) and running page headers
  (a capitalised line on many chunks) are not headings;
* the heading paths the parser gave the chunks (``retrieval.section_outline``): a Markdown ``##`` or setext
  heading, a Word heading, an outline's item; the section runs to the next heading at its level or above;
* the summary tree's section nodes, named the same way (by ordinal, or by a heading's own words without its
  "二、" / "（一）" / "Item 7." numbering): the node and its children's chunks, from the node's heading line on.

A heading is named by its number, by its own words inside the question ("1960s–1980s" in "the 1960s-1980s
section"), by all its words ("the 1910s to 1950s section"), or by exactly the name the question gives it ("MoE一节",
however short); a section may also be asked for by its place in the outline (:func:`section_at`).

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
from indexing.summary.tree import SummaryNode, SummaryTree
from retrieval.citations import heading_list
from retrieval.section_outline import Chunks, outline_level, placed_headings

__all__ = ["Heading", "Piece", "Section", "find_section", "names_a_section", "outline", "scan_headings",
           "section_at", "section_name"]

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
    r"第\s*[零〇一二两三四五六七八九十百\d]{1,4}\s*[章节篇部]|(?P<zh>\S{2,16}?)(?<!第)(?:这一节|一节|这一章|章节)|"
    r"\bthe\s+(?P<en>[\w&'’ –-]{2,40}?)\s+section\b|\b(?:chapter|section|part)\s+(?:\d{1,3}|[ivxl]{1,6})\b|"
    r"\bsection\s+(?:about|on|called|titled|named|headed)\s+(?:the\s+)?[\"“]?(?P<about>[\w&'’ –-]{2,40}?)[\"”]?"
    r"\s*(?:[?.!,;]|$|\b(?:of|in|from)\b)",
    re.IGNORECASE,
)
#: A name in quotes before the section word ("guide.md中“Booking trains”一节", "the “FSDP” section"): the quotes
#: bound the name, where the unquoted form takes the sixteen characters before 一节 (the file name's tail with it).
_QUOTED = re.compile(r"[“\"「『]\s*(?P<name>[^“”\"「」『』]{1,40}?)\s*[”\"」』]\s*"
                     r"(?:这一节|一节|这一章|章节|section\b)", re.IGNORECASE)
#: Words a heading's words are matched without ("the 1910s to 1950s section" names "1910s–1950s").
_JOINING = frozenset(["a", "an", "and", "the", "of", "to", "in", "on", "for", "from", "with"])


@dataclass(frozen=True, slots=True)
class Heading:
    """A chapter heading found in a document's text: the line, its position (chunk, line) and its kind."""

    title: str
    chunk: int
    line: int
    kind: str  # "chapter" (第X节), "caps" (LIQUIDITY AND CAPITAL RESOURCES) or "path" (the parser's heading path)
    level: int = 0  # a path heading's depth; chapter and caps headings are all one level


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
    quoted = _QUOTED.search(question)
    if quoted is not None:
        return quoted.group("name").strip()
    match = _NAMING.search(question)
    if match is None:
        return ""
    return (match.group("zh") or match.group("en") or match.group("about") or "").strip()


def _is_caps(line: str) -> bool:
    """A capitalised heading line of Latin text: 2-9 words, at least 8 letters, none lower-case."""
    letters = [c for c in line if c.isascii() and c.isalpha()]
    words = line.split()
    return (2 <= len(words) <= 9 and len(letters) >= 8 and all(c.isupper() for c in letters)
            and line[0].isascii() and line[0].isalpha() and len(letters) >= 0.6 * len(line.replace(" ", "")))


def scan_headings(chunks: Chunks) -> list[Heading]:
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


@dataclass(frozen=True, slots=True)
class _Asked:
    """What a question names a heading by: its folded text, its ordinals, the name it gives ("1910s to 1950s" of
    "the 1910s to 1950s section") and that name's Latin words."""

    folded: str
    ordinals: list[tuple[int, str]]
    name: str
    words: frozenset[str]

    @classmethod
    def of(cls, question: str) -> _Asked:
        name = section_name(question)
        words = frozenset(re.findall(r"[a-z0-9]+", name.lower()))
        return cls(fold_question(question), question_ordinals(question), fold_title(name), words)


def _match(heading: str, asked: _Asked) -> int:
    """How well ``heading`` is named: by its ordinal (best), by exactly the name the question gives (however short:
    "MoE一节"), else by the length of its words inside the question or all its Latin words inside that name (a loose
    phrase of the same name, never words scattered over a question that names no section); 0 when not named."""
    ordinal = title_ordinal(heading)
    if ordinal is not None and (ordinal in asked.ordinals or (  # "section 3" names "3. Results" too
            ordinal[1] == "" and ordinal[0] in {number for number, _ in asked.ordinals})):
        return 1000
    words = fold_title(heading)
    if words and words == asked.name:
        return 500 + len(words)
    long_enough = len(words) >= (_MIN_LATIN if words.isascii() else 2)
    if not long_enough or is_generic(words):
        return 0
    latin = [w for w in re.findall(r"[a-z0-9]+", heading.lower()) if w not in _JOINING]
    all_words = words.isascii() and len(latin) > 1 and all(w in asked.words for w in latin)
    return len(words) if words in asked.folded or all_words else 0


def _slice(chunks: Chunks, start: Heading, end: Heading | None) -> list[Piece]:
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


def _section_of(doc_id: str, chunks: Chunks, headings: list[Heading], at: int) -> Section:
    """The section under ``headings[at]``: to the next heading of its kind at its level or above."""
    heading = headings[at]
    end = next((h for h in headings[at + 1:] if h.kind == heading.kind and h.level <= heading.level), None)
    pieces = _slice(chunks, heading, end)
    if heading.kind == "path":
        _cite_under(pieces, [*_ancestors(headings[:at], heading.level), heading.title])
    return Section(doc_id, heading.title, pieces)


def _ancestors(before: list[Heading], level: int) -> list[str]:
    """The titles of the path headings above one at ``level``, outermost first."""
    path: list[str] = []
    for heading in reversed(before):
        if heading.kind == "path" and heading.level < level:
            path.insert(0, heading.title)
            level = heading.level
    return path


def _cite_under(pieces: list[Piece], path: list[str]) -> None:
    """Pieces whose chunk's heading path misses the section (tiny sections merged into one chunk carry the first
    one's path) are cited by the section's path: a citation names the section it quotes."""
    for piece in pieces:
        if path[-1] not in heading_list(piece.meta.get("heading_path")):
            piece.meta["heading_path"] = " > ".join(path)


def _named(doc_id: str, chunks: Chunks, headings: list[Heading], asked: _Asked) -> Section | None:
    scores = [_match(h.title, asked) for h in headings]
    if not any(scores):
        return None
    return _section_of(doc_id, chunks, headings, scores.index(max(scores)))  # the earliest (outermost) best


#: The parser's headings of a document as (title, level), in reading order (``section_outline.placed_headings``).
Parsed = Sequence[tuple[str, int]]


def _paths(chunks: Chunks, parsed: Parsed) -> list[Heading]:
    return [Heading(title, chunk, line, "path", level) for title, level, chunk, line in placed_headings(chunks, parsed)]


def _tree_nodes(store: SummaryStore | None, doc_id: str) -> tuple[SummaryTree | None, list[SummaryNode]]:
    tree = store.tree(doc_id) if store is not None else None
    nodes = [n for n in tree.nodes if n.parent is not None and n.kind == "section"] if tree is not None else []
    return tree, nodes


def _tree_section(tree: SummaryTree, node: SummaryNode, doc_id: str, chunks: Chunks) -> Section | None:
    """The node and its children's chunks, from the node's heading line on."""
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


def _from_tree(store: SummaryStore | None, doc_id: str, chunks: Chunks, asked: _Asked) -> Section | None:
    tree, nodes = _tree_nodes(store, doc_id)
    scores = [_match(n.title, asked) for n in nodes]
    if tree is None or not any(scores):
        return None
    return _tree_section(tree, nodes[scores.index(max(scores))], doc_id, chunks)  # an outer one before its parts


def find_section(store: SummaryStore | None, doc_id: str, chunks: Chunks, question: str, parsed: Parsed = ()
                 ) -> Section | None:
    """The section of the document ``question`` names: a chapter heading of its text, else one of the parser's
    headings (``parsed``, else the chunks' heading paths) when the question names a section by its form ("the X
    section", "X一节": every heading of a document, its title too, would otherwise be a section any question
    spelling its words asks for), else a summary-tree node."""
    asked = _Asked.of(question)
    section = _named(doc_id, chunks, scan_headings(chunks), asked)
    if section is None and names_a_section(question):  # "Summarize the remote work guidelines" names no section
        section = _named(doc_id, chunks, _paths(chunks, parsed), asked)
    if section is None:
        section = _from_tree(store, doc_id, chunks, asked)
    return section if section is not None and section.pieces else None


def _top(headings: list[Heading]) -> list[Heading]:
    """The headings a reader lists: chapters when there are any, else capitalised ones, else the outline level of
    the heading paths."""
    for kind in ("chapter", "caps"):
        if any(h.kind == kind for h in headings):
            return [h for h in headings if h.kind == kind]
    level = outline_level([h.level for h in headings])
    return [h for h in headings if h.level == level]


def _top_nodes(nodes: list[SummaryNode]) -> list[SummaryNode]:
    level = outline_level([n.level for n in nodes])
    return [n for n in nodes if n.level == level]


def outline(store: SummaryStore | None, doc_id: str, chunks: Chunks, parsed: Parsed = ()) -> list[str]:
    """The titles of the document's sections a reader can ask for, in reading order; [] when none are known."""
    top = _top([*scan_headings(chunks), *_paths(chunks, parsed)])
    if top:
        return [h.title for h in top]
    return [n.title for n in _top_nodes(_tree_nodes(store, doc_id)[1])]


def section_at(store: SummaryStore | None, doc_id: str, chunks: Chunks, index: int, parsed: Parsed = ()
               ) -> Section | None:
    """The section at ``index`` (0 the first, -1 the last) of the document's outline (:func:`outline`)."""
    headings = [*scan_headings(chunks), *_paths(chunks, parsed)]
    top = _top(headings)
    if top and -len(top) <= index < len(top):
        section: Section | None = _section_of(doc_id, chunks, headings, headings.index(top[index]))
    else:
        tree, nodes = _tree_nodes(store, doc_id)
        top_nodes = _top_nodes(nodes)
        in_range = tree is not None and -len(top_nodes) <= index < len(top_nodes)
        section = _tree_section(tree, top_nodes[index], doc_id, chunks) if tree is not None and in_range else None
    return section if section is not None and section.pieces else None
