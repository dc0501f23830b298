"""Named facts from a report's key-value layout: the 公司简介 tables ("公司的法定代表人 | 王某", "股票简称 | 航天电器
| 股票代码 | 002025"), the same read as text lines when the PDF table was not detected, header-over-value tables
("董事会秘书 | 证券事务代表" over "姓名 | 张旺 | 马庆"; "Trading Symbol(s)" over "AAPL"), and 10-K cover fields
whose label is printed in brackets under the value ("(Address of principal executive offices)").

Why only the first pages: that is where reports print these fields (公司简介 within the first dozen pages, the
10-K cover on page 1); the same labels later in a report head other tables (a 高管 table's "董事会秘书" column).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import pairwise

from officeqa.domain import Block, BlockType
from retrieval.named_facts.facts import NamedFact, looks_like_person, usable_value
from retrieval.named_facts.fields import FIELDS, PERSON_FIELDS, fold, label_field

__all__ = ["PROFILE_PAGES", "layout_facts"]

#: Pages read for key-value fields (公司简介 of a 300-page 年报 ends before page 15).
PROFILE_PAGES = 15
#: Rows under a header row searched for its values.
_BELOW = 3
_NAME_ROW = frozenset(["姓名", "name"])
_BRACKETED = re.compile(r"\(([^()]{6,80})\)")
#: A line above a bracketed label is its value only when it is short (a name or an address line, not a paragraph).
_ABOVE_CHARS = 100
_MULTILINE = frozenset(["registered_address", "office_address"])


def _clean(cell: str | None) -> str:
    """A cell or line as printed (it is quoted), spaces collapsed."""
    return re.sub(r"\s+", " ", cell or "").strip()


def _char(ch: str) -> str:
    """A pattern for one folded label character that also matches its full-width form as printed."""
    wide = {"(": "（", ")": "）", ":": "：", ",": "，", ";": "；", "/": "／"}.get(ch)
    return f"[{re.escape(ch)}{wide}]" if wide else re.escape(ch)


def _accept(field: str, value: str) -> bool:
    value = value.strip()
    if not usable_value(value) or label_field(value) is not None:
        return False
    return looks_like_person(value) if field in PERSON_FIELDS else True


def layout_facts(blocks: Sequence[Block]) -> list[NamedFact]:
    """Every key-value fact of the first :data:`PROFILE_PAGES` pages, in document order."""
    found: list[NamedFact] = []
    lines: dict[int | None, list[str]] = {}  # a page's text lines across its blocks (a 10-K label under its value)
    for block in blocks:
        if (block.page or 1) > PROFILE_PAGES:
            continue
        if block.type == BlockType.TABLE:
            found.extend(_table_facts(block))
        elif block.text:
            lines.setdefault(block.page, []).extend(_clean(line) for line in block.text.splitlines())
    for page, page_lines in lines.items():
        found.extend(_line_facts(page_lines, page))
    return found


def _table_facts(block: Block) -> Iterator[NamedFact]:
    rows = [[_clean(c) for c in row] for row in [*(block.header_rows or []), *(block.rows or [])]]
    for r, row in enumerate(rows):
        for i, cell in enumerate(row):
            field = label_field(cell)
            if field is None:
                yield from _pairs(cell, block.page, "table")  # "公司的法定代表人：史新昆" in one cell
                continue
            value = next((c for c in row[i + 1:] if c), "")
            if value and label_field(value) is None:
                if _accept(field, value):
                    yield NamedFact(field, value, cell, block.page, " | ".join(c for c in row if c), "table")
                continue
            yield from _below(field, cell, rows, r, i, block.page)


def _below(field: str, label: str, rows: list[list[str]], r: int, i: int, page: int | None) -> Iterator[NamedFact]:
    """A header cell's value in the rows under it (the 姓名 row first, as in 联系人和联系方式)."""
    under = rows[r + 1:r + 1 + _BELOW]
    under.sort(key=lambda row: 0 if row and fold(row[0]) in _NAME_ROW else 1)
    for row in under:
        column = i + max(0, len(row) - len(rows[r]))
        value = row[column] if column < len(row) else ""
        if value and _accept(field, value):
            yield NamedFact(field, value, label, page, f"{label} | {' | '.join(c for c in row if c)}", "table")
            return


