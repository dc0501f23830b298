"""The auditor's report of a report read for named facts: the opinion ("In our opinion, the … financial statements
present fairly …" -> unmodified; "except for …" -> qualified; 出具了标准无保留意见的审计报告), and the firm and senior
statutory auditor of a UK / Australian signature block ("Alan Poole BA (Hons) FCA (Senior Statutory Auditor) / For
and on behalf of James Cowper Kreston Audit").

Why a module of its own: "which firm audited, and what opinion?" is one of the commonest multi-part questions, and
the opinion is no key-value row in English reports; it is read only from an auditor's report page (the page names
the audit), and its kind from the opinion sentence and the page's headings, never guessed: an opinion sentence that
names neither a fair presentation nor a qualification gives no fact.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from officeqa.domain import Block, BlockType
from retrieval.named_facts.facts import NamedFact, looks_like_person, usable_value
from retrieval.named_facts.fields import label_field

__all__ = ["audit_facts", "opinion_kind"]

_OPINION = re.compile(r"\bIn (?:our|my) opinion,?\s", re.IGNORECASE)
_FAIR = re.compile(r"present(?:s)? fairly|true and fair|in accordance with the Corporations Act|properly prepared",
                   re.IGNORECASE)
_EXCEPT = re.compile(r"\bexcept for\b", re.IGNORECASE)
_NOT_FAIR = re.compile(r"do(?:es)? not present fairly|do(?:es)? not give a true and fair", re.IGNORECASE)
_HEADING = re.compile(r"^(?:basis for\s+)?(qualified|adverse|disclaimer of)\s+opinion\b", re.IGNORECASE)
_AUDIT_PAGE = re.compile(r"auditor|audit of|we have audited|our audit", re.IGNORECASE)
_CN_OPINION = re.compile(r"出具了?(?:的)?((?:带强调事项段的)?(?:标准的?)?(?:无保留|保留|否定|无法表示)意见)")
_BEHALF = re.compile(r"\b(?i:for and on behalf of)\s+([A-Z][A-Za-z&'’.\-]*(?:\s+[A-Z&][A-Za-z&'’.\-]*){0,5})")
_AUDITOR_WORDS = re.compile(r"statutory auditor|chartered accountants|registered auditors?|audit(?:ors)?\b",
                            re.IGNORECASE)
#: An audit firm's letterhead line on its report: "Pitcher Partners is an association of independent firms."
_NETWORK = re.compile(r"^([A-Z][A-Za-z&'’.\-]*(?:\s+[A-Z&][A-Za-z&'’.\-]*){0,3}) is "
                      r"(?:an association of (?:independent )?firms"
                      r"|a member (?:firm )?of (?:the )?(?:global )?network)")
_SENIOR = re.compile(r"\(\s*senior statutory auditor\s*\)", re.IGNORECASE)
_KIND = {"qualified": "qualified opinion", "adverse": "adverse opinion", "disclaimer of": "disclaimer of opinion"}


def audit_facts(blocks: Sequence[Block]) -> list[NamedFact]:
    """The opinion, firm and senior statutory auditor read from the document's auditor's report pages."""
    pages: dict[int | None, list[str]] = {}
    for block in blocks:
        if block.type != BlockType.TABLE and block.text:
            pages.setdefault(block.page, []).append(unicodedata.normalize("NFKC", block.text))
    found = list(_table_opinion(blocks))
    for page, texts in pages.items():
        found.extend(_chinese_opinion("".join(re.sub(r"\s+", "", t) for t in texts), page))
        text = "\n".join(texts)
        if not _AUDIT_PAGE.search(text):
            continue
        found.extend(_english_opinion(texts, page))
        found.extend(_signature_block([re.sub(r"\s+", " ", x).strip() for x in text.splitlines() if x.strip()], page))
    return found


def _table_opinion(blocks: Sequence[Block]) -> Iterator[NamedFact]:
    """"审计意见类型 | 标准的无保留意见" of an 审计报告 summary table, on whatever page it is printed."""
    for block in blocks:
        if block.type != BlockType.TABLE or "意见" not in (block.text or ""):
            continue
        for row in block.text.splitlines():
            cells = [c.strip() for c in row.split("|")]
            if len(cells) >= 2 and label_field(cells[0]) == "audit_opinion" and usable_value(cells[1]):
                yield NamedFact("audit_opinion", cells[1], cells[0], block.page, row.strip(), "table")


def opinion_kind(sentence: str, headings: Sequence[str]) -> str | None:
    """The kind of an opinion sentence: qualified / adverse / disclaimer by the page's heading or the sentence's
    own words, unmodified when it states a fair presentation with no exception; None when it says neither (an
    internal-control opinion, a sentence cut by the page)."""
    for heading in headings:
        match = _HEADING.match(heading)
        if match and "internal control" not in heading.lower():
            return _KIND[match.group(1).lower()]
    if _NOT_FAIR.search(sentence):
        return "adverse opinion"
    if _EXCEPT.search(sentence):
        return "qualified opinion"
    return "unmodified (unqualified) opinion" if _FAIR.search(sentence) else None


def _english_opinion(texts: Sequence[str], page: int | None) -> Iterator[NamedFact]:
    headings = [line.strip() for t in texts for line in t.splitlines() if len(line.strip()) < 80]
    flat = re.sub(r"\s+", " ", " ".join(texts))
    for match in _OPINION.finditer(flat):
        sentence = _sentence_from(flat, match.start())
        kind = opinion_kind(sentence, headings)
        if kind is not None:
            yield NamedFact("audit_opinion", kind, "opinion", page, sentence, "sentence")
            return


def _sentence_from(text: str, start: int) -> str:
    """The sentence starting at ``start``, up to 400 characters (a full stop before a space ends it)."""
    end = text.find(". ", start)
    return text[start:end + 1 if 0 <= end < start + 400 else start + 400].strip()


def _chinese_opinion(text: str, page: int | None) -> Iterator[NamedFact]:
    for match in _CN_OPINION.finditer(text):
        quote = text[max(0, match.start() - 30):match.end() + 6]
        yield NamedFact("audit_opinion", match.group(1), "审计意见", page, quote, "sentence")
        return


def _signature_block(lines: Sequence[str], page: int | None) -> Iterator[NamedFact]:
    """"For and on behalf of <firm>" with auditor words on it or the two lines around it; "<name> (Senior
    Statutory Auditor)" for the signing auditor."""
    for n, line in enumerate(lines):
        near = " ".join(lines[max(0, n - 2):n + 3])
        behalf = _BEHALF.search(line)
        if behalf and _AUDITOR_WORDS.search(near):
            firm = re.split(r"\s+(?:Chartered|Statutory|Registered)\b", behalf.group(1))[0].strip(" ,.")
            if len(firm.split()) >= 2 or firm.isupper():
                yield NamedFact("auditor", firm, "auditor", page, " ".join(lines[n:n + 2])[:200], "signature")
        network = _NETWORK.match(line)
        if network and len(network.group(1).split()) >= 2:
            yield NamedFact("auditor", network.group(1), "auditor", page, line[:200], "signature")
        senior = _SENIOR.search(line)
        if senior:
            name = _person_before(line[:senior.start()] or (lines[n - 1] if n else ""))
            if name:
                yield NamedFact("signing_accountants", name, "senior statutory auditor", page, line, "signature")


def _person_before(text: str) -> str | None:
    """The name leading a signature line, qualifications dropped ("Alan Poole BA (Hons) FCA" -> "Alan Poole")."""
    words: list[str] = []
    for token in text.split():
        if token.startswith("(") or (token.isupper() and len(token) > 1) or not token[0].isupper():
            break
        words.append(token)
    name = " ".join(words).strip(" ,")
    return name if name and looks_like_person(name) else None
