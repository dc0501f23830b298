"""Chairman and chief executive read from an English report's directors pages and sentences: a name with its
title on one line ("Nicholas Johansen – Chairman", "Mr Michael Glennon Non-Executive Director and Chairman"), a
name heading over a title heading ("OLIVER GREEN" / "Executive Chairman"), and an appositive ("Dr. Raymond J.
Tesi, our President and CEO").

Why only titles made of role words: a biography's "John Smith, Chairman of Acme Holdings" names another company's
chair; a title is read only while its words are role words, and one that runs on into a name ("Chairman of …")
gives nothing. A deputy or vice chair is not the chair.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterator, Sequence

from officeqa.domain import Block, BlockType
from retrieval.named_facts.facts import NamedFact, looks_like_person

__all__ = ["officer_facts", "title_roles"]

_HONORIFIC = r"(?:(?:Mr|Mrs|Ms|Miss|Dr|Prof|Professor|Sir|Dame)\.?\s+)?"
_NAME = r"((?:[A-Z][A-Za-z'’\-]+|[A-Z]\.)(?:\s+(?:[A-Z][A-Za-z'’\-]+|[A-Z]\.)){1,3}?)"
_TITLE_START = (r"(?=(?:Non-Executive|Executive|Independent|Chair(?:man|person|woman)?|Chief|President|Managing|CEO|"
                r"Director|Lead)\b)")
_BULLET = re.compile(r"^(?:[●•▪■◦*·_\-–]+\s*|(?:Board of Directors|Directors|Officers)\s+)+")  # a list's head word
#: "Name – Title", "Name, Title", "Name Title"; a 10-K officers table's "Name (g) 55 Title" (note mark, age).
_LINE = re.compile(rf"^{_HONORIFIC}{_NAME}\s*(?:\([a-z0-9]\)\s*)?(?:\d{{2}}\s+)?(?:[–—\-,:|]\s*|\s+)?"
                   rf"{_TITLE_START}(.*)$")
_APPOSITIVE = re.compile(rf"\b{_HONORIFIC}{_NAME}, (?:our|the Company['’]s) {_TITLE_START}(.*)")
_ROLE_WORDS = frozenset(
    ["non-executive", "executive", "independent", "deputy", "vice", "director", "and", "&", "chairman", "chair",
     "chairperson", "chairwoman", "chief", "officer", "managing", "ceo", "of", "the", "board", "president", "lead",
     "senior", "financial", "cfo", "operating", "coo", "founder", "co-founder", "interim"]
)
_CHAIR = re.compile(r"^(?:executive |non-executive |independent )?chair(?:man|person|woman)?(?: of the board)?$")
_CEO = re.compile(r"^(?:interim )?(?:chief executive officer|ceo)$")


def officer_facts(blocks: Sequence[Block]) -> list[NamedFact]:
    """Chairman / CEO readings of the document's text lines, in page order."""
    found: list[NamedFact] = []
    for block in blocks:
        if block.type == BlockType.TABLE or not block.text:
            continue
        lines = [re.sub(r"\s+", " ", unicodedata.normalize("NFKC", x)).strip() for x in block.text.splitlines()]
        for line in lines:
            found.extend(_one_line(line, block.page))
    found.extend(_heading_pairs(blocks))
    return found


def title_roles(title: str) -> list[str]:
    """The fields a title of role words holds ("Non-Executive Director and Chairman" -> ["chairman"]); none when
    the title runs on past its role words ("Chairman of" another body)."""
    title = re.split(r"[.;:(](?:\s|$)|\s\(", title)[0]  # "President and CEO. Dr. Tesi has …" -> "President and CEO"
    words = title.replace(",", " , ").split()
    kept: list[str] = []
    for word in words:
        if word != "," and word.lower() not in _ROLE_WORDS:
            break
        kept.append(word)
    if len(kept) < len(words) and kept and kept[-1].lower() in ("of", "the", "and", "&"):
        return []
    parts = re.split(r"\s*(?:,|&|\band\b)\s*", " ".join(kept).lower())
    roles = ["chairman" if _CHAIR.match(p) else "ceo" if _CEO.match(p) else "" for p in parts]
    if "chief executive officer" in " ".join(kept).lower() and "ceo" not in roles:  # "…, President and Chief …"
        roles.append("ceo")
    return list(dict.fromkeys(r for r in roles if r))


def _one_line(line: str, page: int | None) -> Iterator[NamedFact]:
    line = _BULLET.sub("", line)
    for pattern in (_LINE, _APPOSITIVE):
        match = pattern.match(line) if pattern is _LINE else pattern.search(line)
        if match and looks_like_person(match.group(1)):
            for field in title_roles(match.group(2)):
                yield NamedFact(field, match.group(1), match.group(2)[:80], page, line[:200], "people")


def _heading_pairs(blocks: Sequence[Block]) -> Iterator[NamedFact]:
    """A short name line followed, on the same page, by a line of role words only."""
    texts = [b for b in blocks if b.type != BlockType.TABLE and b.text and len(b.text) < 60]
    for above, below in itertools.pairwise(texts):
        if above.page != below.page:
            continue
        name = re.sub(rf"^{_HONORIFIC}", "", above.text.strip())
        name = name.title() if name.isupper() else name
        title = below.text.strip()
        if looks_like_person(name) and all(w.lower().strip(",") in _ROLE_WORDS for w in title.split()):
            for field in title_roles(title):
                yield NamedFact(field, name, title, above.page, f"{above.text.strip()} / {title}", "people")
