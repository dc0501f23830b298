"""Which documents a question is about: given, named in the question, or retrieved; newest version wins.

Why a separate step before retrieval and the handlers: "这份合同里的电话", "员工手册中年假几天",
"the notice's deadline" name a document, and answering them from the top-ranked chunks of the
whole knowledge base mixes in other files (a phone list with the handbook's hotline in it).
The rules, in order:

1. ``explicit``: documents the caller passed (paths or doc ids) — always win.
2. ``named``: the question contains a document's name — its title, file name, or a sheet name
   (compared with version marks and punctuation removed; at least :data:`MIN_NAME_CHARS`
   characters in common) — or a document-type word that the document's names carry
   ("合同", "通知", "handbook", "the minutes", also across Chinese and English).
   The strongest kind of match wins; ties keep every tied document.
3. ``retrieved``: nothing named; retrieval over the whole knowledge base decides.

Versions: two documents of one family (same title once version marks are removed, and at least
one states a version, revision or effective date) are two versions; only the newest is kept
and the scope says which one was set aside. Pure functions over plain data; the service
supplies the catalog (profiles + registry paths) and tests build it from literals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Literal

from indexing.profile import DocumentProfile, name_key

ScopeMethod = Literal["explicit", "named", "retrieved", "all"]

#: Characters a question and a name must share (after normalisation) to count as naming it.
MIN_NAME_CHARS = 4
#: Sheet names that name nothing ("Sheet1", "工作表2").
#: English words that many titles and questions share without naming a document (keys have no spaces).
_GENERIC_LATIN = re.compile(
    r"documents?|reports?|papers?|files?|guides?|guidelines|polic(?:y|ies)|manuals?|notes|summar(?:y|ies)|"
    r"versions?|analys[ie]s|results|tables?|sheets?|data|information|supports?|the|and|of|for|about"
)
_GENERIC_SHEET = re.compile(r"^(sheet|工作表|表)\s*\d*$", re.IGNORECASE)

#: Document-type words; every entry lists the spellings that mean the same kind of document.
TYPE_WORDS: tuple[tuple[str, ...], ...] = (
    ("合同", "协议", "contract", "agreement"),
    ("通知", "公告", "notice", "announcement", "circular"),
    ("员工手册", "手册", "handbook", "manual"),
    ("年报", "年度报告", "annual report"),
    ("会议纪要", "纪要", "minutes"),
    ("制度", "办法", "规定", "政策", "policy", "regulation", "regulations"),
    ("报告", "report"),
    ("方案", "计划书", "proposal", "plan"),
    ("演示文稿", "幻灯片", "汇报材料", "presentation", "slides", "deck"),
    ("报表", "工作簿", "表格", "spreadsheet", "workbook"),
    ("指南", "指引", "guide", "guidelines", "guideline"),
    ("简历", "resume", "cv"),
    ("发票", "invoice"),
)
_ALL_DOCUMENTS = re.compile(r"所有文档|全部文档|各个文档|知识库中|知识库里|所有文件|全部文件|all (?:the )?documents|"
                            r"every document|all files|knowledge base", re.IGNORECASE)
#: A question about several versions of a document keeps them all.
COMPARE_VERSIONS = re.compile(r"新旧|两版|两个版本|各版本|历次|旧版|前后版本|版本之间|版本间|修订前|修订后|"
                              r"old and new|previous version|earlier version|both versions|versions? differ",
                              re.IGNORECASE)


@dataclass(slots=True)
class CatalogEntry:
    """One indexed document as scope resolution sees it."""

    doc_id: str
    path: str
    profile: DocumentProfile
    mtime: float = 0.0

    @property
    def title(self) -> str:
        return self.profile.title or PurePath(self.path).stem


@dataclass(slots=True)
class Scope:
    """The documents a question is answered from, and how they were chosen."""

    method: ScopeMethod
    doc_ids: list[str] = field(default_factory=list)
    superseded: dict[str, str] = field(default_factory=dict)  # older version's doc id -> newer's
    matched: dict[str, str] = field(default_factory=dict)  # doc id -> the name or word that matched
    unknown: list[str] = field(default_factory=list)  # explicit references that match no document
    retrieval: bool = True  # False when other materials (the summary tree) answer instead of retrieved chunks

    @property
    def restricts(self) -> bool:
        """True when retrieval must stay inside ``doc_ids``."""
        return self.method in ("explicit", "named")

    def to_json(self, catalog: Mapping[str, CatalogEntry]) -> dict[str, Any]:
        def describe(doc_id: str) -> dict[str, Any]:
            entry = catalog.get(doc_id)
            out: dict[str, Any] = {"doc_id": doc_id}
            if entry is not None:
                out.update(path=entry.path, title=entry.title)
                if entry.profile.version:
                    out["version"] = entry.profile.version
            return out

        out: dict[str, Any] = {"method": self.method, "documents": [describe(d) for d in self.doc_ids]}
        if self.superseded:
            out["superseded"] = [{**describe(old), "newer": new} for old, new in self.superseded.items()]
        if self.matched:
            out["matched"] = dict(self.matched)
        if self.unknown:
            out["unknown"] = list(self.unknown)
        return out


def resolve_explicit(references: Sequence[str], catalog: Mapping[str, CatalogEntry]) -> Scope:
    """Documents given by path (absolute, relative or bare file name) or doc id (8+ leading characters)."""
    by_path = {entry.path: doc_id for doc_id, entry in catalog.items()}
    doc_ids: list[str] = []
    unknown: list[str] = []
    for ref in references:
        found = _find_reference(ref, catalog, by_path)
        if found is None:
            unknown.append(ref)
        elif found not in doc_ids:
            doc_ids.append(found)
    return Scope("explicit", doc_ids, unknown=unknown)


def _find_reference(ref: str, catalog: Mapping[str, CatalogEntry], by_path: Mapping[str, str]) -> str | None:
    if ref in catalog:
        return ref
    if ref in by_path:
        return by_path[ref]
    resolved = str(PurePath(ref))
    for path, doc_id in by_path.items():
        if path.endswith("/" + resolved.lstrip("./")) or PurePath(path).name == ref:
            return doc_id
    if len(ref) >= 8:
        matches = [d for d in catalog if d.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
    return None


def resolve_named(question: str, catalog: Mapping[str, CatalogEntry]) -> Scope | None:
    """The documents the question names, or None when it names none (see the module docstring)."""
    if _ALL_DOCUMENTS.search(question):
        return Scope("all", newest_versions(list(catalog), catalog)[0])
    text = name_key(question)
    lowered = question.lower()
    strong: dict[str, tuple[int, str]] = {}
    for doc_id, entry in catalog.items():
        best = _name_match(text, entry)
        if best is not None:
            strong[doc_id] = best
    chosen: dict[str, str] = {}
    if strong:
        top = max(score for score, _ in strong.values())
        chosen = {d: name for d, (score, name) in strong.items() if score == top}
    # A question may name one document by its title and another by its kind ("合同里的联系人在评审会上…").
    typed = _type_word_matches(lowered, catalog)
    if not strong or (len(typed) == 1 and _refers_to_document(lowered, next(iter(typed.values())))):
        for doc_id, word in typed.items():
            chosen.setdefault(doc_id, word)
    if not chosen:
        return None
    if COMPARE_VERSIONS.search(question):
        return Scope("named", list(chosen), matched=dict(chosen))  # "新旧两版…有何变化": every version is wanted
    doc_ids, superseded = newest_versions(list(chosen), catalog)
    return Scope("named", doc_ids, superseded=superseded, matched={d: chosen[d] for d in doc_ids})


def _name_match(question_key: str, entry: CatalogEntry) -> tuple[int, str] | None:
    """(characters in common, the name) for the entry's best name found in the question."""
    best: tuple[int, str] | None = None
    names = [entry.profile.title, PurePath(entry.path).stem, *entry.profile.sheets]
    for name in names:
        if not name or _GENERIC_SHEET.match(name.strip()):
            continue
        key = name_key(name)
        if len(key) < MIN_NAME_CHARS:
            continue
        common = key if key in question_key else _longest_common(question_key, key)
        if len(common) < MIN_NAME_CHARS or not _meaningful(common):
            continue
        if common.isascii() and len(_GENERIC_LATIN.sub("", common)) < 6:
            continue  # "document" shared by "the DA-619p document" and "MinerU supports DOCX document parsing"
        # A long title shares a generic word with many questions; ask for half the title or 6+ characters.
        if len(common) < min(len(key), 6) and len(common) * 2 < len(key):
            continue
        if best is None or len(common) > best[0]:
            best = (len(common), name)
    return best


