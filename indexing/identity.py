"""A company's identity beyond its names: stock codes of every listing, former names, and the distinctive part
of a name — the parts a question may name a company by.

Why apart from ``indexing.subjects``: the subject reader finds the names a report prints; this module says
how two names or codes are compared, the same at index time and at question time:

* text is folded (NFKC, Traditional -> Simplified by OpenCC) before any comparison, so "騰訊控股" and
  "腾讯控股" are one name;
* a name decides only by its distinctive part — what is left after the legal form, a leading place and the
  words many companies share ("科技", "生物", "集团", "Holdings", "Therapeutics"; ``company_generic.txt``).
  "华熙生物" and "贝达生物" share "生物", which names neither;
* stock codes are compared in one canonical form: six digits for Shanghai/Shenzhen A and B shares
  ("002025", "002025.SZ"), five digits and ".HK" for Hong Kong ("700", "0700.HK", "00700.HK", "股份代號：00700"),
  capital letters for a ticker ("APVO", "NASDAQ: APVO").

Pure functions over text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from officeqa.chinese import to_simplified
from officeqa.words import word_list

__all__ = [
    "CN_REGIONS",
    "canonical_code",
    "distinctive",
    "fold",
    "former_names",
    "hk_codes",
    "printed_form",
    "question_codes",
    "same_distinctive",
]

_HAN = re.compile(r"[\u4e00-\u9fff]")


def fold(text: str) -> str:
    """The form every company-name comparison uses: NFKC (full-width to ASCII) and Simplified Chinese."""
    return to_simplified(unicodedata.normalize("NFKC", text))


def printed_form(name: str, folded_text: str, text: str) -> str:
    """``name`` (found in ``folded_text``) as ``text`` prints it, when folding kept every offset; else ``name``."""
    if len(folded_text) != len(text):
        return name
    at = folded_text.find(name)
    return text[at : at + len(name)] if at >= 0 else name


# ----------------------------------------------------------------------------------- distinctive part
@cache
def _generic() -> tuple[tuple[str, ...], frozenset[str]]:
    words = word_list("company_generic")
    chinese = tuple(sorted((w for w in words if _HAN.search(w)), key=len, reverse=True))
    latin = frozenset(w for w in words if not _HAN.search(w))
    return chinese, latin


#: Places a Chinese company name may lead with ("贵州航天电器" is also called "航天电器").
CN_REGIONS = (
    "北京",
    "天津",
    "上海",
    "重庆",
    "河北",
    "山西",
    "辽宁",
    "吉林",
    "黑龙江",
    "江苏",
    "浙江",
    "安徽",
    "福建",
    "江西",
    "山东",
    "河南",
    "湖北",
    "湖南",
    "广东",
    "海南",
    "四川",
    "贵州",
    "云南",
    "陕西",
    "甘肃",
    "青海",
    "台湾",
    "内蒙古",
    "广西",
    "西藏",
    "宁夏",
    "新疆",
    "香港",
    "澳门",
    "深圳",
    "广州",
    "杭州",
    "南京",
    "苏州",
    "常州",
    "无锡",
    "宁波",
    "厦门",
    "青岛",
    "大连",
    "武汉",
    "成都",
    "西安",
    "中国",
)


@cache
def _regions() -> tuple[str, ...]:
    return tuple(sorted(CN_REGIONS, key=len, reverse=True))


def distinctive(name: str) -> str:
    """What names this company and no other: the name folded, without legal form, a leading place (Chinese) and
    generic company words. "贵州航天电器股份有限公司" -> "航天", "華熙生物科技" -> "华熙", "Aptevo Therapeutics Inc."
    -> "aptevo"; "" when nothing distinctive is left ("生物科技", "Technology Holdings")."""
    text = fold(name).strip()
    chinese, latin = _generic()
    if _HAN.search(text):
        core = re.sub(r"[\s（）()·・]+", "", text)
        for region in _regions():
            if core.startswith(region) and len(core) > len(region):
                core = core[len(region) :]
                break
        for word in chinese:
            core = core.replace(word, " ")
        return "".join(core.split())
    words = [w for w in re.split(r"[\W_]+", text.lower().replace("&", " and ")) if w]
    return " ".join(w for w in words if w not in latin)


def same_distinctive(a: str, b: str) -> bool:
    """True when two names share their distinctive part (one holds the other's); never on generic words alone."""
    da, db = distinctive(a), distinctive(b)
    if not da or not db:
        return False
    if _HAN.search(da) or _HAN.search(db):
        return da in db or db in da
    return f" {da} " in f" {db} " or f" {db} " in f" {da} "


# ----------------------------------------------------------------------------------- codes
_A_SHARE = re.compile(r"^(\d{6})(?:\.(?:SZ|SH|SS|BJ))?$", re.I)
_HK = re.compile(r"^(?:HK)?(\d{1,5})(?:\.HK)?$", re.I)


def canonical_code(code: str) -> str:
    """A stock code in the one form compared: "002025.SZ" -> "002025"; "0700.HK", "HK700" -> "00700.HK"; a
    ticker upper-cased ("apvo" -> "APVO")."""
    code = fold(code).strip().upper().replace(" ", "")
    match = _A_SHARE.match(code)
    if match:
        return match.group(1)
    if code.endswith(".HK") or code.startswith("HK"):
        hk = _HK.match(code)
        if hk:
            return f"{int(hk.group(1)):05d}.HK"
    return code


#: A Hong Kong listing as a report prints it: "股份代號：00700", "(Stock Code: 700)", "H股股票代码 01171".
_HK_LABEL = re.compile(
    r"(?:股份代号|股票代号|证券代号|H\s*股(?:股票)?代码|H\s*股代号|stock\s+code|stock\s+short\s+code)\s*[:：]?\s*"
    r"(\d{1,5})(?!\d)",
    re.I,
)
_HK_SUFFIXED = re.compile(r"(?<![\d.])(\d{4,5})\.HK(?![A-Za-z])", re.I)


def hk_codes(text: str) -> list[str]:
    """Hong Kong stock codes a report's first pages print, canonical ("00700.HK"), first seen first."""
    folded = fold(text)
    found = [m.group(1) for m in _HK_LABEL.finditer(folded)] + [m.group(1) for m in _HK_SUFFIXED.finditer(folded)]
    return list(dict.fromkeys(f"{int(c):05d}.HK" for c in found if int(c) > 0))


#: Codes in a question: "002025", "002025.SZ", "00700.HK", "0700.HK", "HK00700", "港股00700", "股票代码 600519".
_Q_SIX = re.compile(r"(?<![\d.])(\d{6})(?:\.(?:SZ|SH|SS|BJ))?(?!\d)", re.I)
_Q_HK = re.compile(
    r"(?<![\dA-Za-z.])(?:HK\s*|港股\s*)?(\d{3,5})\.HK(?![A-Za-z])|(?:HK|港股|H股)\s*(\d{3,5})(?!\d)", re.I
)
_Q_FIVE = re.compile(r"(?<![\d.])(0\d{4})(?![\d.])")


def question_codes(question: str) -> set[str]:
    """The stock codes a question may name, canonical; a five-digit number led by 0 is taken as Hong Kong's."""
    text = fold(question)
    codes = {m.group(1) for m in _Q_SIX.finditer(text)}
    for match in _Q_HK.finditer(text):
        codes.add(f"{int(match.group(1) or match.group(2)):05d}.HK")
    codes.update(f"{m.group(1)}.HK" for m in _Q_FIVE.finditer(text))
    return codes


# ----------------------------------------------------------------------------------- former names
_FORMER_CN = re.compile(
    r"(?:公司)?(?:曾用名|原名称|原名|前称)\s*[:：|]?\s*([\u4e00-\u9fff（）()]{4,40}?(?:公司|集团|银行))"
)
_FORMER_EN = re.compile(
    r"\(?\s*formerly(?:\s+known\s+as)?\s+[“\"]?((?:[A-Z][A-Za-z0-9&'’.\-]*[ \t]*){1,6}"
    r"(?:Inc\.?|Corporation|Corp\.?|Limited|Ltd\.?|plc|Holdings|Group|Company)?)",
)


def former_names(text: str) -> list[str]:
    """Names the company went by before ("公司曾用名：…", "(formerly Acme Widgets Inc.)"), folded, at most three."""
    folded = fold(text)
    found = [m.group(1) for m in _FORMER_CN.finditer(folded)]
    found += [m.group(1).strip(" ,.") for m in _FORMER_EN.finditer(folded)]
    return [n for n in dict.fromkeys(found) if n and n not in ("无", "不适用")][:3]


# ----------------------------------------------------------------------------------- prominence and tickers
def mentions(phrase: str, text: str) -> int:
    """How often ``text`` prints ``phrase`` (a key: lower-case words) as a name: whole words, each capitalised
    ("Brave Bison", "BRAVE BISON"), any punctuation between the words ("B.C. Ventures" for "b c ventures")."""
    words = [w for w in phrase.split() if w]
    if not words:
        return 0
    parts = [f"{re.escape(w[0].upper())}(?i:{re.escape(w[1:])})" for w in words]
    return len(re.findall(r"(?<![A-Za-z0-9])" + r"[\W_]{1,3}".join(parts) + r"(?![A-Za-z0-9])", text))


def is_common_noun(phrase: str, text: str) -> bool:
    """True when ``text`` prints ``phrase`` in lower case more often than as a name: "Parent Company", "Emerging
    Growth Company" are phrases a report capitalises in headings, not a company's name (a name stays capitalised)."""
    if not phrase or not distinctive(phrase):
        return True  # "Energy Ltd", "Companies Limited": nothing but words many names share
    # a web or e-mail address prints a name in lower case ("www.starvest.co.uk"): not counted
    lower = len(re.findall(r"(?<![A-Za-z0-9.@/])" + r"\s+".join(map(re.escape, phrase.split())) + r"(?![A-Za-z0-9@])",
                           text))
    return lower > (0 if " " not in phrase else mentions(phrase, text) // 2)


def short_form(key: str) -> str:
    """The first two words of a long name key when both are distinctive ("swiss water" of "swiss water
    decaffeinated coffee"): what a report and its readers call the company; "" for a shorter name or a generic
    word ("brave bison" is already the whole name; "global water resources" gives nothing)."""
    words = key.split()
    _, latin = _generic()
    if len(words) < 3 or _HAN.search(key) or any(w in latin or len(w) < 2 for w in words[:2]):
        return ""
    return " ".join(words[:2])


_EXCHANGES = r"ASX|AIM|LSE|TSXV|TSX-V|TSX|NYSE(?:\s+American)?|NASDAQ|Nasdaq|NZX|JSE|OTCQX|OTCQB|CSE"
#: "ASX: KPG", "TSX: SWP", "Nasdaq: INMB", "AIM:GGP", "(ASX code: RFT)".
_TICKER_LABELLED = re.compile(
    rf"\b(?:{_EXCHANGES})\s*(?:code|Code|CODE|ticker|Ticker)?\s*[:：]\s*([A-Z][A-Z0-9]{{1,4}})(?![A-Za-z0-9])"
)
#: "KPG.ASX", "SWP.TO".
_TICKER_SUFFIXED = re.compile(r"(?<![A-Za-z0-9.])([A-Z]{2,5})\.(?:ASX|AX|TO|V)(?![A-Za-z])")
#: "ticker symbol “MNSB”", "under the symbol “WMK.”", "Securities Exchange code: EXR", "(AIM) Ticker: SVE",
#: "(Home Exchange: Perth) Code: SMN".
_TICKER_WORDED = re.compile(
    r"(?:(?:ticker|trading)\s+symbol|under\s+the\s+(?:ticker\s+)?symbol|(?:Exchange|Market|AIM|ASX|TSX)\)?\s+"
    r"(?:code|Code|Ticker|ticker)|Exchange[^\n()]{0,60}\)\s*(?:Code|code))\s*[:：]?\s*[“\"]?([A-Z][A-Z0-9]{1,4})"
    r"(?![A-Za-z0-9])"
)
#: The name a parenthesised ticker follows: "Sandfire Resources Limited (ASX:SFR)", "Alector (NASDAQ: ALEC)".
_NAME_WORD = r"(?:[A-Z][\w’'&.\-]*|plc|ltd\.?|limited|inc\.?)"
_NAME_BEFORE_PAREN = re.compile(rf"((?:{_NAME_WORD}[ \t\n|]+){{0,6}}{_NAME_WORD})[’']?s?\s*\(\s*$")
_MARKET_WORDS = re.compile(r"\b(?:Exchange|Market|Stock|Securities|ASX|AIM|TSX|NYSE|Nasdaq|NASDAQ)\b")


def own_tickers(text: str, cores: list[str]) -> list[str]:
    """The tickers ``text`` gives the company whose name keys are ``cores`` ("kelly partners"), first seen first.

    Why the owner is checked: a report prints other companies' tickers beside their names — an investee
    ("Greatland Gold plc (AIM:GGP)"), a director's other board ("Galilee Energy Ltd (ASX: GLL)"), a competitor
    ("Alector (NASDAQ: ALEC)"). A ticker in parentheses after a name is that name's: the company's own when the
    name is the company's or an exchange's ("Australian Securities Exchange (ASX code: KPG)"); a labelled ticker
    not after a name ("TSX: SWP", "Ticker: SVE") is the report's own.
    """
    found: list[tuple[int, str]] = []
    for pattern in (_TICKER_LABELLED, _TICKER_SUFFIXED, _TICKER_WORDED):
        for match in pattern.finditer(text):
            if _ticker_is_own(text, match.start(), cores):
                found.append((match.start(), match.group(1)))
    return list(dict.fromkeys(code for _, code in sorted(found)))


def _ticker_is_own(text: str, start: int, cores: list[str]) -> bool:
    before = text[max(0, start - 120) : start]
    named = _NAME_BEFORE_PAREN.search(before)
    if named is None:
        return True
    name = named.group(1)
    if _MARKET_WORDS.search(name):
        return True
    folded = " " + " ".join(re.split(r"[\W_]+", fold(name).lower())) + " "
    return any(core and f" {core} " in folded for core in cores)
