"""Exact cell numbers for the handlers; the parser lives in ``officeqa.numbers`` because the table store (indexing)
types columns with the same rules the handlers read them with."""

from officeqa.numbers import format_decimal, parse_number

__all__ = ["format_decimal", "parse_number"]
