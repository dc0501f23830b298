"""Named facts printed in sentences and signatures rather than key-value rows: the 利润分配预案 of 重要提示, the
"公司负责人…、主管会计工作负责人…及会计机构负责人…声明" sentence, "董事长：陈振宇" sign-offs, an auditor's report's
firm and engagement partner, a paid or declared dividend, and names signed above a title ("Dino Bianco /
Chief Executive Officer", "/s/ Tim Cook | Chief Executive Officer").

Why patterns over whole pages: these sentences break across PDF lines ("会计机构负责人(会计主管\\n人员)蒋鹤声明"), so a
page's text is read with the breaks between Chinese characters closed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence

from officeqa.domain import Block, BlockType
from retrieval.named_facts.facts import NamedFact, looks_like_person

__all__ = ["prose_facts"]

_CN = r"[\u4e00-\u9fff·]"
_HEADS = re.compile(
    rf"公司负责人\s*({_CN}{{2,6}}?)\s*[、,，]\s*主管会计工作负责人\s*({_CN}{{2,6}}?)\s*及\s*会计机构负责人\s*"
    rf"[（(]\s*会计主管人员\s*[)）]\s*({_CN}{{2,6}}?)\s*声明"
)
_PLAN = re.compile(
    r"((?:利润分配(?:及资本公积金转增股本)?(?:预案|方案)|分红(?:预案|方案)|权益分派方案)(?:为)?[：:]\s*"
    r"([^。]{6,400}?)(?:。|$))"
)
_AUDITED_CN = re.compile(
    rf"({_CN}{{2,30}}?会计师事务所(?:[（(][^)）]{{2,12}}[)）])?)\s*(?:为本公司|为公司|对本公司|对公司)[^。]{{0,40}}?出具了?"
    rf"[^。]{{0,30}}?审计报告"
)
_SIGNED_CN = re.compile(rf"(董事长|法定代表人|总经理|总裁)\s*[：:]\s*({_CN}{{2,4}})(?![\u4e00-\u9fff])")
_PARTNER = re.compile(
    r"engagement partner on the audit resulting in this independent auditor['’]?s['’]? report is\s+"
    r"([A-Z][A-Za-z.'’\- ]{2,60}?)\s*\.", re.IGNORECASE,
)
_DIVIDEND = re.compile(
    r"\b(?:paid|declared|approved)\s+(?:a|an|its)?\s*(?:regular\s+)?(?:quarterly|annual|final|interim|special|"
    r"monthly)?\s*(?:cash\s+)?dividends?\s+of\s+(?:C|US|CA|A)?\$\s?\d[\d.,]*", re.IGNORECASE,
)
_FIRM = re.compile(r"^(?:/s/\s*)?([A-Z][A-Za-z&.,'’ \-]{2,60}?\s(?:LLP|LLC|L\.L\.P\.|AG|GmbH|S\.A\.|s\.r\.l\.))\.?$")
_SIGNED_FIRM = re.compile(r"/s/\s*([A-Z][A-Za-z&.,'’ \-]{2,60}?\s(?:LLP|LLC|L\.L\.P\.|AG|GmbH|S\.A\.))(?![A-Za-z])")
_BEHALF_PREFIX = re.compile(r"^(?:for and )?on behalf of\s+", re.IGNORECASE)
_ACCOUNTANTS = re.compile(r"chartered\s+(?:professional\s+)?accountants|certified\s+public\s+accountants|"
                          r"registered\s+public\s+accounting\s+firm|licensed\s+public\s+accountants", re.IGNORECASE)
_ROLES = (("ceo", re.compile(r"chief\s+executive\s+officer|principal\s+executive\s+officer", re.IGNORECASE)),
          ("cfo", re.compile(r"chief\s+financial\s+officer|principal\s+financial\s+officer", re.IGNORECASE)),
          ("chairman", re.compile(r"^chair(?:man|person)?\s+of\s+the\s+board", re.IGNORECASE)))
_PLACES = (
    ("registered_address", re.compile(r"\b(?:[Ii]ts|[Tt]he [Cc]ompany['’]s|[Oo]ur) registered office is "
                                      r"(?:located |situated )?(?:at )?(\d[^.;]{5,120}?)(?:\.\s|\.$|;)")),
    ("office_address", re.compile(r"\b(?:[Oo]ur|[Ii]ts|[Tt]he [Cc]ompany['’]s) (?:principal executive|head) offices? "
                                  r"(?:is|are) (?:located )?(?:at |in )?([^.;]{5,120}?)(?:\.\s|\.$|;)")),
    ("incorporation", re.compile(r"\bincorporated (?:under the laws of |in )the (?:State|Commonwealth) of ([A-Z][a-z]+"
                                 r"(?: [A-Z][a-z]+)?)")),
)
_SIGNED_PREFIX = re.compile(r"^(?:by\s*:\s*)?(?:/s/\s*)?(?:name\s*:\s*)?", re.IGNORECASE)
_NAME_THEN_TITLE = re.compile(
    r"^((?:[A-Z][A-Za-z'’\-]+|[A-Z]\.)(?:\s+(?:[A-Z][A-Za-z'’\-]+|[A-Z]\.)){1,3}?)\s*,?\s+"
    r"((?:Interim\s+|Co-|Senior\s+|Executive\s+|Vice\s+)*(?:President|Chief|Chair|Chairman|Director|Principal|Treasurer)"
    r".{0,80})$"
)
_SIGNED_FIELD = {"董事长": "chairman", "法定代表人": "legal_rep", "总经理": "ceo", "总裁": "ceo"}


def _page_texts(blocks: Sequence[Block]) -> list[tuple[int | None, list[str]]]:
    """Each page's text blocks as printed (values are quoted, so not normalised)."""
    pages: dict[int | None, list[str]] = {}
    for block in blocks:
        if block.type != BlockType.TABLE and block.text:
            pages.setdefault(block.page, []).append(block.text)
    return list(pages.items())


