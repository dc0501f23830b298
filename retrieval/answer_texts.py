"""The lines an answer adds about its documents: "依据文档：…", the newest-version note, unknown names.

Why one module: every answerer that reads documents ends its text the same way, and names a
document the same way (its file name; with its folder and version when two indexed files share
the name), so a reader sees one spelling whichever answerer answered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePath

from officeqa.words import word_list
from retrieval.catalog import CatalogEntry
from retrieval.messages import text as message
from retrieval.scope import Scope

#: Words of a comparison question that name no content ("对比新旧两版…有哪些变化").
COMPARE_WORDS = word_list("comparison_words")


def document_name(doc_id: str, catalog: Mapping[str, CatalogEntry]) -> str:
    """The file name; when another indexed document has the same name, with its folder and stated version."""
    entry = catalog.get(doc_id)
    if entry is None:
        return doc_id[:12]
    name = PurePath(entry.path).name
    if sum(1 for other in catalog.values() if PurePath(other.path).name == name) > 1:
        folder = PurePath(entry.path).parent.name
        version = f" ({entry.profile.version})" if entry.profile.version else ""
        return f"{folder}/{name}{version}"
    return name


def document_names(doc_ids: Sequence[str], catalog: Mapping[str, CatalogEntry], language: str) -> str:
    """The documents' names joined as the language lists them."""
    return ("、" if language == "zh" else ", ").join(document_name(d, catalog) for d in doc_ids)


def based_on(scope: Scope, catalog: Mapping[str, CatalogEntry], language: str) -> str:
    """"依据文档：a.docx" / "Based on the retrieved documents: …" (empty when the scope names none)."""
    if not scope.doc_ids:
        return ""
    key = "scope_retrieved" if scope.method == "retrieved" else "scope_named"
    return message(key, language, documents=document_names(scope.doc_ids, catalog, language))


def scope_notes(scope: Scope, catalog: Mapping[str, CatalogEntry], language: str) -> list[str]:
    """Lines before the answer: documents asked for that do not exist, newer versions used instead."""
    lines = []
    if scope.unknown:
        lines.append(message("scope_unknown", language, documents=", ".join(scope.unknown)))
    for older, newer in scope.superseded.items():
        entry = catalog.get(newer)
        version = (entry.profile.version if entry and entry.profile.version else "") or "—"
        lines.append(message("newest_version", language, newer=document_name(newer, catalog),
                             older=document_name(older, catalog), version=version))
        if older in scope.reasons:  # which documents were treated as versions, and why
            lines.append(message("version_reason", language, reason=scope.reasons[older]))
    if scope.missing and scope.doc_ids:
        lines.append(message("subject_partly_missing", language, names=", ".join(scope.missing)))
    return lines


def summary_note(summary: Mapping[str, object], catalog: Mapping[str, CatalogEntry], language: str) -> list[str]:
    """The line saying that some summary trees are missing (and queued), when the summary answerer said so."""
    missing = summary.get("missing")
    if not isinstance(missing, list) or not missing:
        return []
    key = "summary_queued" if summary.get("queued") else "summary_missing"
    return [message(key, language, documents=document_names(missing, catalog, language))]


def naming_words(scope: Scope, catalog: Mapping[str, CatalogEntry]) -> list[str]:
    """Words that chose the documents (the matched names and titles, "对比新旧两版"): not asked about."""
    if not scope.restricts:
        return []
    words = [*scope.matched.values(), *COMPARE_WORDS]
    for doc_id in scope.doc_ids:
        entry = catalog.get(doc_id)
        if entry is not None:
            words.extend([entry.title, PurePath(entry.path).stem, *_identity_names(entry)])
    return words


def _identity_names(entry: CatalogEntry) -> list[str]:
    """The scoped document's company as its identity spells it (legal, short, English and former names, stock
    codes): a question that chose the report by any of them ("00700.HK在研发方面…") asks nothing about that word."""
    subject = entry.profile.subject
    if subject is None:
        return []
    digits = [code.split(".")[0] for code in subject.codes]  # "00700.HK": the question's tokens are "00700", "hk"
    # the forms a question writes a Hong Kong code in ("港股0700", "HK700"), and the market word before it
    forms = [form for d in digits if d.isdigit() for form in (d.lstrip("0"), d.lstrip("0").zfill(4))]
    markets = MARKET_WORDS if subject.codes else []
    return [subject.entity, *subject.short_names, subject.english_name, *subject.codes, *digits, *forms,
            *markets, *subject.former_names]


#: Words that name a listing's market beside its code ("港股0700", "A股000570"): they chose the document.
MARKET_WORDS = ["港股", "A股", "B股", "H股", "美股", "沪市", "深市"]


def shared_naming_words(scope: Scope, catalog: Mapping[str, CatalogEntry]) -> list[str]:
    """The naming words that name EVERY document in scope (their common title, "对比新旧两版"): inside the scope
    they match each document alike, so a search for them only ranks title chunks first. A word that names one
    of several documents in scope ("技术服务合同" beside the company's annual report) still tells them apart and
    is kept for the search."""
    words = naming_words(scope, catalog)
    if len(scope.doc_ids) < 2:
        return words
    names = [" ".join([entry.title, PurePath(entry.path).stem, scope.matched.get(doc_id, "")])
             for doc_id in scope.doc_ids if (entry := catalog.get(doc_id)) is not None]
    return [w for w in words if w in COMPARE_WORDS or all(w in name for name in names)]


def strip_names(question: str, names: Sequence[str], replacement: str = " ") -> str:
    """The question without the words that named its documents ("供应商名录里", "年报中"): the table linker
    must not read them as columns or values. ``replacement``: what stands in their place ("这份文件")."""
    out = question
    for name in sorted({n for n in names if n and len(n) >= 2}, key=len, reverse=True):
        # the extension is ASCII ("sales.csv中amount": \w would take "csv中am", and with it the column's name)
        out = re.sub(re.escape(name) + r"(?:\.[a-z0-9]{2,5}(?![a-z0-9]))?(?:里面|里|中|内|上|的)?", f" {replacement} ",
                     out, flags=re.IGNORECASE)
    return " ".join(out.split()) or question


__all__ = ["COMPARE_WORDS", "based_on", "document_name", "document_names", "naming_words", "scope_notes",
           "strip_names", "summary_note"]
