"""File -> cleaned blocks, or a clear refusal.

``parse_file`` is the one entry point: it checks the file (exists, size, empty),
picks the format parser by suffix, runs cleaning over the blocks and refuses a
document that ends up with no text. Format parsers live one per module and raise
:class:`officeqa.errors.UnreadableDocument` with a specific kind.
"""

from __future__ import annotations

from indexing.parsing.dispatch import SUPPORTED_SUFFIXES, parse_file

__all__ = ["SUPPORTED_SUFFIXES", "parse_file"]
