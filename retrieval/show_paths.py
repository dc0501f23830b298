"""No server path in what users read: file names in answer texts relative to the knowledge base's root.

Why a last pass over every answer: handler labels, table refusals ("which table: …") and warnings
name documents by the path they were parsed from, and several modules build those texts; one
pass at the end of the question path replaces every indexed document's absolute path by its path
under the knowledge base's root (the folder holding all indexed documents), whoever wrote it.
The full path stays where owners look for it: the answer's metadata and the citations' ``path``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import PurePath

from retrieval.answering import Answer


class DisplayPaths:
    """Absolute document paths -> their paths relative to the common root of all indexed documents."""

    def __init__(self, paths: Mapping[str, str]) -> None:
        absolute = sorted({p for p in paths.values() if PurePath(p).is_absolute()}, key=len, reverse=True)
        self.root = os.path.commonpath([str(PurePath(p).parent) for p in absolute]) if absolute else ""
        self._shown = {p: self.shown(p) for p in absolute}

    def shown(self, path: str) -> str:
        """``path`` under the root ("财务/年报.pdf"); the file name when it is not under it."""
        if self.root and path.startswith(self.root.rstrip("/") + "/"):
            return path[len(self.root.rstrip("/")) + 1:]
        return PurePath(path).name

    def text(self, text: str) -> str:
        """``text`` with every indexed path (longest first) and the root itself made relative."""
        if not self.root or "/" not in text:
            return text
        for path, shown in self._shown.items():
            if path in text:
                text = text.replace(path, shown)
        if self.root != "/" and self.root in text:
            text = text.replace(self.root.rstrip("/") + "/", "").replace(self.root, ".")
        return text

    def relative(self, answer: Answer) -> Answer:
        """The answer with its text, notice and citation texts free of absolute paths."""
        answer.text = self.text(answer.text)
        answer.notice = self.text(answer.notice) if answer.notice else answer.notice
        for citation in answer.citations:
            citation.document = self.text(citation.document)
            citation.quote = self.text(citation.quote)
            citation.label_note = self.text(citation.label_note)
        return answer


__all__ = ["DisplayPaths"]
