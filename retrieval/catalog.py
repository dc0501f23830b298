"""One indexed document as the question path sees it: id, path, profile, modification time.

Why a module of its own: scope resolution, subject matching, answer texts and the question context all
read catalog entries; kept here, none of them imports another for the type alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from indexing.profile import DocumentProfile

__all__ = ["CatalogEntry"]


@dataclass(slots=True)
class CatalogEntry:
    """One indexed document as scope resolution sees it."""

    doc_id: str
    path: str
    profile: DocumentProfile
    mtime: float = 0.0

    @property
    def title(self) -> str:
        return self.profile.title or PurePath(self.path).stem
