"""Table and column labels in the answer's language: "表3" / "列4" read "Table 3" / "column 4" in English.

Why: the table store names an unnamed table "表N" and an unnamed column "列N" once, at index time,
whatever the question's language; an English answer must not carry Chinese labels.
"""

from __future__ import annotations

import re

_TABLE = re.compile(r"表\s*(\d+)")
_COLUMN = re.compile(r"列\s*(\d+)")


def localize_labels(text: str, language: str) -> str:
    """``text`` with generated table/column labels in ``language`` (Chinese text is left as it is)."""
    if language == "zh":
        return text
    return _COLUMN.sub(r"column \1", _TABLE.sub(r"Table \1", text))


__all__ = ["localize_labels"]