def _closed(text: str) -> str:
    """Line breaks (and the spaces PDFs put between Chinese characters) closed where both sides are Chinese."""
    text = re.sub(r"(?<=[\u4e00-\u9fff（(）)、，：])\s*\n\s*(?=[\u4e00-\u9fff（(）)、，：\d])", "", text)
    return re.sub(r"(?<=[\u4e00-\u9fff])[ \t]+(?=[\u4e00-\u9fff])", "", text)


def prose_facts(blocks: Sequence[Block]) -> list[NamedFact]:
    """Every sentence or signature fact of the document, in page order."""
    found: list[NamedFact] = []
    for page, texts in _page_texts(blocks):
        text = "\n".join(texts)
        found.extend(_chinese(_closed(text), page))
        for block_text in texts:  # an English sentence stays inside its paragraph
            found.extend(_english(re.sub(r"\s+", " ", block_text), page))
        found.extend(_signatures(unicodedata.normalize("NFKC", text), page))
    return found


def _chinese(text: str, page: int | None) -> Iterator[NamedFact]:
    for match in _HEADS.finditer(text):
        quote = match.group(0)
        for field, value in zip(("company_head", "cfo", "accounting_head"), match.groups(), strict=True):
            yield NamedFact(field, value, field, page, quote, "sentence")
    for match in _PLAN.finditer(text):
        yield NamedFact("dividend_plan", match.group(2).strip(), match.group(1), page, match.group(1), "sentence")
    for match in _AUDITED_CN.finditer(text):
        firm = re.split(r"聘请|续聘|聘任|改聘|委托|由", match.group(1))[-1]  # "公司续聘天健…" -> "天健…"
        yield NamedFact("auditor", firm, "审计报告", page, match.group(0), "sentence")
    for match in _SIGNED_CN.finditer(text):
        yield NamedFact(_SIGNED_FIELD[match.group(1)], match.group(2), match.group(1), page, match.group(0),
                        "signature")


def _english(text: str, page: int | None) -> Iterator[NamedFact]:
    for field, pattern in _PLACES:  # "Its registered office is 1 Arbrook Lane, …", "incorporated in the State of …"
        for match in pattern.finditer(text):
            yield NamedFact(field, match.group(1).strip(" ,"), field, page, _sentence_around(text, match.start(),
                                                                                             match.end()), "sentence")
    for match in _SIGNED_FIRM.finditer(text):  # "/s/ Ernst & Young LLP" inside a paragraph
        yield NamedFact("auditor", match.group(1), "auditor", page, _sentence_around(text, match.start(), match.end()),
                        "signature")
    lowered = text.lower()
    if "dividend" not in lowered and "engagement partner" not in lowered:
        return
    for match in _PARTNER.finditer(text):
        name = match.group(1).strip()
        if looks_like_person(name):
            yield NamedFact("signing_accountants", name, "engagement partner", page, match.group(0), "sentence")
    for match in _DIVIDEND.finditer(text):
        sentence = _sentence_around(text, match.start(), match.end())
        yield NamedFact("dividend_plan", sentence, "dividend", page, sentence, "sentence")


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence holding text[start:end] (full stops followed by a space end sentences; "0.18" does not)."""
    before = text.rfind(". ", 0, start)
    after = text.find(". ", end)
    return text[before + 2 if before >= 0 else 0:after + 1 if after >= 0 else len(text)].strip()


def _signatures(text: str, page: int | None) -> Iterator[NamedFact]:
    """A firm above "Chartered Professional Accountants"; a person above (or beside) an officer's title."""
    lines = [re.sub(r"\s+", " ", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    for n, line in enumerate(lines):
        firm = _FIRM.match(line)
        if firm and (line.startswith("/s/") or any(_ACCOUNTANTS.search(x) for x in lines[n + 1:n + 3])):
            name = _BEHALF_PREFIX.sub("", firm.group(1)).strip(" ,")  # "For and on behalf of X LLP" -> "X LLP"
            yield NamedFact("auditor", name, "auditor", page, " ".join(lines[n:n + 2]),
                            "signature")
        yield from _signed_person(line, lines[n + 1] if n + 1 < len(lines) else "", page)


def _signed_person(line: str, below: str, page: int | None) -> Iterator[NamedFact]:
    """"Dino Bianco" over "Chief Executive Officer", "Name: Rohit Gupta" over "Title: President and CEO", or
    "/s/ Rohit Gupta President, Chief Executive Officer" on one line."""
    name = _SIGNED_PREFIX.sub("", line).strip(" ,")
    title = re.sub(r"^title\s*:\s*", "", below, flags=re.IGNORECASE)
    beside = _NAME_THEN_TITLE.match(name)
    if not looks_like_person(name) and beside and looks_like_person(beside.group(1)):
        name, title = beside.group(1), beside.group(2)
    elif not looks_like_person(name) or below.startswith(("/s/", "Name:", "By:")) or len(below) > 90:
        return
    for field, role in _ROLES:
        if role.search(title):
            yield NamedFact(field, name, title, page, f"{name}, {title}", "signature")
