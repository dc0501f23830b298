"""Which kind of table a report table is: the key-figures table, a primary statement, or a note.

Why: a company-level figure ("total revenue", "total assets", 营业收入) is printed many times in a report: in
the key-figures table (主要会计数据和财务指标, financial highlights), in the consolidated statements, and again
in notes, segment, subsidiary and acquisition tables, where the same row label holds another amount (an
acquired business's revenue, an insurance segment's assets). The answer to a company-level question comes
from the first two; a note answers only a question that names it. The role is read from the table's caption
and section and from where the table stands: every table after a "Notes to the consolidated financial
statements" / 财务报表附注 heading is a note until the next part of the report (Item 9, 第十一节).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["KEY", "NOTE", "STATEMENT", "closes_notes", "opens_notes", "parent_column", "parent_table", "table_role"]

KEY = "key"
STATEMENT = "statement"
NOTE = "note"

_KEY = re.compile(
    r"主要会计数据|主要财务指标|主要财务数据|财务摘要|财务概要|五年.{0,4}(?:摘要|概要)|financial\s+highlights|"
    r"selected\s+financial\s+data|financial\s+summary|key\s+(?:financial\s+)?figures|"
    r"five[- ]year\s+(?:financial\s+)?summary",
    re.IGNORECASE,
)
_STATEMENT = re.compile(
    r"(?:合并|母公司)?(?:资产负债表|利润表|损益表|现金流量表|所有者权益变动表|股东权益变动表|综合收益表|财务状况表)|"
    r"(?:consolidated\s+)?(?:statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings|comprehensive\s+income|"
    r"financial\s+position|cash\s+flows?|profit\s+or\s+loss|changes\s+in\s+(?:shareholders'?|stockholders'?)?\s*equity)|"
    r"balance\s+sheets?|income\s+statements?|cash\s+flow\s+statements?)",
    re.IGNORECASE,
)
#: A caption that names a table of a part of the company: answers only a question that names it.
_PART = re.compile(
    r"分部|子公司|参股公司|收购|并购|合营|联营|segment|subsidiar|acquisition|acquired|business\s+combination|"
    r"joint\s+venture|associate|pro\s+forma|unaudited\s+quarterly|quarterly\s+(?:financial\s+)?data",
    re.IGNORECASE,
)
_NOTES_OPEN = re.compile(
    r"notes\s+to\s+(?:the\s+)?(?:consolidated\s+)?financial\s+statements|财务报表附注|财务报表项目注释|"
    r"报表项目注释|财务报表主要项目注释",
    re.IGNORECASE,
)
_NOTE_CAPTION = re.compile(r"^\s*note\s+\d+|附注|注释\s*\d", re.IGNORECASE)
#: The next part of a report after its notes: a 10-K item, a numbered 第N节, a PART.
_PART_OPEN = re.compile(r"^\s*(?:item\s+\d+[a-z]?\b|part\s+[ivx]+\b|第[一二三四五六七八九十]+节)", re.IGNORECASE)


#: A table of the parent company alone: 母公司资产负债表, "Parent company balance sheet", and the UK / Australian
#: "Company Statement of Financial Position" / "Company balance sheet" printed after the group's statements.
_PARENT_TABLE = re.compile(
    r"母公司(?!所有者|股东|普通股)|parent\s+(?:company|entity)|non-consolidated|"
    r"(?:^|[^a-z])company\s+(?:statements?\s+of|balance\s+sheets?|income\s+statements?|cash\s+flow\s+statements?)|"
    r"statements?\s+of\s+[a-z ]{4,40}?\s*[-–—(:]\s*(?:the\s+)?company\b",
    re.IGNORECASE,
)
#: A column of the parent company beside the group's ("Group 2022 | Group 2021 | Company 2022 | Company 2021",
#: "Consolidated | Parent", 合并 | 母公司): read from the column's own header words, never from its position.
_PARENT_COLUMN = re.compile(r"(?<![a-z])(?:company|parent(?:\s+entity)?)(?![a-z])|母公司|本公司", re.IGNORECASE)
_GROUP_COLUMN = re.compile(r"(?<![a-z])(?:group|consolidated)(?![a-z])|合并|本集团|集团", re.IGNORECASE)


def parent_table(caption: str, section: str) -> bool:
    """Whether a table's caption or section names the parent company's own statement (not the group's)."""
    text = _fold(f"{caption} {section}")
    return bool(_PARENT_TABLE.search(text)) and not re.search(
        r"consolidated\s+and\s+(?:parent\s+)?company", text, re.IGNORECASE
    )


def parent_column(column: str) -> bool:
    """Whether a column header names the parent company and not the group (a group-and-company table prints both
    side by side; the company's columns answer only a question that asks for the parent company)."""
    text = _fold(column)
    return bool(_PARENT_COLUMN.search(text)) and not _GROUP_COLUMN.search(text)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "")


def opens_notes(heading: str) -> bool:
    """Whether a heading starts the notes to the financial statements (not a contents line "... 55")."""
    text = _fold(heading)
    return bool(_NOTES_OPEN.search(text)) and not re.search(r"\d\s*$", text)


def closes_notes(heading: str) -> bool:
    """Whether a heading starts the next part of the report (the notes are over)."""
    return bool(_PART_OPEN.match(_fold(heading)))


def table_role(caption: str, section: str, in_notes: bool) -> str | None:
    """KEY, STATEMENT, NOTE, or None (another table: MD&A, a business section)."""
    caption, section = _fold(caption), _fold(section)
    if _PART.search(caption) or _NOTE_CAPTION.search(caption) or (_PART.search(section) and not _KEY.search(caption)):
        return NOTE
    if _KEY.search(caption) or (not in_notes and _KEY.search(section)):
        return KEY
    if _STATEMENT.match(caption.strip(" 0123456789.、()（）")):  # titled by the statement itself
        return STATEMENT
    if in_notes:
        return NOTE
    if _STATEMENT.search(caption) or _STATEMENT.search(section):
        return STATEMENT
    return None
