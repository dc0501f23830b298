"""A named section's text as an extractive digest: each part's head ("一、公司治理的基本状况", "（2）员工权益保护")
with its first prose sentences, then more sentences of each part in turn while the budget lasts, in reading order,
each line cited by the chunk it comes from. Table rows are not prose (``retrieval.section_prose.is_prose``).

Why heads first and sentences in turn: a chapter of a 年报 runs to many pages; reading its first paragraphs gives
one part and leaves out the rest, while its parts' heads and lead sentences are what a reader skims for.

The sentences are quoted in the language they are written in, whatever the question's: how lines are joined
(with a space, or none between Chinese characters) and how much text fits are read from the section's own text
(``retrieval.section_prose.spaced``), so a Chinese question about an English section quotes its English sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import groupby

from indexing.summary.query import fold_title
from prompts.assembler import split_sentences
from retrieval.citations import Citation, citation_from_metadata
from retrieval.section_finder import Piece, Section
from retrieval.section_prose import is_prose, spaced, weight

__all__ = ["MAX_CHARS", "digest"]

#: Characters of a digest (Chinese; English text gets twice as many: its words are longer, see ``weight``).
MAX_CHARS = 2000
_HEAD_CHARS = 40
#: A line this short ending without punctuation is a label, not a piece of a wrapped sentence (:func:`_blocks`).
_LABEL_CHARS = 12
_CLOSED = re.compile(r"[。！？；：，、.!?;:,)）\]】”\"']$")
#: A table's header row ("主要资产 | 重大变化说明") or a form's check boxes ("□ 是 √ 否"): never prose, and glued to the
#: sentence after it (a PDF's lines are joined) it would make that sentence read as a table row.
_FORM_LINE = re.compile(r"[|□√]")
_NUMERAL = r"[\d一二三四五六七八九十]{1,3}"
_HEAD = re.compile(rf"^\s*(?:[（(]\s*{_NUMERAL}\s*[)）]|{_NUMERAL}\s*[、.．])\s*\S")


@dataclass(slots=True)
class _Part:
    """A head (may be empty: the text before the first head) and its sentences as (sentence, piece)."""

    head: str
    piece: Piece
    sentences: list[tuple[str, Piece]] = field(default_factory=list)
    taken: int = 0


def _lines(section: Section) -> list[tuple[str, Piece]]:
    """The section's lines after its heading line, with the piece each lies in."""
    lines = [(line.strip().lstrip("#").strip(), piece) for piece in section.pieces for line in piece.text.splitlines()
             if line.strip().lstrip("#").strip() and not _FORM_LINE.search(line)]
    if lines and fold_title(lines[0][0]) == fold_title(section.title):
        lines = lines[1:]
    return lines


def _sentences(lines: list[tuple[str, Piece]], seen: set[str]) -> list[tuple[str, Piece]]:
    """Prose sentences of consecutive lines, each with the piece its run of lines lies in; each sentence once.
    A block of English lines is joined with spaces, a Chinese one without (its characters have none between)."""
    found: list[tuple[str, Piece]] = []
    for _, run in groupby(lines, key=lambda item: item[1].chunk_id):
        items = list(run)
        for block in _blocks([line for line, _ in items]):
            gap = " " if spaced(" ".join(block)) else ""
            text = re.sub(r"\s+", gap, gap.join(block))
            for sentence in (s.strip() for s in split_sentences(text)):
                if sentence not in seen and is_prose(sentence):
                    seen.add(sentence)
                    found.append((sentence, items[0][1]))
    return found


def _blocks(lines: list[str]) -> list[list[str]]:
    """Runs of lines that read as one text: a short line with no closing punctuation (a list item's label,
    "FSDP" above "FSDP算法是…") stands alone instead of being glued to the next line's sentence.

    Why lines are joined at all: a PDF breaks a sentence across lines, each nearly full; its last line
    ends the sentence with punctuation, so only labels are short and open."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if len(line) <= _LABEL_CHARS and not _CLOSED.search(line):
            blocks.extend([[line], []])
        else:
            blocks[-1].append(line)
    return [b for b in blocks if b]


def _parts(section: Section) -> list[_Part]:
    """The section's text split at its heads, each part with its prose sentences."""
    lines = _lines(section)
    starts = [i for i, (line, _) in enumerate(lines) if len(line) <= _HEAD_CHARS and _HEAD.match(line)]
    bounds = [0, *(i for i in starts if i > 0)]
    seen: set[str] = set()
    parts: list[_Part] = []
    for begin, end in zip(bounds, [*bounds[1:], len(lines)], strict=True):
        if begin >= end:
            continue
        head_line, piece = lines[begin]
        is_head = begin in starts
        if is_head and head_line in seen:
            continue  # a chunk overlap repeats the head and its text
        if is_head:
            seen.add(head_line)
        body = lines[begin + 1:end] if is_head else lines[begin:end]
        parts.append(_Part(head_line if is_head else "", piece, _sentences(body, seen)))
    return [p for p in parts if p.head or p.sentences]


def _budgeted(parts: list[_Part], limit: float) -> None:
    """Take sentences: each part's first, then one more of each in turn, within ``limit`` characters."""
    used = sum(weight(p.head) for p in parts)
    progress = True
    while progress:
        progress = False
        for part in parts:
            if part.taken < len(part.sentences):
                size = weight(part.sentences[part.taken][0])
                if used + size > limit:
                    continue
                used += size
                part.taken += 1
                progress = True


def digest(section: Section, offset: int) -> tuple[list[str], list[Citation]]:
    """Lines ("- head：sentences [n]", "- Head: sentences [n]") and their citations (n from ``offset`` + 1, one
    per chunk), each line in the section's own language."""
    parts = _parts(section)
    _budgeted(parts, MAX_CHARS)
    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    lines: list[str] = []
    for part in parts:
        taken = part.sentences[:part.taken]
        piece = taken[0][1] if taken else part.piece
        if piece.chunk_id not in numbers:
            numbers[piece.chunk_id] = offset + len(numbers) + 1
            quote = taken[0][0] if taken else part.head
            citations.append(citation_from_metadata(numbers[piece.chunk_id], piece.chunk_id, section.doc_id,
                                                    piece.meta, quote))
        english = spaced(" ".join([part.head, *(s for s, _ in taken)]))
        body = (" " if english else "").join(s for s, _ in taken)
        head = f"{part.head}{': ' if english else '：'}" if part.head and body else part.head
        lines.append(f"- {head}{body} [{numbers[piece.chunk_id]}]")
    return lines, citations
