"""Structured citations: which chunk of which file (page/sheet/slide, heading path) backs an answer.

Why structured and checked: a local model follows "cite [n]" loosely — it invents
numbers, writes 【2】 or [1, 3]. Markers are parsed in all those spellings, mapped to
the materials that were really in the prompt, and markers pointing to nothing are
removed (and counted), so a citation in an answer is always one the reader can open.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from officeqa.locations import Location
from prompts.assembler import split_sentences

Tokenize = Callable[[str], list[str]]

#: [1]  [1, 2]  [1,2]  [1][2]  【1】  【1、2】  — numbers only, so "[注]" or "[a]" are left alone.
MARKER_RE = re.compile(r"[\[【]\s*(\d{1,3}(?:\s*[,，、]\s*\d{1,3})*)\s*[\]】]")


@dataclass(slots=True)
class Citation(Location):
    """One cited passage: a :class:`~officeqa.locations.Location` (``file`` is the indexed path) and what cites
    it — ``n`` is the [n] used in the answer text, ``document`` the name shown, ``quote`` the text.

    ``row`` is the spreadsheet row (or 1-based table row) a table quote comes from; ``label_note`` says
    e.g. "批注（张三）" when the quote is a Word comment or speaker notes.
    """

    n: int = 0
    chunk_id: str = ""
    doc_id: str = ""
    document: str = ""
    quote: str = ""
    referenced: bool = True
    label_note: str = ""

    @property
    def path(self) -> str:
        return self.file

    def to_json(self) -> dict[str, Any]:
        """The citation object of ``ask --json``, the eval report and the HTTP API (field names are a contract)."""
        out: dict[str, Any] = {
            "n": self.n,
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "path": self.file,
            "document": self.document,
            "heading_path": list(self.heading_path),
            "quote": self.quote,
            "referenced": self.referenced,
        }
        for key in ("page", "page_end", "sheet", "slide", "row"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.label_note:
            out["label"] = self.label_note
        return out

    def label(self, name: str | None = None) -> str:
        """"[n] file · location · heading path", as shown under an answer."""
        return f"[{self.n}] {Location.label(self, name if name is not None else self.document)}"


def heading_list(value: Any) -> list[str]:
    """The heading path as a list, from a list or from the stored "a > b" string."""
    if isinstance(value, list | tuple):
        return [str(v) for v in value if str(v)]
    if isinstance(value, str) and value.strip():
        return [part.strip() for part in value.split(" > ") if part.strip()]
    return []


def citation_from_metadata(
    n: int, chunk_id: str, doc_id: str, metadata: Mapping[str, Any], quote: str = ""
) -> Citation:
    """A citation from a chunk's stored metadata (the keys of ``indexing.vector_store.chunk_metadata``)."""
    path = str(metadata.get("path", ""))

    def as_int(key: str) -> int | None:
        value = metadata.get(key)
        return int(value) if value is not None and str(value).lstrip("-").isdigit() else None

    sheet = metadata.get("sheet")
    return Citation(
        n=n,
        chunk_id=chunk_id,
        doc_id=doc_id or str(metadata.get("doc_id", "")),
        file=path,
        document=PurePath(path).name if path else str(metadata.get("document", "")),
        heading_path=heading_list(metadata.get("heading_path")),
        page=as_int("page"),
        page_end=as_int("page_end"),
        sheet=str(sheet) if sheet is not None else None,
        slide=as_int("slide"),
        quote=quote,
    )


@dataclass(slots=True)
class MarkerResolution:
    """The answer text with bad markers removed, and the numbers it cites in order of first use."""

    text: str
    cited: list[int]
    removed: int


def resolve_markers(text: str, valid: Iterable[int]) -> MarkerResolution:
    """Keep markers whose numbers exist in ``valid``; drop the others (and count them).

    A group like [1, 9] where only 1 exists becomes [1]; a group with no valid number
    disappears together with the space before it.
    """
    valid_set = set(valid)
    cited: list[int] = []
    removed = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal removed
        numbers = [int(x) for x in re.split(r"\s*[,，、]\s*", match.group(1))]
        good = [x for x in numbers if x in valid_set]
        removed += len(numbers) - len(good)
        for x in good:
            if x not in cited:
                cited.append(x)
        if not good:
            return ""
        return match.group(0) if len(good) == len(numbers) else "".join(f"[{x}]" for x in good)

    cleaned = MARKER_RE.sub(replace, text)
    if removed:
        cleaned = re.sub(r"[ \t]+([。，；！？.,;!?]|$)", r"\1", cleaned, flags=re.MULTILINE)
    return MarkerResolution(cleaned, cited, removed)


def overlap_score(query_tokens: set[str], sentence_tokens: Sequence[str]) -> float:
    """Shared distinct tokens, damped by sentence length so long sentences do not win by size alone."""
    distinct = set(sentence_tokens)
    if not distinct:
        return 0.0
    return len(query_tokens & distinct) / math.sqrt(len(distinct))


def best_quote(claim: str, chunk_text: str, tokenize: Tokenize, max_chars: int = 200) -> str:
    """The chunk sentence that shares the most tokens with ``claim`` (the first sentence when none do)."""
    sentences = [s.strip() for s in split_sentences(chunk_text) if s.strip()]
    if not sentences:
        return ""
    claim_tokens = set(tokenize(claim))
    best = max(sentences, key=lambda s: overlap_score(claim_tokens, tokenize(s)))
    if not claim_tokens or overlap_score(claim_tokens, tokenize(best)) == 0:
        best = sentences[0]
    return best if len(best) <= max_chars else best[: max_chars - 1] + "…"


def claims_by_marker(text: str) -> dict[int, str]:
    """For each cited number, the answer sentence(s) that carry its marker (the claim it supports)."""
    claims: dict[int, list[str]] = {}
    for sentence in split_sentences(text):
        for match in MARKER_RE.finditer(sentence):
            for x in re.split(r"\s*[,，、]\s*", match.group(1)):
                claims.setdefault(int(x), []).append(MARKER_RE.sub("", sentence))
    return {n: " ".join(parts) for n, parts in claims.items()}