@cache
def _label_pattern() -> re.Pattern[str]:
    """Any label at a word boundary, its characters allowed to be spaced out ("注 册 地 址"), "（如有）" after it."""
    labels = sorted({label for field in FIELDS.values() for label in field.labels}, key=len, reverse=True)
    parts = [r"\s*".join(_char(ch) for ch in label) for label in labels if len(label) >= 2]
    optional = r"(?:\s*[（(]\s*(?:如有|if any)\s*[)）])?"
    return re.compile(rf"(?<![\w\u4e00-\u9fff])({'|'.join(parts)}){optional}(?=[\s:：]|$)", re.IGNORECASE)


def _pairs(line: str, page: int | None, source: str) -> Iterator[NamedFact]:
    """Label-value pairs of a line ("股票简称 海翔药业 股票代码 002099"): each value runs to the next label.

    A label counts only standing as a word (space, colon or the line's edge around it): inside a sentence
    ("公司注册地址位于…") it does not."""
    matches: list[re.Match[str]] = []
    for match in _label_pattern().finditer(line):
        # an English label counts mid-line only after a pair ("…the ticker symbol WMK." is prose, not a pair)
        if match.start() == 0 or matches or not match.group(1).isascii():
            matches.append(match)
    if _header_line(line, matches):
        return
    for n, match in enumerate(matches):
        end = matches[n + 1].start() if n + 1 < len(matches) else len(line)
        value = line[match.end():end].strip(" :：\t")
        field = label_field(match.group(1))
        if field is not None and value and _accept(field, value):
            yield NamedFact(field, value, match.group(1), page, line.strip(), source)


def _header_line(line: str, matches: Sequence[re.Match[str]]) -> bool:
    """Whether a line is a table's header row: two labels side by side with no value between them ("Title of each
    class Trading Symbol Name of Market Where Traded", "股票简称 股票代码"). Its values stand in the rows under it,
    so what follows its last label is another column's header, never that label's value."""
    return any(not line[a.end():b.start()].strip(" :：\t") for a, b in pairwise(matches))


def _line_facts(lines: list[str], page: int | None) -> Iterator[NamedFact]:
    lines = [line for line in lines if line]
    for n, line in enumerate(lines):
        if len(line) > 160:
            continue
        yield from _pairs(line, page, "line")
        yield from _bracketed(line, _value_lines(lines[max(0, n - 2):n]), page)


def _value_lines(above: list[str]) -> list[str]:
    """The short lines right above a bracketed label, up to one holding a bracket ("2101 Fourth Avenue, Suite 1900"
    over "Seattle, Washington 98121")."""
    taken: list[str] = []
    for line in reversed(above):
        if not line or len(line) > _ABOVE_CHARS or "(" in line or ")" in line:
            break
        taken.insert(0, line.strip(" ,"))
    return taken


def _bracketed(line: str, above: list[str], page: int | None) -> Iterator[NamedFact]:
    """10-K cover fields: "500 Harbor Street, Boston (Address of principal executive offices)", the value before
    its bracketed label on the same line, or ``above`` (the short lines above) when the label opens the line."""
    start = 0
    for match in _BRACKETED.finditer(line):
        field = label_field(match.group(1))
        before = line[start:match.start()].strip(" ,")
        start = match.end()
        if field is None:
            continue
        if not before:  # an address may take two lines; a name or a number is the line right above
            before = ", ".join(above if field in _MULTILINE else above[-1:])
        if before and _accept(field, before):
            yield NamedFact(field, before, match.group(1), page, f"{before} ({match.group(1)})", "line")
