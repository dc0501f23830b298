"""The prose of a report's sections as a reader's summary: their own sentences in order, the table text left out.

Why not the section's extractive summary: a 年报's 概述 or a 10-K's results section holds tables (营业成本构成,
"Statement of Operations Data") between its paragraphs, and a summary of the section picks table rows as often as
sentences ("列2: 原材料, 2019年: 1,132,025,675.50, …"). A reader asking "概括…经营情况" expects the paragraphs; the
figures come from the report's facts, with their units and pages (``retrieval.reports.headline``).

Each chunk's sentences are read in the chunk's own script (:func:`spaced`), not the question's: a Chinese question
about an English section must not glue its words together ("Trainsarebooked…", which no longer reads as prose).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from officeqa.scripts import detect_script
from prompts.assembler import split_sentences
from retrieval.knowledge import Knowledge

__all__ = ["MAX_CHARS", "is_prose", "section_sentences", "spaced", "weight"]

#: Characters of prose per answer (Chinese; English gets twice as many: its words are longer).
MAX_CHARS = 1500
#: Chunks of the chosen sections read.
MAX_CHUNKS = 16
_MIN_CHARS = 12
_TABLE_MARKS = re.compile(r"[|□√]|列\d|单位[:：]|\(C\$|（元）")
_CELL = re.compile(r"[:：]\s*[-−(]?[\d,.]+%?\s*[,，)]")
_DIGIT = re.compile(r"\d")
_WORD = re.compile(r"[a-z]{2,}")


def is_prose(sentence: str) -> bool:
    """A sentence of running text: long enough, no table marks or "label: value," cells, not mostly digits."""
    text = sentence.strip()
    if len(text) < _MIN_CHARS or _TABLE_MARKS.search(text) or len(_CELL.findall(text)) >= 2:
        return False
    if len(_DIGIT.findall(text)) > 0.3 * len(text):
        return False
    cjk = sum("\u4e00" <= ch <= "\u9fff" for ch in text)
    return cjk >= _MIN_CHARS or len(_WORD.findall(text)) >= 6


def spaced(text: str) -> bool:
    """Whether ``text`` is written with spaces between its words (English, not Chinese): its lines are joined
    with a space, and its sentences are quoted as they are, whatever the question's language."""
    return detect_script(text) == "en"


def weight(text: str) -> float:
    """What ``text`` counts against a budget of Chinese characters: an English text half its length (its words
    are longer), so a budget holds about as much of either."""
    return len(text) / 2 if spaced(text) else len(text)


def section_sentences(knowledge: Knowledge, chunk_ids: Sequence[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """(sentence, chunk id, chunk metadata) of the sections' prose in reading order, within :data:`MAX_CHARS`."""
    ids = list(dict.fromkeys(chunk_ids))[:MAX_CHUNKS]
    fetched = knowledge.kb.fetch(ids) if ids else {}
    taken: list[tuple[str, str, dict[str, Any]]] = []
    seen: set[str] = set()
    used = 0.0
    for chunk_id in (c for c in ids if c in fetched):
        text, meta = fetched[chunk_id]
        # PDF lines wrap mid-sentence: the chunk is one run of text (Chinese has no spaces between words)
        for sentence in split_sentences(re.sub(r"\s+", " " if spaced(text) else "", text)):
            sentence = sentence.strip()
            if sentence in seen or not is_prose(sentence):
                continue
            if used + weight(sentence) > MAX_CHARS:
                return taken
            seen.add(sentence)
            taken.append((sentence, chunk_id, dict(meta)))
            used += weight(sentence)
    return taken
