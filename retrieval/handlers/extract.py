"""Extract phones, e-mails, amounts, dates, Chinese ID numbers and URLs from parsed documents.

Each finder is a pure function ``text -> [(raw, normalized, kind)]``; :func:`run_extract`
walks every cited text unit, de-duplicates by the normalised value and keeps every
place a value was found. Text is converted to half-width first (same length, so the
raw slice is still what the document says). All patterns are bounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal

from officeqa.domain import ParsedDocument
from retrieval.handlers.numbers import format_decimal
from retrieval.handlers.results import HandlerItem, HandlerResult
from retrieval.handlers.units import text_units
from retrieval.rules.normalize import to_half_width

Found = tuple[str, object, str]
Finder = Callable[[str], list[Found]]
MAX_CITATIONS_PER_ITEM = 20

# ---------------------------------------------------------------- phones
_PHONE = re.compile(
    r"(?<![\d+])(?:"
    r"(?P<intl>\+(?!86)\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{1,4}(?:[ \-]?\d{2,4}){1,4})"
    r"|(?P<mobile>(?:(?:\+|00)?86[ \-]?)?1[3-9]\d[ \-]?\d{4}[ \-]?\d{4})"
    r"|(?P<service>[48]00[ \-]?\d{3}[ \-]?\d{4})"
    r"|(?P<landline>(?:(?:\+|00)86[ \-]?0?\d{2,3}|\(0\d{2,3}\)|0\d{2,3})[ \-]?[2-9]\d{6,7}"
    r"(?:[ \-]?(?:转|ext\.?|x)[ \-]?\d{1,6})?)"
    r")(?!\d)",
    re.I,
)


def find_phones(text: str) -> list[Found]:
    """Mainland mobiles (+86/86 optional), landlines with area code, 400/800 numbers, international +CC numbers."""
    out: list[Found] = []
    for m in _PHONE.finditer(to_half_width(text)):
        raw = m.group(0)
        kind = m.lastgroup or "phone"
        digits = re.sub(r"[^\d+]", "", raw)
        if kind == "mobile":
            normalized = digits[-11:]
        elif kind == "landline":
            ext = re.search(r"(?:转|ext\.?|x)[ \-]?(\d{1,6})$", raw, re.I)
            body = raw[: ext.start()] if ext else raw
            parts = re.sub(r"^(?:\+|00)86[ \-]?", "", body)
            area = re.match(r"\(?(0?\d{2,3})\)?[ \-]?", parts)
            area_code = area.group(1) if area else ""
            area_code = area_code if area_code.startswith("0") else "0" + area_code
            number = re.sub(r"\D", "", parts[area.end():] if area else parts)
            normalized = f"{area_code}-{number}" + (f"-{ext.group(1)}" if ext else "")
        elif kind == "service":
            normalized = digits
        else:
            normalized = digits
        out.append((raw, normalized, kind))
    return out


# ---------------------------------------------------------------- e-mails and URLs
_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}"
    r"(?![A-Za-z0-9-])"
)
_URL = re.compile(r"(?:https?://|www\.)[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]{2,2000}", re.I)


def find_emails(text: str) -> list[Found]:
    return [(m.group(0), m.group(0).lower(), "email") for m in _EMAIL.finditer(to_half_width(text))]


def find_urls(text: str) -> list[Found]:
    out: list[Found] = []
    for m in _URL.finditer(to_half_width(text)):
        raw = m.group(0).rstrip(".,;:!?'\")]")
        if raw.count("(") < raw.count(")"):
            raw = raw.rstrip(")")
        normalized = raw if raw.lower().startswith("http") else "http://" + raw
        out.append((raw, normalized.rstrip("/"), "url"))
    return out


# ---------------------------------------------------------------- amounts
_NUM = r"\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,4})?|\d{1,15}(?:\.\d{1,4})?"
_AMOUNT = re.compile(
    r"(?:(?P<pcur>us\$|hk\$|¥|\$|€|usd|rmb|cny|eur|hkd|人民币|美元)\s{0,2}(?P<pnum>" + _NUM + r")"
    r"(?:\s{0,2}(?P<punit>亿元|万元|千元|元|亿|万|千|美元))?)"
    r"|(?:(?<!\d)(?<!\d[.,])(?P<snum>" + _NUM + r")\s{0,2}"
    r"(?P<sunit>亿元|万元|千元|元|美元|块钱|块|港元|欧元|rmb|cny|usd|dollars?))",
    re.I,
)
_UNIT_SCALE = {"亿": Decimal(100_000_000), "万": Decimal(10_000), "千": Decimal(1_000)}
_CUR = {"¥": "CNY", "rmb": "CNY", "cny": "CNY", "人民币": "CNY", "元": "CNY", "块": "CNY", "块钱": "CNY",
        "$": "USD", "us$": "USD", "usd": "USD", "美元": "USD", "dollar": "USD", "dollars": "USD",
        "hk$": "HKD", "hkd": "HKD", "港元": "HKD", "€": "EUR", "eur": "EUR", "欧元": "EUR"}
_CN_UPPER = re.compile(
    r"(?:人民币)?(?P<cn>[壹贰叁肆伍陆柒捌玖拾][零壹贰叁肆伍陆柒捌玖拾佰仟万亿]{0,23})(?:元|圆)"
    r"(?P<jiao>[零壹贰叁肆伍陆柒捌玖]角)?(?P<fen>[零壹贰叁肆伍陆柒捌玖]分)?整?"
)
_CN_DIGIT = {c: i for i, c in enumerate("零壹贰叁肆伍陆柒捌玖")}
_CN_SMALL = {"拾": 10, "佰": 100, "仟": 1000}


def _cn_upper_value(text: str) -> int | None:
    """Financial capital numerals ("壹拾贰万伍仟") as an integer."""
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        elif ch in _CN_SMALL:
            section += (digit or 1) * _CN_SMALL[ch]
            digit = 0
        elif ch == "万":
            total += (section + digit) * 10_000
            section = digit = 0
        elif ch == "亿":
            total = (total + section + digit) * 100_000_000
            section = digit = 0
        else:
            return None
    return total + section + digit


def find_amounts(text: str) -> list[Found]:
    """Amounts with a currency: normalised to {"value": "120000.00", "currency": "CNY", "unit": "万元"}."""
    half = to_half_width(text)
    out: list[Found] = []
    for m in _AMOUNT.finditer(half):
        num = m.group("pnum") or m.group("snum")
        unit = (m.group("punit") or m.group("sunit") or "").lower()
        cur_word = (m.group("pcur") or "").lower()
        value = Decimal(num.replace(",", ""))
        if unit and unit[0] in _UNIT_SCALE:
            value *= _UNIT_SCALE[unit[0]]
        currency = _CUR.get(cur_word) or _CUR.get(unit.rstrip("元") or unit) or _CUR.get(unit[-1:] if unit else "")
        currency = currency or "CNY"
        normalized = {"value": format_decimal(value, strip=True), "currency": currency, "unit": unit or cur_word}
        out.append((m.group(0).strip(), normalized, "amount"))
    for m in _CN_UPPER.finditer(half):
        integer = _cn_upper_value(m.group("cn"))
        if integer is None:
            continue
        value = Decimal(integer)
        if m.group("jiao"):
            value += Decimal(_CN_DIGIT[m.group("jiao")[0]]) / 10
        if m.group("fen"):
            value += Decimal(_CN_DIGIT[m.group("fen")[0]]) / 100
        normalized = {"value": format_decimal(value, strip=True), "currency": "CNY", "unit": "元(大写)"}
        out.append((m.group(0), normalized, "amount"))
    return out


# ---------------------------------------------------------------- dates
_CN_NUMERAL = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "o": 0}
_DATE = re.compile(
    r"(?<!\d)(?P<y1>\d{4})\s{0,1}[-/.]\s{0,1}(?P<m1>\d{1,2})\s{0,1}[-/.]\s{0,1}(?P<d1>\d{1,2})(?!\d)"
    r"|(?<!\d)(?P<y2>\d{4})\s{0,2}年\s{0,2}(?P<m2>\d{1,2})\s{0,2}月(?:\s{0,2}(?P<d2>\d{1,2})\s{0,2}[日号])?"
    r"|(?<!\d)(?P<m3>\d{1,2})/(?P<d3>\d{1,2})/(?P<y3>\d{4})(?!\d)"
    r"|(?P<y4>[〇零一二三四五六七八九]{4})年(?P<m4>[一二三四五六七八九十]{1,2})月(?:(?P<d4>[一二三四五六七八九十]{1,3})[日号])?"
)


def _cn_small_number(text: str) -> int:
    """"十二" -> 12, "二十五" -> 25, "三十一" -> 31."""
    if "十" not in text:
        return _CN_NUMERAL[text]
    tens, _, ones = text.partition("十")
    return (_CN_NUMERAL[tens] if tens else 1) * 10 + (_CN_NUMERAL[ones] if ones else 0)


def find_dates(text: str) -> list[Found]:
    """Dates as ISO strings; "2024年1月" (no day) becomes "2024-01". Impossible dates are dropped."""
    out: list[Found] = []
    for m in _DATE.finditer(to_half_width(text)):
        g = m.groupdict()
        try:
            if g["y1"]:
                y, mo, d = int(g["y1"]), int(g["m1"]), int(g["d1"])
            elif g["y2"]:
                y, mo, d = int(g["y2"]), int(g["m2"]), int(g["d2"]) if g["d2"] else None
            elif g["y3"]:
                y, mo, d = int(g["y3"]), int(g["m3"]), int(g["d3"])
            else:
                y = int("".join(str(_CN_NUMERAL[c]) for c in g["y4"]))
                mo = _cn_small_number(g["m4"])
                d = _cn_small_number(g["d4"]) if g["d4"] else None
            iso = date(y, mo, d or 1).isoformat() if d else f"{date(y, mo, 1).isoformat()[:7]}"
        except (ValueError, KeyError):
            continue
        out.append((m.group(0), iso, "date" if d else "month"))
    return out


# ---------------------------------------------------------------- Chinese ID numbers
_ID = re.compile(r"(?<![0-9A-Za-z])(\d{17}[\dXx])(?![0-9A-Za-z])")
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def id_checksum_ok(number: str) -> bool:
    """GB 11643 check digit and a real birth date; a mistyped number is rejected."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(c) * w for c, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != number[17].upper():
        return False
    try:
        date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    return True