def _meaningful(common: str) -> bool:
    """Latin runs must be whole words of some length; CJK runs always carry meaning at 4+ characters."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in common):
        return sum(1 for ch in common if "\u4e00" <= ch <= "\u9fff") >= 3
    return len(common) >= 6


def _longest_common(a: str, b: str) -> str:
    """Longest common substring (dynamic programming over the shorter string; names are short)."""
    if not a or not b:
        return ""
    best_len, best_end = 0, 0
    previous = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        current = [0] * (len(b) + 1)
        ai = a[i - 1]
        for j in range(1, len(b) + 1):
            if ai == b[j - 1]:
                current[j] = previous[j - 1] + 1
                if current[j] > best_len:
                    best_len, best_end = current[j], i
        previous = current
    return a[best_end - best_len : best_end]


def _type_word_matches(question: str, catalog: Mapping[str, CatalogEntry]) -> dict[str, str]:
    """Documents whose names carry a document-type word the question uses (in either language)."""
    chosen: dict[str, str] = {}
    for group in TYPE_WORDS:
        used = [w for w in group if _contains_word(question, w)]
        if not used:
            continue
        for doc_id, entry in catalog.items():
            names = " ".join([entry.profile.title, PurePath(entry.path).stem]).lower()
            hit = next((w for w in group if _contains_word(names, w)), None)
            if hit is not None:
                chosen.setdefault(doc_id, used[0])
        if chosen:
            return chosen  # the first (most specific) group that matches anything decides
    return chosen


def _refers_to_document(question: str, word: str) -> bool:
    """"合同里…", "这份合同", "the contract says": the word names a document, not a topic ("合同签订的流程")."""
    escaped = re.escape(word)
    before = rf"(?:这份|这个|该|本|那份|此|the|this|that)\s*{escaped}"
    after = rf"{escaped}\s*(?:里|中|内|上|的规定|提到|写|说|says|states|mentions)"
    return re.search(f"{before}|{after}", question) is not None


def _contains_word(text: str, word: str) -> bool:
    if word.isascii():
        return re.search(rf"(?<![a-z]){re.escape(word)}s?(?![a-z])", text) is not None
    return word in text


def newest_versions(doc_ids: Iterable[str], catalog: Mapping[str, CatalogEntry]) -> tuple[list[str], dict[str, str]]:
    """Keep the newest document of each version family; return (kept ids, older id -> newer id)."""
    ordered = list(dict.fromkeys(doc_ids))
    families: dict[str, list[str]] = {}
    for doc_id in ordered:
        entry = catalog.get(doc_id)
        key = entry.profile.family if entry is not None else ""
        families.setdefault(key or doc_id, []).append(doc_id)
    superseded: dict[str, str] = {}
    for members in families.values():
        if len(members) < 2:
            continue
        entries = [catalog[m] for m in members if m in catalog]
        if not any(e.profile.version or e.profile.effective_date for e in entries):
            continue  # same title but no stated versions: two different documents (two meetings' minutes)
        newest = max(entries, key=lambda e: (*e.profile.version_key(), e.mtime)).doc_id
        for member in members:
            if member != newest:
                superseded[member] = newest
    return [d for d in ordered if d not in superseded], superseded


__all__ = [
    "TYPE_WORDS",
    "CatalogEntry",
    "Scope",
    "newest_versions",
    "resolve_explicit",
    "resolve_named",
]
