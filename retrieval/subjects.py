"""Which companies (subjects) a question names, and which of their reports answer it.

Why not titles: in a knowledge base of many similar documents the titles are alike or empty
("Annual Report", "年度报告", "Microsoft Word - R1"), while every question names the company
("For Ziff Davis, Inc., what was…", "航天电器2019年的营业收入"). Each document's subject
(``indexing.subjects.DocumentSubject``: full name, short names, English name, codes, kind,
fiscal year) was read from its first pages at index time; here the question is matched against
those names. The rules:

* both sides are folded first (NFKC, Traditional -> Simplified by OpenCC: "騰訊" is "腾讯");
* a name counts when it appears in the question as whole words (Latin, case-insensitive, legal
  suffixes ignored) or as a run of characters (Chinese), and only when it has a distinctive part
  (``indexing.identity.distinctive``: a name made of shared words, "生物科技", "Technology Holdings",
  decides nothing); stock codes in canonical form ("002025", "00700.HK") and tickers as exact tokens;
* the longest match wins where two matches overlap ("Odyssey Gold" over "Odyssey");
* every company named is kept (two companies -> both, for a side-by-side answer);
* of one company's reports, those of the year the question names, else the newest fiscal year;
  the others are set aside with the reason;
* a company the question names that no document is about is reported as ``missing``, so the
  answer can say so instead of answering from another company's report.

Only documents that are reports (a ``kind`` was read: 年度报告, annual report, 10-K, …) are
scoped by their company: a contract or a memo names counterparties it is not about.

Pure functions over the catalog the service supplies (``retrieval.catalog.CatalogEntry``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

from indexing.identity import canonical_code, distinctive, fold, question_codes, same_distinctive
from indexing.subjects import GENERIC_WORDS, DocumentSubject, entity_key, is_specific, short_key
from retrieval.catalog import CatalogEntry

#: One word of a company name: capitalised ("Poste"), all capitals ("AA", "MGM"), mixed case ("archTIS") or a
#: number joined to capitals ("1-800-FLOWERS.COM").
_NAME_WORD = r"(?:[A-Z][A-Za-z0-9&'’.\-]*|[a-z]+[A-Z][A-Za-z0-9]*|\d[\d\-]*-[A-Z][A-Za-z0-9&.\-]*)"
#: A company-like name in a question: capitalised words ending in a legal form.
_QUESTION_COMPANY = re.compile(
    rf"(?<![\w&'’.\-])((?:{_NAME_WORD}[ \t]+){{0,5}}?{_NAME_WORD}),?[ \t]+"
    r"((?i:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|Limited|Ltd\.?|Holdings|Group)|N\.V\.|S\.A\.|"
    r"AG|SE|LLC|L\.P\.)(?![A-Za-z])"
)
_KIND_WORD = (
    r"(?:International|Resorts|REIT|Bank|Bancorp|Bancshares|Airlines|Pharmaceuticals|Therapeutics|Technologies|"
    r"Industries|Brands|Motors|Mining|Petroleum|Telecom|Entertainment)"
)
#: A capitalised name ending in a word only companies end in ("MGM Resorts International", "Crombie REIT").
_QUESTION_COMPANY_KIND = re.compile(
    rf"(?<![\w&'’.\-])((?:{_NAME_WORD}[ \t]+){{1,5}}?)"
    rf"({_KIND_WORD}(?:[ \t]+{_KIND_WORD})*)(?![A-Za-z])"
)
#: The subject of a question about what a company did: "Did Poste Italiane announce …", "Has Datalogic reported …".
_QUESTION_SUBJECT = re.compile(
    rf"^(?:Did|Does|Has|Have|Had)[ \t]+((?:{_NAME_WORD}[ \t]+){{1,5}}?)"
    r"(?=(?:announce|report|mention|outline|disclose|detail|describe|declare|acquire|issue|launch|file|sign)\w*\b)"
)
#: Capitalised words that are no company a report is about: roles, bodies, currencies, months, places, pronouns,
#: audit firms ("Did PricewaterhouseCoopers LLP issue an unqualified opinion?" asks about an auditor), exchanges.
_NOT_NAMES = frozenset(
    [
        "ceo", "cfo", "coo", "cto", "chair", "chairman", "chairwoman", "president", "board", "management", "directors",
        "director", "auditor", "auditors", "committee", "shareholders", "esg", "usd", "eur", "gbp", "aud", "cad", "jpy",
        "cny", "rmb", "chf", "sek", "nok", "hkd", "january", "february", "march", "april", "may", "june", "july",
        "august", "september", "october", "november", "december", "q1", "q2", "q3", "q4", "fy", "h1", "h2", "total",
        "net", "gross", "our", "its", "their", "this", "that", "these", "those", "parent", "we", "it", "they", "he",
        "she", "china", "japan", "germany", "france", "italy", "canada", "australia", "india", "europe", "america",
        "asia", "africa", "uk", "us", "usa", "eu",
        "llp", "pricewaterhousecoopers", "pwc", "deloitte", "touche", "kpmg", "ernst", "young", "bdo", "grant",
        "thornton", "mazars", "nasdaq", "nyse", "asx", "lse", "sec",
    ]
)
_QUESTION_COMPANY_CN = re.compile(r"([\u4e00-\u9fff]{2,20}?(?:股份有限公司|有限责任公司|有限公司|集团))")
_QUOTED = re.compile(r"[\"“]([^\"”]{3,60})[\"”]")
_YEAR = re.compile(r"(?<!\d)(20[0-4]\d|19[89]\d)(?!\d)")
_LEADING = re.compile(
    r"^(?:(?:For|Did|Does|Do|What|Which|How|Was|Were|Is|Are|The|In|At|Of|According|To|By|Has|Had)\s+)+"
)
_TICKER = re.compile(r"(?<![A-Za-z0-9])([A-Z]{2,5})(?![A-Za-z0-9])")
_DIGITS6 = re.compile(r"(?<!\d)(\d{6})(?!\d)")


@dataclass(slots=True)
class SubjectScope:
    """The documents the named subjects select, and why."""

    doc_ids: list[str] = field(default_factory=list)
    matched: dict[str, str] = field(default_factory=dict)  # doc id -> the name found in the question
    entities: list[str] = field(default_factory=list)  # the companies named, as the documents spell them
    years: list[int] = field(default_factory=list)  # years the question names
    set_aside: dict[str, str] = field(default_factory=dict)  # doc id -> why (another year of the same company)
    missing: list[str] = field(default_factory=list)  # names in the question no document is about


def question_years(question: str) -> list[int]:
    """The years a question names ("2019年", "fiscal 2022", "in 2021")."""
    return sorted({int(y) for y in _YEAR.findall(question)})


def resolve_subjects(question: str, catalog: Mapping[str, CatalogEntry]) -> SubjectScope | None:
    """The subject scope of ``question``, or None when it names no company (retrieval decides then)."""
    question = fold(question)
    latin = _latin_text(question)
    cjk = re.sub(r"\s+", "", question)
    hits: dict[str, tuple[str, str]] = {}  # doc id -> (matched key, the name as the document spells it)
    for doc_id, entry in catalog.items():
        subject = entry.profile.subject
        if subject is None or subject.is_empty or not subject.kind:
            continue  # only reports: a contract or a memo names its counterparties, which it is not "about"
        found = _best_match(subject, latin, cjk, question)
        if found is not None:
            hits[doc_id] = found
    hits = _drop_shadowed(hits)
    missing = _missing_names(question, hits, catalog)
    if not hits:
        return SubjectScope(missing=missing) if missing else None
    years = question_years(question)
    kept, set_aside = _pick_reports(list(hits), catalog, years)
    entities = list(dict.fromkeys(_display(catalog[d].profile.subject) for d in kept))
    return SubjectScope(
        doc_ids=kept,
        matched={d: hits[d][1] for d in kept},
        entities=entities,
        years=years,
        set_aside=set_aside,
        missing=missing,
    )


def _latin_text(text: str) -> str:
    """ " for ziff davis inc what was " — lower case, words separated by single spaces, padded; a Chinese run is a
    word of its own ("Northwind Analytics的董事长" -> " northwind analytics 的董事长 ")."""
    text = re.sub(r"([\u4e00-\u9fff]+)", r" \1 ", text)
    words = re.split(r"[\W_]+", text.lower().replace("&", " and "))
    return " " + " ".join(w for w in words if w) + " "


def _latin_keys(subject: DocumentSubject) -> list[str]:
    """The subject's keys, their short forms, and a Latin name's distinctive part ("aptevo" of "Aptevo
    Therapeutics Inc."): users call a company by it; a Chinese one is too short alone ("航天")."""
    keys = subject.keys()
    cores = [d for k in keys if not _cjk(k) and len(d := distinctive(k)) >= _MIN_CORE and is_specific(d)]
    return list(dict.fromkeys([*keys, *(short_key(k) for k in keys if is_specific(short_key(k))), *cores]))


#: Letters a Latin name's distinctive part needs to name the company alone.
_MIN_CORE = 4


def _best_match(subject: DocumentSubject, latin: str, cjk: str, question: str) -> tuple[str, str] | None:
    """(key, name) of the longest name of ``subject`` in the question; codes count as short names."""
    best: tuple[str, str] | None = None
    for key in _latin_keys(subject):
        cjk_key = any("\u4e00" <= ch <= "\u9fff" for ch in key)
        hit = key in cjk if cjk_key else f" {key} " in latin
        if hit and distinctive(key) and (best is None or len(key) > len(best[0])):
            best = (key, _display(subject))
    if best is None:
        tickers = set(_TICKER.findall(question)) | set(_DIGITS6.findall(question)) | question_codes(question)
        # a defined abbreviation in capitals is asked like a ticker ("Ziff Davis, Inc. (ZD)")
        abbreviations = [n for n in subject.short_names if re.fullmatch(r"[A-Z]{2,5}", n)]
        for code in [*subject.codes, *abbreviations]:
            if canonical_code(code) in tickers or code in tickers:
                return code, _display(subject)
    return best


def _display(subject: DocumentSubject | None) -> str:
    if subject is None:
        return ""
    return subject.entity or (subject.short_names[0] if subject.short_names else "")


def _drop_shadowed(hits: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Drop a match that a longer match contains ("odyssey" when "odyssey gold" also matched)."""
    keys = {k for k, _ in hits.values()}
    longer = {k for k in keys if any(k != o and k in o for o in keys)}
    return {d: v for d, v in hits.items() if v[0] not in longer}


def _missing_names(question: str, hits: dict[str, tuple[str, str]], catalog: Mapping[str, CatalogEntry]) -> list[str]:
    """Company names in the question that no document's subject carries.

    Why word-level comparison: "AA Limited" is no name of "Nordic American Tankers" although the letters "aa"
    may occur inside another name; a name is known only when it is, or contains, a known name as whole words.
    Why two strengths: a name with a legal form ("AA Limited") is a company whatever the knowledge base holds;
    a name recognised by its place or its last word ("Did Poste Italiane announce…", "MGM Resorts International")
    is said absent only when every report's company was read; while one report's company is unknown, it may be
    that report's company ("Did MongoDB report…" beside a report whose cover named no company), and a false "not in
    the knowledge base" is worse than an answer retrieval scopes.
    """
    reports = [e.profile.subject for e in catalog.values() if e.profile.subject is not None and e.profile.subject.kind]
    if not reports:
        return []  # a knowledge base without reports: a company name is just a word of the question
    all_named = all(subject.entity for subject in reports)
    known, codes, titles = _known_names(hits, catalog)
    out: list[str] = []
    for name, strong in _question_companies(question):
        key = entity_key(name)
        if not (strong or all_named) or not _names_one(key) or any(word in codes for word in name.split()):
            continue
        if any(_same_company(key, k) for k in known) or any(_has_words(t, key) for t in titles):
            continue
        if name not in out:
            out.append(name)
    return out


def _known_names(
    hits: dict[str, tuple[str, str]], catalog: Mapping[str, CatalogEntry]
) -> tuple[set[str], set[str], list[str]]:
    """Every key a document's subject gives, every code, and every title and file name as words.

    Titles and file names count only when they hold the whole name ("Commerzbank Konzern_GB 2022_EN_Final" for
    "Commerzbank"): a report whose cover named no company may still be that company's.
    """
    known: set[str] = {k for k, _ in hits.values()}
    codes: set[str] = set()
    titles: list[str] = []
    for entry in catalog.values():
        subject = entry.profile.subject
        if subject is not None:
            known.update(_latin_keys(subject))
            codes.update(subject.codes)
        titles += [_latin_text(entry.profile.title).strip(), _latin_text(PurePath(entry.path).stem).strip()]
    return known, codes, titles


def _same_company(key: str, known: str) -> bool:
    """True when one key holds the other as whole words (Latin), or their distinctive parts agree (Chinese); the
    part held must itself be distinctive ("technology holdings" inside two names decides nothing)."""
    if not known:
        return False
    if _cjk(key) or _cjk(known):
        return same_distinctive(key, known)  # "贝达生物" is not "华熙生物": the shared "生物" never decides
    held = _has_words(key, known) or _has_words(known, key)
    return held and bool(distinctive(known if len(known) <= len(key) else key))


def _question_companies(question: str) -> list[tuple[str, bool]]:
    """(name, strong) for each name the question gives as a company's; strong: with a legal form (or Chinese 公司)."""
    strong = [m.group(0) for m in _QUESTION_COMPANY.finditer(question)]  # as printed: "1-800-FLOWERS.COM, INC."
    weak = [f"{m.group(1)}{m.group(2)}" for m in _QUESTION_COMPANY_KIND.finditer(question)]
    weak += [m.group(1) for m in _QUESTION_SUBJECT.finditer(question.strip())]
    names = [(_LEADING.sub("", n).strip(), True) for n in strong] + [(_LEADING.sub("", n).strip(), False) for n in weak]
    names += [(m.group(1), True) for m in _QUESTION_COMPANY_CN.finditer(question)]
    quoted = [m.group(1).strip() for m in _QUOTED.finditer(question)]
    # one quoted phrase may be a term ('what is "Adjusted EBITDA"'); a list of them names companies to compare
    for phrase in quoted:
        legal = _QUESTION_COMPANY.fullmatch(phrase) is not None
        if legal or len(quoted) > 1:
            names.append((phrase, legal))
    return [(n, s) for n, s in names if n]


def _names_one(key: str) -> bool:
    """True when a key can name one company: Chinese as ``is_specific``; Latin with a word that is no generic word.

    Two letters are enough ("AA Limited": the legal form or the position made it a name); roles, currencies,
    months and places alone are not ("the CEO", "USD", "Fiscal 2022", "Italy").
    """
    if _cjk(key):
        return is_specific(key)
    words = [w for w in key.split() if w not in GENERIC_WORDS and w not in _NOT_NAMES and not w.isdigit()]
    return bool(words) and len("".join(words)) >= 2


def question_company_names(question: str) -> list[str]:
    """Every name the question gives as a company's ("Brave Bison Group plc", "MGM Resorts International"), strong
    or weak: what a yes/no question's topic is read without."""
    return [name for name, _ in _question_companies(fold(question))]


def has_legal_form(name: str) -> bool:
    """Whether a name from a question carries a legal form ("AA Limited", "Ziff Davis, Inc.", "…股份有限公司"): a
    company's name whatever the indexed text holds (``_missing_names``' strong names)."""
    return _QUESTION_COMPANY.search(name) is not None or _QUESTION_COMPANY_CN.search(name) is not None


def can_name_company(name: str) -> bool:
    """Whether a name from a question can be one company's: not a role, currency, month, place or generic word."""
    return _names_one(entity_key(name))


def _has_words(text: str, part: str) -> bool:
    return f" {part} " in f" {text} "


def _cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _pick_reports(
    doc_ids: list[str], catalog: Mapping[str, CatalogEntry], years: list[int]
) -> tuple[list[str], dict[str, str]]:
    """Per company: the reports of the named years, else of its newest fiscal year; why the others were set aside."""
    by_entity: dict[str, list[str]] = {}
    for doc_id in doc_ids:
        subject = catalog[doc_id].profile.subject
        key = f"{entity_key(_display(subject)) or doc_id}|{subject.kind if subject else ''}"
        by_entity.setdefault(key, []).append(doc_id)  # one company's reports of one kind: years compete
    kept: list[str] = []
    set_aside: dict[str, str] = {}
    for members in by_entity.values():
        dated = {d: catalog[d].profile.subject.fiscal_year for d in members}  # type: ignore[union-attr]
        named = [d for d in members if dated[d] in years]
        if named:
            chosen = named
            why = "the question names {years}; this report covers {year}"
        elif any(dated.values()):
            newest = max(y for y in dated.values() if y)
            chosen = [d for d in members if dated[d] in (newest, None)]
            why = "the newest report (" + str(newest) + ") answers when no year is named; this one covers {year}"
        else:
            chosen = members
            why = ""
        kept.extend(chosen)
        for d in members:
            if d not in chosen:
                set_aside[d] = why.format(years=", ".join(map(str, years)), year=dated[d])
    return kept, set_aside


__all__ = ["SubjectScope", "can_name_company", "has_legal_form", "question_company_names", "question_years",
           "resolve_subjects"]
