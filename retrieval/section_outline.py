"""A document's sections as its parser saw them: its heading blocks (title, level), each placed at the chunk line
where its title stands, else the heading path every chunk carries ("IBM > 1960s–1980s"); read back as an outline,
and the section a question names by its place ("the first section", "the last section of en_wiki.md").

Why: Markdown ``#``/``##`` and setext headings, Word heading styles and an outline's nested items reach the chunk
text only as a bare title line ("1960s–1980s"), which is neither a "第三节" chapter line nor a capitalised one, so
without a summary tree such a section could not be found by its name. The heading blocks are the parser's own
structure, no guess from a line's look; they are read rather than the chunks' paths alone because a short document's
tiny sections merge into one chunk whose path names only the first ("Soil Study" holding "2. Methods" and
"3. Results").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from retrieval.citations import heading_list

__all__ = ["Chunks", "outline_level", "path_headings", "placed_headings", "section_position"]

Chunks = Sequence[tuple[str, str, dict[str, Any]]]

#: "the first section", "the last chapter", "the opening part": the section a question names by its place.
_POSITION_EN = re.compile(
    r"\bthe\s+(?P<word>first|second|third|fourth|fifth|last|final|opening|closing|concluding|introductory)\s+"
    r"(?:section|chapter|part|heading)\b",
    re.IGNORECASE,
)
#: "最后一节", "最后一章", "末尾一部分": the last section, in Chinese ("第一节" is an ordinal: ``question_ordinals``).
_POSITION_ZH = re.compile(r"(?:最后|末尾)(?:一|的)?(?:个)?(?:节|章|部分|小节|章节)")
_INDEX = {"first": 0, "opening": 0, "introductory": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4,
          "last": -1, "final": -1, "closing": -1, "concluding": -1}


def section_position(question: str) -> tuple[int, str] | None:
    """(index, phrase) of a section named by its place: (0, "the first section"), (-1, "最后一节"); else None."""
    match = _POSITION_EN.search(question)
    if match is not None:
        return _INDEX[match.group("word").lower()], match.group(0)
    zh = _POSITION_ZH.search(question)
    return (-1, zh.group(0)) if zh is not None else None


def path_headings(chunks: Chunks) -> list[tuple[str, int, int, int]]:
    """Each heading of the chunks' heading paths once, in reading order, as (title, level, chunk, line): the level
    is its depth in the path, the chunk the first one under it, the line where its title stands in that chunk (0
    when the chunk does not repeat it)."""
    found: list[tuple[str, int, int, int]] = []
    seen: set[tuple[str, ...]] = set()
    for index, (_, text, meta) in enumerate(chunks):
        path = heading_list(meta.get("heading_path"))
        lines = [line.strip().lstrip("#").strip() for line in text.splitlines()]
        for depth in range(1, len(path) + 1):
            key = tuple(path[:depth])
            if key in seen:
                continue
            seen.add(key)
            title = path[depth - 1]
            found.append((title, depth, index, next((n for n, line in enumerate(lines) if line == title), 0)))
    return found


def _key(line: str) -> str:
    return re.sub(r"\s+", "", line.strip().lstrip("#"))


def placed_headings(chunks: Chunks, parsed: Sequence[tuple[str, int]]) -> list[tuple[str, int, int, int]]:
    """The parser's headings ``parsed`` (title, level), in reading order, as (title, level, chunk, line): each at
    the first line after the previous one's that spells its title; one no chunk spells is left out. With no parsed
    headings (or none placed), the chunks' heading paths (:func:`path_headings`)."""
    where: dict[str, list[tuple[int, int]]] = {}
    for index, (_, text, _) in enumerate(chunks):
        for number, line in enumerate(text.splitlines()):
            where.setdefault(_key(line), []).append((index, number))
    found: list[tuple[str, int, int, int]] = []
    cursor = (0, 0)
    for title, level in parsed:
        spots = where.get(_key(title), []) if _key(title) else []
        at = bisect_left(spots, cursor)
        if at < len(spots):
            found.append((title.strip(), level, *spots[at]))
            cursor = (spots[at][0], spots[at][1] + 1)
    return found or path_headings(chunks)


def outline_level(levels: Sequence[int]) -> int | None:
    """The level a reader lists a document's sections at: the shallowest with more than one heading (a document's
    one title heading above them is not its outline), else the shallowest; None without headings."""
    ordered = sorted(set(levels))
    return next((lv for lv in ordered if list(levels).count(lv) > 1), ordered[0] if ordered else None)
