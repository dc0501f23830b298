"""The summary tree's values: planned nodes (structure only) and finished nodes (with their summary).

Why two types: the structure of a tree is a pure function of the document's chunks and the
settings, so it is recomputed on every run and never trusted from disk; a node's summary is
an expensive model output, stored by the hash of its inputs and looked up again. A
:class:`SummaryNode` is the two joined, as the query side and the reports read them.

Levels: the document node is level 0, its children level 1, and so on; ``kind`` says what
a node covers: ``document``, ``section`` (a heading), ``part`` (consecutive children of one
node taken together, where headings are missing or a node has too many children) or
``group`` (consecutive chunks of one section, read by the model as source text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from officeqa.locations import format_location

NodeKind = Literal["document", "section", "part", "group"]


@dataclass(slots=True)
class SourceChunk:
    """A chunk as the tree reads it: its text without the overlap it repeats from the previous chunk."""

    id: str
    text: str
    heading_path: list[str]
    tokens: int
    page: int | None = None
    page_end: int | None = None
    slide: int | None = None


@dataclass(slots=True)
class Span:
    """What a node covers in the source: pages and slides (first, last) and chunk ids."""

    page: int | None = None
    page_end: int | None = None
    slide: int | None = None
    slide_end: int | None = None
    chunk_first: str = ""
    chunk_last: str = ""

    @classmethod
    def of_chunks(cls, chunks: list[SourceChunk]) -> Span:
        pages = [p for c in chunks for p in (c.page, c.page_end) if p is not None]
        slides = [c.slide for c in chunks if c.slide is not None]
        return cls(
            page=min(pages) if pages else None,
            page_end=max(pages) if pages else None,
            slide=min(slides) if slides else None,
            slide_end=max(slides) if slides else None,
            chunk_first=chunks[0].id if chunks else "",
            chunk_last=chunks[-1].id if chunks else "",
        )

    @classmethod
    def union(cls, spans: list[Span]) -> Span:
        pages = [p for s in spans for p in (s.page, s.page_end) if p is not None]
        slides = [p for s in spans for p in (s.slide, s.slide_end) if p is not None]
        firsts = [s.chunk_first for s in spans if s.chunk_first]
        lasts = [s.chunk_last for s in spans if s.chunk_last]
        return cls(
            page=min(pages) if pages else None,
            page_end=max(pages) if pages else None,
            slide=min(slides) if slides else None,
            slide_end=max(slides) if slides else None,
            chunk_first=firsts[0] if firsts else "",
            chunk_last=lasts[-1] if lasts else "",
        )

    def pages(self) -> list[int] | None:
        """[first, last] page, or None where the format has no pages (docx without breaks, xlsx, md)."""
        if self.page is None:
            return None
        return [self.page, self.page_end if self.page_end is not None else self.page]

    def label(self) -> str:
        """"p. 3-7" (``officeqa.locations`` spelling), "slides 2-4", or "" (for titles and report lines)."""
        if self.page is not None:
            return format_location(page=self.page, page_end=self.page_end)
        if self.slide is not None:
            end = self.slide_end if self.slide_end is not None else self.slide
            return f"slide {self.slide}" if end == self.slide else f"slides {self.slide}-{end}"
        return ""


@dataclass(slots=True)
class PlannedNode:
    """One node of a planned tree: structure and inputs, no summary yet.

    A node with ``chunks`` summarises source text (a leaf); a node with ``children``
    combines their summaries; a node with exactly one child takes that child's summary
    as its own (no model call: a summary of one summary says nothing new).
    """

    id: str
    parent: str | None
    level: int
    kind: NodeKind
    title: str
    heading_path: list[str]
    span: Span
    children: list[str] = field(default_factory=list)
    chunks: list[SourceChunk] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def chunk_ids(self) -> list[str]:
        return [c.id for c in self.chunks]


@dataclass(slots=True)
class SummaryNode:
    """A finished node: structure, span, summary and how the summary was made."""

    id: str
    parent: str | None
    children: list[str]
    level: int
    kind: str
    title: str
    heading_path: list[str]
    span: Span
    chunk_ids: list[str]
    key: str
    summary: str
    tokens: int
    model: str
    prompt_version: str
    extractive: bool

    def to_json(self) -> dict[str, Any]:
        """The node in ``officeqa summarize --format json`` (contract fields first, then the rest)."""
        return {
            "id": self.id,
            "parent": self.parent,
            "level": self.level,
            "title": self.title,
            "pages": self.span.pages(),
            "summary": self.summary,
            "extractive": self.extractive,
            "kind": self.kind,
            "children": list(self.children),
            "heading_path": list(self.heading_path),
            "slides": None if self.span.slide is None else [self.span.slide, self.span.slide_end or self.span.slide],
            "chunks": {"first": self.span.chunk_first, "last": self.span.chunk_last, "ids": list(self.chunk_ids)},
            "tokens": self.tokens,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "key": self.key,
        }


@dataclass(slots=True)
class SummaryTree:
    """All nodes of one document's tree, in document order (parents before their children)."""

    doc_id: str
    path: str
    title: str
    language: str
    nodes: list[SummaryNode]
    built_at: str = ""
    _by_id: dict[str, SummaryNode] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id = {n.id: n for n in self.nodes}

    @property
    def root(self) -> SummaryNode:
        return self.nodes[0]

    def node(self, node_id: str) -> SummaryNode:
        return self._by_id[node_id]

    def children(self, node: SummaryNode) -> list[SummaryNode]:
        return [self._by_id[c] for c in node.children]

    @property
    def extractive_nodes(self) -> int:
        return sum(1 for n in self.nodes if n.extractive)

    def to_json(self) -> dict[str, Any]:
        """``{"document", "nodes": [...]}`` as ``officeqa summarize --format json`` writes it."""
        return {
            "document": self.path,
            "doc_id": self.doc_id,
            "title": self.title,
            "language": self.language,
            "built_at": self.built_at,
            "nodes": [n.to_json() for n in self.nodes],
        }


__all__ = ["NodeKind", "PlannedNode", "SourceChunk", "Span", "SummaryNode", "SummaryTree"]
