"""What a document is about: its entity (company), the names people call it by, its codes, kind and period.

Why at index time and from the first pages: a knowledge base of many similar documents (every
subsidiary's 年报, a hundred companies' annual reports) cannot be scoped by PDF title — titles are
empty, "Annual Report", "Microsoft Word - R1" or an EDGAR accession number. What tells the reports
apart is printed on their first pages: the cover ("贵州航天电器股份有限公司 2019 年度报告"), the
公司简介 table (股票简称 / 股票代码 / 公司的中文名称 / 公司的外文名称), the 10-K cover ("APTEVO
THERAPEUTICS INC. (Exact name of registrant as specified in its charter)", the trading symbol, "for the
fiscal year ended December 31, 2022"). Pure functions over text; :func:`extract_subject` reads a
parsed document, :func:`subject_from_text` the text itself (tests, other formats).

A subject only carries names a question would use to pick this document over the others: generic
words ("Annual Report", "年度报告", "Microsoft Word", "document") are never names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any

from indexing.identity import (
    CN_REGIONS,
    canonical_code,
    fold,
    former_names,
    hk_codes,
    is_common_noun,
    mentions,
    own_tickers,
    printed_form,
    short_form,
)
from officeqa.chinese import has_traditional
from officeqa.domain import ParsedDocument

#: Pages read for the subject (cover, 公司简介, 10-K cover and its first items).
FIRST_PAGES = 8
#: Blocks read when the format has no pages (docx, txt).
FIRST_BLOCKS = 120
_MAX_TEXT = 60_000
#: How much of the whole document a name is looked for in when the first pages name none
#: (a 10-K bound behind a glossy letter to shareholders has its cover on page 20).
_MAX_BODY = 600_000
_BACK_COVER = 20_000

# ----------------------------------------------------------------------------------- kinds of document
KIND_ANNUAL = "annual_report"
KIND_SEMIANNUAL = "semiannual_report"
KIND_QUARTERLY = "quarterly_report"
KIND_FINANCIAL = "financial_report"
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        KIND_SEMIANNUAL,
        re.compile(r"半年度报告|半年报|half[- ]year(?:ly)? report|interim report|semi-?annual report", re.I),
    ),
    (KIND_QUARTERLY, re.compile(r"第[一三]季度报告|季度报告|quarterly report|FORM\s+10-Q", re.I)),
    (KIND_ANNUAL, re.compile(r"年度报告|年报|annual report|FORM\s+10-K|FORM\s+20-F|FORM\s+40-F|Appendix 4E", re.I)),
    (
        KIND_FINANCIAL,
        re.compile(
            r"financial (?:report|statements)|report and (?:financial statements|accounts)|"
            r"财务报告|财务报表",
            re.I,
        ),
    ),
)

# ----------------------------------------------------------------------------------- names
_LEGAL_EN = (
    r"Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.,?\s*Ltd\.?|Co\.|plc|PLC|Plc|Limited|Ltd\.?|LTD\.?|"
    r"N\.V\.|S\.A\.|AG|SE|LLC|L\.P\.|LP|Holdings|Bancshares(?:,\s*Inc\.)?|Trust plc|"
    r"Aktiengesellschaft|GmbH|KGaA|S\.p\.A\.|SpA|ASA|Oyj"
)
_NAME_WORD = r"(?:[A-Z][A-Za-z0-9&'’\-\.]*|&)"
_EN_COMPANY = re.compile(
    rf"\b((?:[A-Z][A-Za-z0-9&'’\-\.]*)(?:[ \t]+{_NAME_WORD}){{0,6}}?),?[ \t]+({_LEGAL_EN})(?![A-Za-z])"
)
_EN_COMPANY_CAPS = re.compile(
    rf"\b([A-Z][A-Z0-9&'’\-\.]+(?:[ \t]+[A-Z][A-Z0-9&'’\-\.]+){{0,5}}?),?[ \t]+({_LEGAL_EN.upper()})(?![A-Za-z])"
)
#: Words a capitalised run may start with that are no part of a name ("To the Shareholders of CoreCard Corporation").
_LEADING_PHRASE = re.compile(
    r"^(?:(?:To|Dear|The|Our|Board|Directors?|Shareholders|Stockholders|Members|Auditors?|Report|Notes?|of|the|and|"
    r"for|in|on|by|About|Annual|Letter|Chair(?:man)?|Statement|Independent)\s+)+"
)
_REGISTRANT = re.compile(r"\(\s*exact name of (?:the )?registrant as specified in its charter\s*\)", re.I)
_NAME_OF_ENTITY = re.compile(r"name of (?:the )?entity\s*[:：]\s*([^\n]{3,80})", re.I)
_TITLE_FORM = re.compile(r"form\s+(?:10-K|20-F|40-F|10-Q)\s+for\s+(.{3,80}?)\s+filed\b", re.I)
_TITLE_DASHED = re.compile(r"^(?:10-K|20-F|10-Q)\s*-\s*[\d/]+\s*-\s*(.{3,80})$", re.I)
_TITLE_BEFORE_DASH = re.compile(r"^(.{3,80}?)\s*[–—-]\s*(?:\d{4}\s+)?annual report", re.I)
#: A cover line "BRAVE BISON ANNUAL REPORT 2022": the words before "annual report" name the company.
_COVER_NAME = re.compile(r"^\s*([A-Z][A-Za-z0-9&'’.\- ]{2,40}?)\s+annual report\b", re.I | re.M)
#: What a file-ish metadata title starts with before the name ("Microsoft Word - ", "Form 10-K for").
_TITLE_NOISE = re.compile(r"^(?:microsoft\s+(?:word|excel|powerpoint)\s*[-–]\s*)", re.I)
_CN_FULL = re.compile(r"公司(?:的)?中文名称\s*[:：]?\s*([\u4e00-\u9fff（）()]{4,40}?(?:公司|集团|银行))")
_CN_SHORT = re.compile(
    r"(?:公司(?:的)?中文简称|股票简称|证券简称|股份简称|A\s*股简称|H\s*股简称)\s*[:：|]?\s*"
    r"([\u4e00-\u9fffA-Z*]{2,12}(?:\s*[AB])?)"
)
_CN_CODE = re.compile(
    r"(?:股票代码|证券代码|A\s*股(?:股票)?代码|B\s*股(?:股票)?代码)\s*[:：|]?\s*(\d{6}(?:\s*[、,，/]\s*\d{6})*)"
)
_CN_EN_NAME = re.compile(r"(?:公司(?:的)?外文名称|(?:公司)?英文名称)(?:（如有）|\(如有\))?"
                         r"\s*[:：|]?\s*([A-Za-z][A-Za-z0-9 ,.&'()\-]{4,80})")
_CN_COVER = re.compile(
    r"([\u4e00-\u9fff（）()]{4,40}?(?:股份有限公司|有限责任公司|有限公司|集团公司|银行))\s*"
    r"(\d{4}|[〇零一二三四五六七八九]{4})\s*年\s*(?:年度|半年度|第[一三]季度)?(?:报告|年报)"
)
_CN_COMPANY = re.compile(r"([\u4e00-\u9fff（）()]{2,30}?(?:股份有限公司|有限责任公司|有限公司|集团公司))")
_CN_LEGAL_SUFFIX = re.compile(r"(?:集团)?(?:股份有限公司|有限责任公司|有限公司|集团公司)$")
_TICKER_EXCHANGE = re.compile(
    r"(?<![A-Za-z])([A-Z]{1,5}(?:\.[A-Z])?)\s+(?:The\s+)?(?:Nasdaq|NASDAQ|New York Stock Exchange|NYSE|"
    r"Toronto Stock Exchange|TSX)"
)
_TICKER_ASX = re.compile(r"\b(?:ASX|AIM|LSE|TSX|NYSE|NASDAQ)\s*[:：]\s*([A-Z]{2,5})\b")

# ----------------------------------------------------------------------------------- period
_FISCAL_YEAR_EN = re.compile(
    r"(?:fiscal\s+)?(?:year|period)\s+ended\s+(?:[A-Za-z]+\s+\d{1,2},?\s+(\d{4})|\d{1,2}\s+[A-Za-z]+\s+(\d{4}))", re.I
)
_YEAR_NEAR_REPORT = re.compile(
    r"(?:(20\d\d|19\d\d)\s+annual report|annual report\s*(?:and 10-K\s*)?(20\d\d|19\d\d))", re.I
)
_CN_YEAR = re.compile(r"(\d{4}|[〇零一二三四五六七八九]{4})\s*年\s*(?:年度|半年度|第[一三]季度)?(?:报告|年报)")
#: A year written in Chinese numerals on a Hong Kong cover ("二零二三年年報").
_CN_DIGITS = str.maketrans("〇零一二三四五六七八九", "00123456789")
_YEAR = re.compile(r"(?<!\d)(20[0-4]\d|19[89]\d)(?!\d)")

# ----------------------------------------------------------------------------------- generic words
#: Words that never name a subject: what many documents of a knowledge base have in common.
GENERIC_WORDS = frozenset(
    [
        "annual",
        "report",
        "reports",
        "financial",
        "statements",
        "statement",
        "form",
        "document",
        "documents",
        "file",
        "files",
        "microsoft",
        "word",
        "excel",
        "powerpoint",
        "pdf",
        "edgar",
        "print",
        "final",
        "draft",
        "proof",
        "rev",
        "version",
        "copy",
        "the",
        "and",
        "of",
        "for",
        "to",
        "a",
        "an",
        "in",
        "on",
        "at",
        "by",
        "inc",
        "corp",
        "corporation",
        "company",
        "co",
        "ltd",
        "limited",
        "plc",
        "group",
        "holdings",
        "holding",
        "llc",
        "lp",
        "sa",
        "nv",
        "ag",
        "se",
        "trust",
        "consolidated",
        "accounts",
        "proxy",
        "notice",
        "meeting",
        "shareholders",
        "stockholders",
        "letter",
        "table",
        "contents",
        "page",
        "registration",
        "no",
        "number",
        "current",
        "folio",
        "10-k",
        "10k",
        "20-f",
        "20f",
        "40-f",
        "year",
        "ended",
        "fiscal",
        "period",
        "quarterly",
        "interim",
        "united",
        "states",
        "securities",
        "exchange",
        "commission",
        "washington",
    ]
)
GENERIC_CN = (
    "年度报告",
    "年报",
    "半年度报告",
    "季度报告",
    "报告全文",
    "报告摘要",
    "文档",
    "文件",
    "财务报告",
    "全文",
    "摘要",
)
_LEGAL_WORDS = frozenset(
    [
        "pty",
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "company",
        "co",
        "ltd",
        "limited",
        "plc",
        "llc",
        "lp",
        "sa",
        "nv",
        "ag",
        "se",
        "aktiengesellschaft",
        "gmbh",
        "kgaa",
        "spa",
        "asa",
        "oyj",
    ]
)
_SOFT_LEGAL = frozenset(["group", "holdings", "holding", "bancshares", "trust"])


@dataclass(slots=True)
class DocumentSubject:
    """The entity a document is about and which report of it this is (stored in the document's profile).

    ``entity``: the full name as printed ("贵州航天电器股份有限公司", "Aptevo Therapeutics Inc.").
    ``short_names``: what questions call it ("航天电器", "Aptevo Therapeutics", "MongoDB").
    ``english_name``: a Chinese company's 外文名称. ``codes``: stock codes and tickers in canonical form
    (``indexing.identity.canonical_code``: "002025", "00700.HK", "APVO"). ``former_names``: 曾用名 / "formerly".
    ``kind``: one of the ``KIND_*`` constants, or "" when the document is no report.
    ``fiscal_year`` / ``period``: the year the report covers and the period as printed.
    ``sources``: field -> where it was read ("公司简介", "cover", "registrant", "metadata", "frequency"),
    so that a scope decision can say why. ``other_entities``: a second issuer the report is equally
    about (KP Tissue Inc. beside Kruger Products L.P.), only when the entity came from frequency.
    """

    entity: str = ""
    short_names: list[str] = field(default_factory=list)
    english_name: str = ""
    codes: list[str] = field(default_factory=list)
    kind: str = ""
    fiscal_year: int | None = None
    period: str = ""
    sources: dict[str, str] = field(default_factory=dict)
    other_entities: list[str] = field(default_factory=list)
    former_names: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        """Every name of the entity, longest first (full, English, short)."""
        out = [n for n in (self.entity, self.english_name, *self.short_names, *self.other_entities,
                            *self.former_names) if n]
        return sorted(dict.fromkeys(out), key=len, reverse=True)

    def keys(self) -> list[str]:
        """The names as compared with a question (:func:`entity_key`), without empty or generic ones."""
        return [k for k in dict.fromkeys(entity_key(n) for n in self.names()) if is_specific(k)]

    @property
    def is_empty(self) -> bool:
        return not (self.entity or self.short_names or self.codes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> DocumentSubject | None:
        if not data:
            return None
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def describe(self) -> str:
        """ "Aptevo Therapeutics Inc., annual report 2022" — for notices that say why documents were grouped."""
        parts = [self.entity or (self.short_names[0] if self.short_names else "")]
        kind = self.kind.replace("_", " ")
        if kind or self.fiscal_year:
            parts.append(" ".join(p for p in (kind, str(self.fiscal_year or "")) if p))
        return ", ".join(p for p in parts if p)


# ----------------------------------------------------------------------------------- keys
_KEY_DROP = re.compile(r"[\s\W_]+", re.UNICODE)


def entity_key(name: str) -> str:
    """A name compared loosely: Latin lower-cased, legal suffixes dropped, words joined by one space.

    "Aptevo Therapeutics INC." -> "aptevo therapeutics"; "贵州航天电器股份有限公司" -> "贵州航天电器"; Traditional
    Chinese is folded to Simplified first ("騰訊控股有限公司" -> "腾讯控股").
    """
    text = fold(name).strip()
    if any("\u4e00" <= ch <= "\u9fff" for ch in text):
        text = re.sub(r"[\s（）()]+", "", text)
        return _CN_LEGAL_SUFFIX.sub("", text)
    text = re.sub(r"\bL\.\s?P\.", "LP", text)
    words = [w for w in _KEY_DROP.split(text.lower().replace("&", " and ")) if w]
    while words and words[-1] in _LEGAL_WORDS:
        words.pop()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def is_specific(key: str) -> bool:
    """True when a key can name one entity: not empty, not made of generic words only, long enough."""
    if not key:
        return False
    if any("\u4e00" <= ch <= "\u9fff" for ch in key):
        core = key
        for word in GENERIC_CN:
            core = core.replace(word, "")
        return sum(1 for ch in core if "\u4e00" <= ch <= "\u9fff") >= 2
    words = key.split()
    meaningful = [w for w in words if w not in GENERIC_WORDS and not w.isdigit()]
    return bool(meaningful) and len("".join(meaningful)) >= 3


def short_key(key: str) -> str:
    """The key without trailing "group", "holdings", "bancshares" ("brave bison group" -> "brave bison")."""
    words = key.split()
    while len(words) > 1 and words[-1] in _SOFT_LEGAL:
        words.pop()
    return " ".join(words)


# ----------------------------------------------------------------------------------- extraction
def extract_subject(document: ParsedDocument) -> DocumentSubject:
    """The subject of a parsed document, from its first pages, its metadata title and its file name."""
    texts = first_texts(document)
    full = "\n".join(b.text for b in document.blocks if b.text)
    # the start and the back cover (a glossy report prints its name on the last page)
    body = full if len(full) <= _MAX_BODY else full[:_MAX_BODY] + "\n" + full[-_BACK_COVER:]
    return subject_from_text(
        "\n".join(texts)[:_MAX_TEXT], title=document.title or "", stem=PurePath(document.path).stem, body=body
    )


def first_texts(document: ParsedDocument) -> list[str]:
    """The texts of the first :data:`FIRST_PAGES` pages (or :data:`FIRST_BLOCKS` blocks when there are no pages)."""
    paged = [b for b in document.blocks if b.page is not None]
    if paged:
        first = min(b.page for b in paged if b.page is not None)
        return [b.text for b in document.blocks if b.page is not None and b.page < first + FIRST_PAGES and b.text]
    return [b.text for b in document.blocks[:FIRST_BLOCKS] if b.text]


def subject_from_text(text: str, title: str = "", stem: str = "", body: str = "") -> DocumentSubject:
    """The subject read from a document's first-pages text, metadata title, file stem and whole text (pure)."""
    subject = DocumentSubject()
    printed = text
    if has_traditional(text[:20000]):  # a Traditional report is read in Simplified; its names kept as printed
        text, title = fold(text), fold(title)
    if _has_cjk(text[:4000]):
        _chinese(text, subject)
        if text is not printed:
            subject.entity = printed_form(subject.entity, text, printed) if subject.entity else ""
            subject.short_names = [printed_form(n, text, printed) for n in subject.short_names]
    subject.kind = _kind(text[:6000], title, stem)
    if not subject.entity:
        _english(text, title, subject, body, stem)
    subject.fiscal_year, subject.period = _period(text, title)
    subject.short_names = _short_names(subject, body or text)
    for alias in _aliases(subject, body or text):
        if alias not in subject.short_names and alias not in subject.codes:
            subject.short_names.append(alias)
    subject.former_names = [n for n in former_names(text[:_MAX_TEXT]) if entity_key(n) != entity_key(subject.entity)]
    subject.codes = list(dict.fromkeys([*(canonical_code(c) for c in subject.codes), *hk_codes(text[:_MAX_TEXT])]))
    return subject


def _aliases(subject: DocumentSubject, text: str) -> list[str]:
    """Defined abbreviations: "Kruger Products L.P. (KPLP)", "KP Tissue Inc. (“KPT”)"."""
    out: list[str] = []
    for name in (subject.entity, *subject.other_entities):
        if not name or _any_cjk(name):
            continue
        words = [re.escape(w) for w in re.split(r"\s+", name.strip()) if w]
        pattern = re.compile(r",?\s+".join(words) + r"\s*\(\s*(?:the\s+)?[“\"]?([A-Z][A-Z0-9]{1,5})[”\"]?\s*\)")
        for match in pattern.finditer(text[:_MAX_BODY]):
            alias = match.group(1)
            if alias.lower() not in GENERIC_WORDS and alias not in out:
                out.append(alias)
            if len(out) >= 3:
                return out
    return out


def _any_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _has_cjk(text: str) -> bool:
    return sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff") >= 20


def _chinese(text: str, subject: DocumentSubject) -> None:
    full = _CN_FULL.search(text)
    cover = _CN_COVER.search(text[:3000])
    if full:
        subject.entity, subject.sources["entity"] = full.group(1), "公司简介"
    elif cover:
        subject.entity, subject.sources["entity"] = cover.group(1), "cover"
    else:
        counts = Counter(m.group(1) for m in _CN_COMPANY.finditer(text[:20000]))
        if counts:
            name, n = counts.most_common(1)[0]
            if n >= 2:
                subject.entity, subject.sources["entity"] = name, "frequency"
    for match in _CN_SHORT.finditer(text):
        for name in re.split(r"[、,，]", match.group(1)):
            name = re.sub(r"\s*[AB]$", "", name.strip())
            if len(name) >= 2 and name not in subject.short_names:
                subject.short_names.append(name)
                subject.sources.setdefault("short_names", "公司简介")
    for match in _CN_CODE.finditer(text):
        for code in re.findall(r"\d{6}", match.group(1)):
            if code not in subject.codes:
                subject.codes.append(code)
    english = _CN_EN_NAME.search(text)
    if english:
        subject.english_name = re.sub(r"\s+", " ", english.group(1)).strip(" ,")


def _english(text: str, title: str, subject: DocumentSubject, body: str, stem: str = "") -> None:
    """Registrant line, "Name of entity:", a metadata title naming the company, the most frequent legal name."""
    name, source = _registrant(text), "registrant"
    if not name:
        entity = _NAME_OF_ENTITY.search(text)
        name, source = (_cut_after_legal(entity.group(1).strip()), "cover") if entity else ("", "")
    if not name:
        name, source = _title_name(title), "metadata"
    if not name and body:
        name, source = _registrant(body), "registrant"
    if not name:
        name, source = _prominent_company(text, body or text, f"{title} {stem}"), "frequency"
    if not name:
        cover = _COVER_NAME.search(text[:600])
        if cover and is_specific(entity_key(cover.group(1))):
            name, source = cover.group(1), "cover"
    if not name:
        name, source = _signed_brand(text, body or text), "signature"
    if name:
        subject.entity, subject.sources["entity"] = _tidy(name), source
        if source == "registrant" and not subject.kind:
            subject.kind = KIND_ANNUAL  # an SEC cover page (10-K / 20-F; a 10-Q says so and is matched first)
        if source == "frequency":
            subject.other_entities = _co_entities(name, body or text)
    elif subject.kind:  # a report whose pages name no company: its metadata title may ("Commerzbank Konzern_GB")
        leftover = _title_words(title)
        if leftover:
            subject.short_names.append(leftover)
            subject.sources["short_names"] = "metadata"
            spelled = _spelled_out(leftover, body or text)
            if spelled:  # "MDB" in the file's title, "MongoDB" in its pages
                subject.short_names.insert(0, spelled)
    search_in = text[:20000] + "\n" + body[:200000]
    codes = [m.group(1) for m in _TICKER_EXCHANGE.finditer(search_in)]
    codes += own_tickers(text[:20000] + "\n" + (body or text), _cores(subject.entity))
    subject.codes = [c for c in dict.fromkeys(codes) if c.lower() not in GENERIC_WORDS and c not in ("LLC", "USD")][:4]


#: A letter's sign-off naming the company after the signer's title ("Corey Thomas Chairman & CEO Rapid7").
_SIGN_OFF = re.compile(
    r"(?:Chief\s+Executive\s+Officer|CEO|Chair(?:man|woman)?|President|Managing\s+Director)[,]?\s+"
    r"(?:(?:of|at)\s+)?([A-Z][A-Za-z0-9]*[A-Za-z0-9])\.?\s*$",
    re.M,
)
_BRAND_MIN = 3


def _signed_brand(text: str, body: str) -> str:
    """A one-word company name a letter is signed for, when the report prints it at least :data:`_BRAND_MIN`
    times (a glossy report whose cover name is a logo and whose 10-K pages are not readable text)."""
    for match in _SIGN_OFF.finditer(text):
        name = match.group(1)
        if name.lower() in GENERIC_WORDS or name.lower() in _LEGAL_WORDS or (name.isupper() and len(name) <= 3):
            continue
        if len(re.findall(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", body)) >= _BRAND_MIN:
            return name
    return ""


def _spelled_out(initials: str, text: str) -> str:
    """The capitalised word of ``text`` whose capitals are ``initials`` ("MDB" -> "MongoDB"), printed at least
    twice; "" when none or several."""
    if not re.fullmatch(r"[A-Z]{2,5}", initials):
        return ""
    pattern = re.compile(rf"(?<![A-Za-z0-9])({initials[0]}[a-z]+{''.join(f'[a-z]*{c}' for c in initials[1:])}[a-z]*)"
                         r"(?![A-Za-z0-9])")
    counts = Counter(m.group(1) for m in pattern.finditer(text))
    found = [w for w, n in counts.items() if n >= 2]
    return found[0] if len(found) == 1 else ""


def _cut_after_legal(name: str) -> str:
    """ "BetMakers Technology Group Ltd ABN: 21 164 521 395" -> "BetMakers Technology Group Ltd"."""
    match = re.search(rf"(?:,?\s+)(?:{_LEGAL_EN})(?![A-Za-z])", name)
    return name[: match.end()].strip() if match else name


def _registrant(text: str) -> str:
    match = _REGISTRANT.search(text)
    if not match:
        return ""
    before = text[max(0, match.start() - 300) : match.start()].rstrip().splitlines()
    for line in reversed(before):
        line = line.strip()
        letters = sum(1 for ch in line if ch.isalpha())
        if letters >= 3 and not re.match(r"(?i)^(commission file|\(|for the|or$)", line):
            return line
    return ""


def _title_name(title: str) -> str:
    title = title.strip()
    for pattern in (_TITLE_FORM, _TITLE_DASHED, _TITLE_BEFORE_DASH):
        match = pattern.search(title)
        if match and is_specific(entity_key(match.group(1))):
            return match.group(1)
    return ""


def _title_words(title: str) -> str:
    """A metadata title's leading words when they are no file name or generic ("Commerzbank Konzern_GB 2022")."""
    title = _TITLE_NOISE.sub("", title.strip())
    if not title or re.search(r"\.(?:pdf|docx?)$", title, re.I) or re.match(r"^[\d\W_]", title):
        return ""
    words = re.split(r"[\s_\-–]+", title)
    lead: list[str] = []
    for word in words:
        if re.search(r"\d", word) or word.lower() in GENERIC_WORDS:
            break
        lead.append(word)
    name = " ".join(lead[:3])
    return name if is_specific(entity_key(name)) else ""


def _prominent_company(text: str, body: str, title: str = "") -> str:
    """The legal name most prominent in the first pages ``text`` and repeated through ``body``.

    Why not the legal name printed most often: a glossy report prints its own legal form once, at the back
    ("Brave Bison Group plc"), and calls itself "Brave Bison" on every page, while a subsidiary, a shareholder or
    a page label ("IBC Company", "Wealth Focus Pty Ltd") is printed with its legal form. A candidate is a legal
    name printed anywhere; its weight is how often its name without the legal form is printed as a name,
    three times over on the first pages, ten times over in the metadata title or file name; a phrase printed in
    lower case ("Parent Company") or made of shared words ("Energy Ltd") is no name.
    """
    candidates = _candidates(text, body, title)
    if not candidates:
        return ""
    best = max(candidates, key=lambda k: (candidates[k][0], -candidates[k][2]))
    score, spelled, first_at = candidates[best]
    return spelled if score >= _MIN_PROMINENCE or first_at < 1500 else ""


#: The weight a name needs when its legal name is not printed on the cover: seen three times.
_MIN_PROMINENCE = 3
#: Legal names of the whole report weighed beside those of the first pages: the most frequent (each is a pass over
#: the report's text).
_MAX_CANDIDATES = 40


def _candidates(text: str, body: str, title: str = "") -> dict[str, tuple[int, str, int]]:
    """key -> (prominence, first spelling, first offset in the first pages or after them) of every legal name."""
    counts, spelled, first_at = _company_counts(text)
    more, more_spelled, _ = _company_counts(body)
    out: dict[str, tuple[int, str, int]] = {}
    for key in [*counts, *(k for k, _ in more.most_common(_MAX_CANDIDATES))]:
        core = short_key(key)
        if key in out or not is_specific(core) or is_common_noun(core, body):
            continue
        score = 3 * mentions(core, text) + mentions(core, body) + 10 * _in_title(core, title)
        out[key] = (score, spelled.get(key) or more_spelled[key], first_at.get(key, len(text) + 1))
    return out


def _in_title(core: str, title: str) -> bool:
    """True when the title or file name holds the name's words ("hornigold_2022" for "benjamin hornigold")."""
    words = set(re.split(r"[\W_\d]+", fold(title).lower()))
    return bool(title) and any(len(w) >= 4 and w in words for w in core.split())


def _cores(entity: str) -> list[str]:
    """The keys a ticker's owner is compared by: "kelly partners group holdings", "kelly partners"."""
    key = entity_key(entity) if entity and not _any_cjk(entity) else ""
    return [k for k in dict.fromkeys((key, short_key(key))) if k]


def _company_counts(text: str) -> tuple[Counter[str], dict[str, str], dict[str, int]]:
    """Legal names in ``text``: key -> count, key -> first spelling, key -> first offset."""
    counts: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    first_at: dict[str, int] = {}
    for pattern in (_EN_COMPANY, _EN_COMPANY_CAPS):
        for match in pattern.finditer(text):
            tail = _LEGAL_TAIL.match(text, match.end())  # "… Group Holdings Limited": the whole legal form
            full = _LEADING_PHRASE.sub("", f"{match.group(1)} {match.group(2)}{tail.group(0) if tail else ''}")
            key = entity_key(full)
            if not is_specific(key) or len(key.split()) > 6:
                continue
            counts[key] += 1
            spelled.setdefault(key, full)
            first_at[key] = min(first_at.get(key, match.start()), match.start())
    return counts, spelled, first_at


_LEGAL_TAIL = re.compile(r"[ \t]+(?:Limited|LIMITED|Ltd\.?|LTD\.?|plc|PLC|Plc|Inc\.|INC\.|Inc|INC)(?![A-Za-z])")


def _co_entities(entity: str, text: str) -> list[str]:
    """Other legal names printed about as often as the entity (a report of two issuers: KP Tissue / Kruger).

    Only for an entity found by frequency (a registrant line or 公司简介 is authoritative): names at
    least :data:`_CO_SHARE` as frequent as the entity's, and at least :data:`_CO_MIN` times.
    """
    counts, spelled, _ = _company_counts(text)
    own = entity_key(entity)
    top = max((n for k, n in counts.items() if k == own or own in k or k in own), default=0)
    own_named = max(mentions(short_key(own), text), mentions(short_form(own), text))
    out: list[str] = []
    for key, n in counts.most_common(6):
        if key == own or own in key or key in own or n < max(_CO_MIN, _CO_SHARE * top):
            continue
        if mentions(short_key(key), text) < _CO_SHARE * own_named or is_common_noun(short_key(key), text):
            continue
        if any(key in entity_key(o) or entity_key(o) in key for o in out):
            continue
        out.append(_tidy(spelled[key]))
    return out[:2]


_CO_SHARE = 0.4
_CO_MIN = 5


def _tidy(name: str) -> str:
    name = re.sub(r"\s+", " ", name).strip(" ,;:")
    if name.isupper() and not _has_cjk(name):
        words = [w if len(w) <= 3 and w not in ("INC", "THE", "AND") else w.capitalize() for w in name.split()]
        name = " ".join(w if w not in ("INC", "INC.") else w.capitalize() for w in words)
    return name


def _short_names(subject: DocumentSubject, body: str = "") -> list[str]:
    names = list(subject.short_names)
    entity = subject.entity
    if entity and _any_cjk(entity):
        core = _CN_LEGAL_SUFFIX.sub("", re.sub(r"[（）()]", "", entity))
        names.append(core)
        for region in CN_REGIONS:
            if core.startswith(region) and len(core) - len(region) >= 2:
                names.append(core[len(region) :])
                break
        # A 股票简称 led by a province's one-character name: "苏常柴" is also called "常柴".
        names.extend(n[1:] for n in subject.short_names if 3 <= len(n) <= 4 and n[0] in "苏沪京津渝粤浙闽")
    elif entity:
        key = entity_key(entity)
        for candidate in (entity_key(entity), short_key(key)):
            if is_specific(candidate):
                names.append(candidate if candidate != key else _strip_legal(entity))
        names.extend(_called(key, body))
    if subject.english_name:
        names.append(_strip_legal(subject.english_name))
    cleaned = [n for n in dict.fromkeys(x.strip() for x in names) if n and n != entity and is_specific(entity_key(n))]
    return cleaned[:8]


def _called(key: str, body: str) -> list[str]:
    """The name's first two words as the report prints them ("Swiss Water" of "Swiss Water Decaffeinated Coffee
    Inc."), when the report calls the company so on its own at least three times (``short_form``)."""
    short = short_form(key)
    if not short or mentions(short, body) < mentions(key, body) + _MIN_PROMINENCE:
        return []
    found = re.search(r"(?<![A-Za-z0-9])" + r"\s+".join(w.capitalize() for w in short.split()) + r"(?![A-Za-z0-9])",
                      body)
    return [found.group(0) if found else short]


def _strip_legal(name: str) -> str:
    """ "Aptevo Therapeutics Inc." -> "Aptevo Therapeutics"."""
    out = re.sub(rf"(?:,\s*|\s+)(?:{_LEGAL_EN})\s*$", "", name.strip(), flags=re.I)
    return out.strip(" ,") or name


def _kind(text: str, title: str, stem: str) -> str:
    """The kind named first (a 年度报告 lists the 半年度报告 it refers to further down)."""
    for source in (title, stem, text):
        found = [(m.start(), kind) for kind, pattern in _KINDS if (m := pattern.search(source))]
        if found:
            return min(found)[1]
    return ""


def _period(text: str, title: str) -> tuple[int | None, str]:
    head = text[:12000]
    match = _CN_YEAR.search(head[:3000]) if _has_cjk(head[:3000]) else None
    if match:
        return int(match.group(1).translate(_CN_DIGITS)), _squash(match.group(0))
    # the latest year the first pages say a period ended or a report is for: a letter to shareholders before
    # the cover compares with "the year ended December 31, 2021" in a 2022 report
    found = [*_FISCAL_YEAR_EN.finditer(head)]
    for source in (title, head[:3000]):
        found.extend(_YEAR_NEAR_REPORT.finditer(source))
    if found:
        latest = max(found, key=lambda m: int(m.group(1) or m.group(2)))
        return int(latest.group(1) or latest.group(2)), _squash(latest.group(0))
    years = Counter(int(y) for y in _YEAR.findall(head[:4000]))
    if years:
        year, count = years.most_common(1)[0]
        if count >= 2:
            return year, str(year)
    return None, ""


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def subject_summary(subjects: Sequence[DocumentSubject]) -> str:
    """ "A; B; C" — the subjects a scope used, for notices."""
    return "; ".join(s.describe() for s in subjects if not s.is_empty)


__all__ = [
    "FIRST_PAGES",
    "GENERIC_WORDS",
    "KIND_ANNUAL",
    "KIND_FINANCIAL",
    "KIND_QUARTERLY",
    "KIND_SEMIANNUAL",
    "DocumentSubject",
    "entity_key",
    "extract_subject",
    "first_texts",
    "is_specific",
    "short_key",
    "subject_from_text",
    "subject_summary",
]
