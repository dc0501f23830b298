"""Heading paths, sections, and the merging of tiny sections.

A section is a heading plus the blocks up to the next heading (the text before the first
heading is a section with an empty path). Rules, in order:

* a heading with no body of its own ("第一章 总则" directly followed by "第一条 ...") joins the
  section after it, so no chunk is a bare heading and the chapter title stays with its text;
* every other section opens a new group (a new chunk);
* a section smaller than ``min_section_tokens`` merges with its neighbour when both sit under
  the same parent heading (siblings, or the neighbour is inside the group's own section)
  and the merged group still fits ``target_tokens``. A chunk's heading path is that of the
  section its first block belongs to (the first one with a path, so a short preamble merged
  into section 1 does not leave the chunk without one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.chunking.items import Item, heading_title
from officeqa.domain import BlockType


@dataclass(slots=True)
class Section:
    path: list[str]
    items: list[int] = field(default_factory=list)  # item indices, heading first when there is one
    tokens: int = 0
    has_body: bool = False


@dataclass(slots=True)
class Group:
    """Consecutive sections that become chunks together."""

    anchor: list[str]  # path of the first section (decides what may merge with it)
    path: list[str]  # the heading path its chunks carry
    items: list[int]
    tokens: int
    item_paths: dict[int, list[str]] = field(default_factory=dict)  # item -> heading path of its section

    def path_for(self, items: list[int]) -> list[str]:
        """The heading path of a chunk holding ``items``: the section of its first item with a path."""
        for item in items:
            path = self.item_paths.get(item)
            if path:
                return path
        return self.path


def build_sections(items: list[Item], item_tokens: list[int]) -> list[Section]:
    """Split the items into sections at every heading, tracking the heading stack."""
    sections: list[Section] = [Section(path=[])]
    stack: list[tuple[int, str]] = []
    for item in items:
        if item.type is BlockType.HEADING:
            level = item.block.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading_title(item.text)))
            sections.append(Section(path=[title for _, title in stack]))
        else:
            sections[-1].has_body = True
        sections[-1].items.append(item.index)
        sections[-1].tokens += item_tokens[item.index]
    return [s for s in sections if s.items]


def _may_merge(group: Group, section: Section) -> bool:
    siblings = section.path[:-1] == group.anchor[:-1]
    inside = section.path[: len(group.anchor)] == group.anchor
    return siblings or inside


def group_sections(sections: list[Section], target_tokens: int, min_section_tokens: int) -> list[Group]:
    """Apply the joining and merging rules of the module docstring."""
    groups: list[Group] = []
    pending: list[Section] = []  # heading-only sections waiting for a body
    for section in sections:
        if not section.has_body:
            pending.append(section)
            continue
        items = [i for p in pending for i in p.items] + section.items
        item_paths = dict.fromkeys(items, section.path)  # joined bare headings take the path of their body
        tokens = sum(p.tokens for p in pending) + section.tokens
        pending = []
        last = groups[-1] if groups else None
        if (
            last is not None
            and (last.tokens < min_section_tokens or tokens < min_section_tokens)
            and last.tokens + tokens <= target_tokens
            and _may_merge(last, section)
        ):
            last.items.extend(items)
            last.item_paths.update(item_paths)
            last.tokens += tokens
            if not last.anchor:  # a preamble adopts the first section merged into it (its parent rules from now on)
                last.anchor = list(section.path)
                last.path = list(section.path)
            continue
        groups.append(Group(list(section.path), list(section.path), items, tokens, item_paths))
    if pending:
        items = [i for p in pending for i in p.items]
        tokens = sum(p.tokens for p in pending)
        if groups:
            groups[-1].item_paths.update({i: p.path for p in pending for i in p.items})
            groups[-1].items.extend(items)
            groups[-1].tokens += tokens
        else:
            groups.append(Group(list(pending[0].path), list(pending[-1].path), items, tokens))
    return groups


__all__ = ["Group", "Section", "build_sections", "group_sections"]
