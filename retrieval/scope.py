"""Which documents a question is about: given, named in the question, or retrieved; newest version wins.

Why a separate step before retrieval and the handlers: "这份合同里的电话", "员工手册中年假几天",
"the notice's deadline" name a document, and answering them from the top-ranked chunks of the
whole knowledge base mixes in other files (a phone list with the handbook's hotline in it).
The rules, in order:

1. ``explicit``: documents the caller passed (paths or doc ids) — always win.
2. ``named``: the question names a company (or another subject) a document is about — its
   subject read from its first pages at index time (``retrieval.subjects``): that company's
   reports, of the year named, else the newest; a company no document is about is reported
   (``Scope.missing``), never answered from another company's document. Otherwise the question
   contains a document's name — its title, file name, or a sheet name
   (compared with version marks and punctuation removed; at least :data:`MIN_NAME_CHARS`
   characters in common) — or a document-type word that the document's names carry
   ("合同", "通知", "handbook", "the minutes", also across Chinese and English).
   The strongest kind of match wins; ties keep every tied document.
3. ``retrieved``: nothing named; retrieval over the whole knowledge base decides.

Generic words never scope: a title such as "Annual Report", "Microsoft Word - R1" or an empty one
names nothing, and "annual report", "年度报告", "document" are no type words.

Versions: two documents are versions of one document when they have one family (same specific
title once version marks are removed), the same subject (entity and kind) where both have one,
their contents overlap (:data:`MIN_VERSION_OVERLAP` of shingles, where both have a signature), and
at least one states a version, revision or effective date; only the newest is kept and the scope
says which one was set aside and why (``Scope.reasons``). Pure functions over plain data; the service
supplies the catalog (profiles + registry paths) and tests build it from literals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Literal

from indexing.identity import distinctive
from indexing.profile import content_overlap, family_key, name_key
from indexing.subjects import GENERIC_WORDS, KIND_ANNUAL, entity_key
from retrieval.catalog import CatalogEntry
from retrieval.subjects import resolve_subjects

ScopeMethod = Literal["explicit", "named", "retrieved", "all"]

#: Characters a question and a name must share (after normalisation) to count as naming it.
MIN_NAME_CHARS = 4
#: What a document's whole file name in the question scores: more than any shared run of a name's characters.
_FILE_NAME_SCORE = 1000
#: Share of text shingles two documents must have in common to be versions of one document.
MIN_VERSION_OVERLAP = 0.2
#: Sheet names that name nothing ("Sheet1", "工作表2").
#: English words that many titles and questions share without naming a document (keys have no spaces).
_GENERIC_LATIN = re.compile(
    r"documents?|reports?|papers?|files?|guides?|guidelines|polic(?:y|ies)|manuals?|notes|summar(?:y|ies)|"
    r"versions?|analys[ie]s|results|tables?|sheets?|data|information|supports?|the|and|of|for|about|"
    + "|".join(sorted((w for w in GENERIC_WORDS if w.isalpha() and len(w) > 3), key=len, reverse=True))
)
_GENERIC_SHEET = re.compile(r"^(sheet|工作表|表)\s*\d*$", re.IGNORECASE)

#: Document-type words; every entry lists the spellings that mean the same kind of document.
TYPE_WORDS: tuple[tuple[str, ...], ...] = (
    ("合同", "协议", "contract", "agreement"),
    ("通知", "公告", "notice", "announcement", "circular"),
    ("员工手册", "手册", "handbook", "manual"),
    ("会议纪要", "纪要", "minutes"),
    ("制度", "办法", "规定", "政策", "policy", "regulation", "regulations"),
    ("方案", "计划书", "proposal", "plan"),
    ("演示文稿", "幻灯片", "汇报材料", "presentation", "slides", "deck"),
    ("报表", "工作簿", "表格", "spreadsheet", "workbook"),
    ("指南", "指引", "guide", "guidelines", "guideline"),
    ("简历", "resume", "cv"),
    ("发票", "invoice"),
)
#: Words for an annual report: they select documents by their kind, never by their title.
REPORT_WORDS = ("年报", "年度报告", "annual report")
_ALL_DOCUMENTS = re.compile(r"所有文档|全部文档|各个文档|知识库中|知识库里|所有文件|全部文件|all (?:the )?documents|"
                            r"every document|all files|knowledge base", re.IGNORECASE)
#: A question about several versions of a document keeps them all.
COMPARE_VERSIONS = re.compile(r"新旧|两版|两个版本|各版本|历次|旧版|前后版本|版本之间|版本间|修订前|修订后|"
                              r"old and new|previous version|earlier version|both versions|versions? differ",
                              re.IGNORECASE)


@dataclass(slots=True)
class Scope:
    """The documents a question is answered from, and how they were chosen."""

    method: ScopeMethod
    doc_ids: list[str] = field(default_factory=list)
    superseded: dict[str, str] = field(default_factory=dict)  # older version's doc id -> newer's
    matched: dict[str, str] = field(default_factory=dict)  # doc id -> the name or word that matched
    unknown: list[str] = field(default_factory=list)  # explicit references that match no document
    reasons: dict[str, str] = field(default_factory=dict)  # set-aside doc id -> why (version, other year)
    missing: list[str] = field(default_factory=list)  # companies the question names that no document is about
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
            out["superseded"] = [
                {**describe(old), "newer": new, **({"reason": self.reasons[old]} if old in self.reasons else {})}
                for old, new in self.superseded.items()
            ]
        others = [d for d in self.reasons if d not in self.superseded]
        if others:  # another year's report of the same company: set aside, but no version of the kept one
            out["set_aside"] = [{**describe(d), "reason": self.reasons[d]} for d in others]
        if self.missing:
            out["missing"] = list(self.missing)
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


#: Words that ask for a company's report itself (beside a document the question names by title).
_ASKS_FOR_REPORT = re.compile(r"年报|年度报告|半年报|季报|财报|财务报告|annual report|10-k|20-f|financial statements?",
                              re.IGNORECASE)


def resolve_named(question: str, catalog: Mapping[str, CatalogEntry]) -> Scope | None:
    """The documents the question names, or None when it names none (see the module docstring)."""
    if _ALL_DOCUMENTS.search(question):
        return Scope("all", newest_versions(list(catalog), catalog)[0])
    by_name = _resolve_by_name(question, catalog)
    subjects = resolve_subjects(question, catalog)
    if subjects is None:
        return by_name
    if by_name is not None and subjects.doc_ids and by_name.method == "named":
        both = [d for d in by_name.doc_ids if d in subjects.doc_ids]
        if not both and not _ASKS_FOR_REPORT.search(question):
            # "星河智能和蓝海物流签的技术服务合同": the document named is no report of the company named (the company
            # is a party to it): the question is about the document it names
            return by_name
        if not both:  # "星河智能年报里提到的技术服务合同": the report is asked for too; retrieval ranks inside both
            both = list(dict.fromkeys([*by_name.doc_ids, *subjects.doc_ids]))
        matched = {d: subjects.matched.get(d) or by_name.matched.get(d, "") for d in both}
        return Scope("named", both, superseded=by_name.superseded, matched=matched, reasons=by_name.reasons,
                     missing=list(subjects.missing))
    # The question names a company: its documents, or none at all when no document is about it.
    return Scope(
        "named",
        list(subjects.doc_ids),
        matched=dict(subjects.matched),
        reasons=dict(subjects.set_aside),
        missing=list(subjects.missing),
    )


def _resolve_by_name(question: str, catalog: Mapping[str, CatalogEntry]) -> Scope | None:
    """The documents whose own name (title, file name, sheet) or type word the question uses."""
    text = name_key(question)
    lowered = question.lower()
    strong: dict[str, tuple[int, str]] = {}
    for doc_id, entry in catalog.items():
        subject = entry.profile.subject
        if subject is not None and subject.kind and subject.entity:
            continue  # a report is named by its company (retrieval.subjects), not by its title
        best = _file_name_match(lowered, entry) or _name_match(text, entry)
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
    doc_ids, superseded, reasons = versions_of(list(chosen), catalog)
    return Scope("named", doc_ids, superseded=superseded, matched={d: chosen[d] for d in doc_ids}, reasons=reasons)


def _file_name_match(question: str, entry: CatalogEntry) -> tuple[int, str] | None:
    """The document's whole file name, extension included ("sales.csv"), written in the (lower-cased) question:
    it names that file however short its stem is (the loose match below wants six letters of a Latin name), and
    it outranks every loose match of another document's name."""
    name = PurePath(entry.path).name.lower()
    if not PurePath(name).suffix or len(PurePath(name).stem) < 2:
        return None
    if re.search(rf"(?<![a-z0-9_.\-/]){re.escape(name)}(?![a-z0-9])", question) is None:
        return None
    return _FILE_NAME_SCORE, PurePath(entry.path).name  # two files named: both kept (a tie)


