"""Caps on the shape of a table as a parser reads it: columns per row and characters per cell.

Why before anything else: a table's rows are padded to one width and every cell is cleaned,
rendered and counted downstream, so one absurd row (a CSV line of 25 million cells) or one
absurd cell (a 100 MB shared string in a 1 MB xlsx) multiplies through the whole pipeline.
Parsers pass each raw row through :meth:`CellLimits.apply` as they read it and add
:meth:`CellLimits.warnings` to the document, so what was cut is said, with the setting.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CellLimits"]


class CellLimits:
    """Column and cell-length caps for table rows, counting what they cut (shared by xlsx and csv)."""

    def __init__(self, max_columns: int, max_cell_chars: int) -> None:
        self.max_columns = max_columns
        self.max_cell_chars = max_cell_chars
        self.widest = 0  # widest row seen, when wider than max_columns
        self.cut_cells = 0

    def apply(self, values: list[Any], first_col: int = 0) -> list[Any]:
        if first_col + len(values) > self.max_columns:
            self.widest = max(self.widest, first_col + len(values))
            values = values[: max(0, self.max_columns - first_col)]
        cap = self.max_cell_chars
        if any(type(v) is str and len(v) > cap for v in values):
            self.cut_cells += sum(1 for v in values if type(v) is str and len(v) > cap)
            values = [v[:cap] if type(v) is str and len(v) > cap else v for v in values]
        return values

    def warnings(self, where: str) -> list[str]:
        out = []
        if self.widest:
            out.append(
                f"{where}: {self.widest} columns, only the first {self.max_columns} were read (parsing.max_columns)"
            )
        if self.cut_cells:
            out.append(
                f"{where}: {self.cut_cells} cell(s) longer than {self.max_cell_chars} characters were cut "
                "(parsing.max_cell_chars)"
            )
        return out