def find_id_numbers(text: str) -> list[Found]:
    return [(m.group(1), m.group(1).upper(), "cn_id")
            for m in _ID.finditer(to_half_width(text)) if id_checksum_ok(m.group(1))]


# ---------------------------------------------------------------- the handler
FINDERS: dict[str, tuple[Finder, str]] = {
    "extract_phone": (find_phones, "电话号码"),
    "extract_email": (find_emails, "邮箱"),
    "extract_amount": (find_amounts, "金额"),
    "extract_date": (find_dates, "日期"),
    "extract_id_number": (find_id_numbers, "身份证号"),
    "extract_url": (find_urls, "网址"),
}


def _key(normalized: object) -> str:
    if isinstance(normalized, dict):  # amounts: the same value in figures and in capitals is one item
        return "|".join(f"{k}={normalized[k]}" for k in sorted(normalized) if k != "unit")
    return str(normalized)


def run_extract(route: str, documents: list[ParsedDocument]) -> HandlerResult:
    """Every distinct value the route's finder sees, in document order, with all its citations."""
    finder, label = FINDERS[route]
    items: dict[str, HandlerItem] = {}
    for text, citation in text_units(documents):
        for raw, normalized, kind in finder(text):
            key = _key(normalized)
            item = items.get(key)
            if item is None:
                item = items[key] = HandlerItem(value=raw, normalized=normalized, kind=kind)
            if len(item.citations) < MAX_CITATIONS_PER_ITEM:
                item.citations.append(citation)
            item.extra["occurrences"] = item.extra.get("occurrences", 0) + 1
    found = list(items.values())
    if not found:
        return HandlerResult(route=route, answer_text=f"未找到{label}。", items=[])
    lines = [f"共找到 {len(found)} 个{label}："]
    for item in found:
        if route == "extract_amount":
            shown = f"{item.normalized['value']} {item.normalized['currency']}"
        else:
            shown = item.normalized
        lines.append(f"- {item.value}" + (f"（{shown}）" if str(shown) != item.value else "")
                     + f" [{item.citations[0].label()}]")
    return HandlerResult(route=route, answer_text="\n".join(lines), items=found)
