"""Plan a document's summary tree from its chunks: a pure function, deterministic for given inputs.

Shape (why each rule):

* Sections follow the chunks' heading paths, in document order; a heading path that
  reappears later (the same title under the same parent, "小结" twice) opens a new section
  rather than merging two places of the document.
* A section's own text (before, between or without subsections) is cut into groups of at
  most ``group_size`` consecutive chunks and ``leaf_input_tokens`` tokens: the leaves. Groups
  never cross a section boundary, so an edit inside one section changes only that
  section's leaves, and the nodes above it — not every group after it.
* A section with no subsections whose text is one group is itself the leaf.
* Where headings are missing, ``fallback_leaves`` consecutive leaves become one ``part``;
  any node with more than ``max_children`` children gets its children packed into parts,
  so no model call receives more child summaries than its window holds.
* A document entirely under one heading (its title) is not given an extra level.

Node ids are positional ("0", "0.2", "0.2.1"): stable while the structure is, and readable
in reports ("0.4" is the fourth child of the document).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from indexing.summary.tree import PlannedNode, SourceChunk, Span


@dataclass(slots=True)
class PlanLimits:
    """The knobs of the shape (from SummarySettings and the model's window)."""

    group_size: int = 4
    leaf_input_tokens: int = 4096
    fallback_leaves: int = 6
    max_children: int = 20

    def __post_init__(self) -> None:
        self.group_size = max(1, self.group_size)
        self.fallback_leaves = max(2, self.fallback_leaves)
        self.max_children = max(2, self.max_children)
        self.leaf_input_tokens = max(1, self.leaf_input_tokens)


@dataclass(slots=True)
class _Section:
    """A heading's section while walking the chunks: its items are chunk runs and subsections."""

    title: str
    path: list[str]
    items: list[list[SourceChunk] | _Section] = field(default_factory=list)

    def add_chunk(self, chunk: SourceChunk) -> None:
        if self.items and isinstance(self.items[-1], list):
            self.items[-1].append(chunk)
        else:
            self.items.append([chunk])


@dataclass(slots=True)
class _Draft:
    """A node before ids are given: kind, title, heading path and either chunks or child drafts."""

    kind: str
    title: str
    path: list[str]
    chunks: list[SourceChunk] = field(default_factory=list)
    children: list[_Draft] = field(default_factory=list)

    def span(self) -> Span:
        if self.chunks:
            return Span.of_chunks(self.chunks)
        return Span.union([c.span() for c in self.children])


def plan_tree(chunks: Sequence[SourceChunk], title: str, limits: PlanLimits | None = None) -> list[PlannedNode]:
    """The nodes of the tree for ``chunks`` (document order), root first, parents before children."""
    limits = limits or PlanLimits()
    root = _walk_sections(chunks)
    draft = _Draft(kind="document", title=title, path=[], children=_section_children(root, limits))
    draft = _hoist_title_section(draft)
    if len(draft.children) == 1 and draft.children[0].chunks:  # a one-group document: the root reads the text
        draft = _Draft(kind="document", title=title, path=[], chunks=draft.children[0].chunks)
    if not draft.chunks:
        draft.children = _fit_children(draft.children, limits, fallback=_all_leaves(draft.children))
    nodes: list[PlannedNode] = []
    _number(draft, "0", None, 0, nodes)
    return nodes


def _walk_sections(chunks: Sequence[SourceChunk]) -> _Section:
    """Sections from the chunks' heading paths; the returned root holds text before the first heading."""
    root = _Section(title="", path=[])
    stack: list[_Section] = [root]
    for chunk in chunks:
        path = [h for h in chunk.heading_path if h.strip()]
        depth = 0  # how many open sections (below the root) the chunk's path keeps
        while depth < len(stack) - 1 and depth < len(path) and stack[depth + 1].title == path[depth]:
            depth += 1
        del stack[depth + 1 :]
        for i in range(depth, len(path)):
            section = _Section(title=path[i], path=path[: i + 1])
            stack[-1].items.append(section)
            stack.append(section)
        stack[-1].add_chunk(chunk)
    return root


def _groups(run: list[SourceChunk], limits: PlanLimits) -> list[list[SourceChunk]]:
    """Consecutive chunks, at most group_size per group and leaf_input_tokens per group (a bigger chunk alone)."""
    groups: list[list[SourceChunk]] = []
    current: list[SourceChunk] = []
    tokens = 0
    for chunk in run:
        if current and (len(current) >= limits.group_size or tokens + chunk.tokens > limits.leaf_input_tokens):
            groups.append(current)
            current, tokens = [], 0
        current.append(chunk)
        tokens += chunk.tokens
    if current:
        groups.append(current)
    return groups


def _section_children(section: _Section, limits: PlanLimits) -> list[_Draft]:
    """Drafts for a section's items: chunk runs become group leaves, subsections become section drafts."""
    out: list[_Draft] = []
    for item in section.items:
        if isinstance(item, list):
            for group in _groups(item, limits):
                out.append(_Draft(kind="group", title="", path=list(section.path), chunks=group))
        else:
            out.append(_section_draft(item, limits))
    return out


def _section_draft(section: _Section, limits: PlanLimits) -> _Draft:
    children = _section_children(section, limits)
    if len(children) == 1 and children[0].kind == "group":  # one group of text and no subsection: the leaf
        return _Draft(kind="section", title=section.title, path=section.path, chunks=children[0].chunks)
    fallback = _all_leaves(children)
    return _Draft(kind="section", title=section.title, path=section.path,
                  children=_fit_children(children, limits, fallback))


def _all_leaves(children: list[_Draft]) -> bool:
    return bool(children) and all(c.kind == "group" for c in children)


def _fit_children(children: list[_Draft], limits: PlanLimits, fallback: bool) -> list[_Draft]:
    """Pack consecutive children into parts: of fallback_leaves where only text groups are (no headings),
    and recursively wherever there are more than max_children."""
    size = min(limits.fallback_leaves, limits.max_children) if fallback else limits.max_children
    if len(children) <= size:
        return children
    count = math.ceil(len(children) / size)
    parts: list[_Draft] = []
    for index in range(count):  # balanced: sizes differ by at most one
        lo, hi = index * len(children) // count, (index + 1) * len(children) // count
        members = children[lo:hi]
        parts.append(_Draft(kind="part", title="", path=list(members[0].path), children=members))
    if len(parts) > limits.max_children:
        return _fit_children(parts, limits, fallback=False)
    return parts


def _hoist_title_section(root: _Draft) -> _Draft:
    """A document whose text all sits under one heading (its title) starts at that heading's children."""
    if len(root.children) == 1 and root.children[0].kind == "section" and root.children[0].children:
        only = root.children[0]
        return _Draft(kind="document", title=root.title or only.title, path=[], children=only.children)
    return root


def _number(draft: _Draft, node_id: str, parent: str | None, level: int, out: list[PlannedNode]) -> None:
    span = draft.span()
    node = PlannedNode(
        id=node_id,
        parent=parent,
        level=level,
        kind=draft.kind,  # type: ignore[arg-type]
        title=draft.title or _fallback_title(draft, span, node_id),
        heading_path=list(draft.path),
        span=span,
        chunks=list(draft.chunks),
    )
    out.append(node)
    for index, child in enumerate(draft.children, start=1):
        child_id = f"{node_id}.{index}"
        node.children.append(child_id)
        _number(child, child_id, node_id, level + 1, out)


def _fallback_title(draft: _Draft, span: Span, node_id: str) -> str:
    """A title for a group or part: where it is ("p. 3-5"), else its heading path and position."""
    where = span.label()
    if where:
        return where
    base = draft.path[-1] if draft.path else ""
    return f"{base} #{node_id.rsplit('.', 1)[-1]}".strip()


__all__ = ["PlanLimits", "plan_tree"]