def _name_match(question_key: str, entry: CatalogEntry) -> tuple[int, str] | None:
    """(characters in common, the name) for the entry's best name found in the question."""
    best: tuple[int, str] | None = None
    names = [entry.profile.title, PurePath(entry.path).stem, *entry.profile.sheets]
    for name in names:
        if not name or _GENERIC_SHEET.match(name.strip()) or not family_key(name, ""):
            continue  # "Annual Report", "Microsoft Word - R1", "0001213900-23-024631" name nothing
        key = name_key(name)
        if len(key) < MIN_NAME_CHARS:
            continue
        common = key if key in question_key else _longest_common(question_key, key)
        if len(common) < MIN_NAME_CHARS or not _meaningful(common):
            continue
        if _is_report(entry) and not distinctive(common):
            continue  # "生物科技" shared by two companies' report titles names neither

        if common.isascii() and len(_GENERIC_LATIN.sub("", common)) < 6:
            continue  # "document" shared by "the DA-619p document" and "MinerU supports DOCX document parsing"
        # A long title shares a generic word with many questions; ask for half the title or 6+ characters.
        if len(common) < min(len(key), 6) and len(common) * 2 < len(key):
            continue
        if best is None or len(common) > best[0]:
            best = (len(common), name)
    return best


def _is_report(entry: CatalogEntry) -> bool:
    return entry.profile.subject is not None and bool(entry.profile.subject.kind)


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
    """Documents whose names carry a document-type word the question uses (in either language).

    Report words ("年报", "annual report") match by what a document is (its subject's kind, read
    from its pages), never by title: many titles say "Annual Report" whatever company they are about.
    """
    chosen: dict[str, str] = {}
    used = [w for w in REPORT_WORDS if _contains_word(question, w)]
    if used:
        for doc_id, entry in catalog.items():
            if entry.profile.subject is not None and entry.profile.subject.kind == KIND_ANNUAL:
                chosen[doc_id] = used[0]
        if chosen:
            return chosen
    for group in TYPE_WORDS:
        used = [w for w in group if _contains_word(question, w)]
        if not used:
            continue
        for doc_id, entry in catalog.items():
            names = " ".join(n for n in (entry.profile.title, PurePath(entry.path).stem) if family_key(n, "")).lower()
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
    """Keep the newest version of each document; return (kept ids, older id -> newer id)."""
    kept, superseded, _ = versions_of(doc_ids, catalog)
    return kept, superseded


