"""The instruction normaliser the rules match against; it lives in ``officeqa.normalize`` because the table store
(indexing) normalises cell values the same way questions are normalised here."""

from officeqa.normalize import normalize, to_half_width, to_simplified

__all__ = ["normalize", "to_half_width", "to_simplified"]