def versions_of(
    doc_ids: Iterable[str], catalog: Mapping[str, CatalogEntry]
) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """(kept ids, older id -> newer id, older id -> why it counts as an older version of the newer one)."""
    ordered = list(dict.fromkeys(doc_ids))
    families: dict[str, list[str]] = {}
    for doc_id in ordered:
        entry = catalog.get(doc_id)
        key = entry.profile.family if entry is not None else ""
        families.setdefault(key or doc_id, []).append(doc_id)
    superseded: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for members in families.values():
        entries = [catalog[m] for m in members if m in catalog]
        for group in _same_document(entries):
            if len(group) < 2 or not any(e.profile.version or e.profile.effective_date for e in group):
                continue  # same title but no stated versions: two different documents (two meetings' minutes)
            newest = max(group, key=lambda e: (*e.profile.version_key(), e.mtime))
            for entry in group:
                if entry.doc_id != newest.doc_id:
                    superseded[entry.doc_id] = newest.doc_id
                    reasons[entry.doc_id] = _version_reason(entry, newest)
    return [d for d in ordered if d not in superseded], superseded, reasons


def _same_document(entries: list[CatalogEntry]) -> list[list[CatalogEntry]]:
    """Split one title family into groups that are really one document: same subject, overlapping content."""
    groups: list[list[CatalogEntry]] = []
    for entry in entries:
        for group in groups:
            if all(_versions_of_each_other(entry, other) for other in group):
                group.append(entry)
                break
        else:
            groups.append([entry])
    return groups


def _versions_of_each_other(a: CatalogEntry, b: CatalogEntry) -> bool:
    sa, sb = a.profile.subject, b.profile.subject
    if sa is not None and sb is not None:
        ka, kb = entity_key(sa.entity), entity_key(sb.entity)
        if ka and kb and ka != kb:
            return False  # two companies' documents are never versions of one another
        if sa.kind != sb.kind:
            return False
    overlap = content_overlap(a.profile.signature, b.profile.signature)
    return overlap is None or overlap >= MIN_VERSION_OVERLAP


def _version_reason(old: CatalogEntry, new: CatalogEntry) -> str:
    """"same title '信息安全管理制度', 62% of the text in common; 版本号: V3.0 is newer than 版本号: V2.0"."""
    parts = [f"same title '{new.title}'"]
    subject = new.profile.subject
    if subject is not None and subject.entity:
        parts.append(f"same entity '{subject.entity}'")
    overlap = content_overlap(old.profile.signature, new.profile.signature)
    if overlap is not None:
        parts.append(f"{round(overlap * 100)}% of the text in common")
    newer = new.profile.version or new.profile.effective_date or "a later file date"
    older = old.profile.version or old.profile.effective_date or "no stated version"
    return ", ".join(parts) + f"; {newer} is newer than {older}"


__all__ = [
    "TYPE_WORDS",
    "CatalogEntry",
    "Scope",
    "newest_versions",
    "resolve_explicit",
    "resolve_named",
    "versions_of",
]
