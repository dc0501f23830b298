"""State that every story of one .docx shares while it is walked: styles, numbering, page, comments.

Why a module of its own: the body, headers, footers and table cells are read by
different readers, yet they must advance one page counter, one set of list counters and
one comment capture; this object is the single place that state lives.
"""

from __future__ import annotations

from indexing.parsing.docx_numbering import Numbering
from indexing.parsing.docx_styles import Styles
from indexing.parsing.docx_xml import one_line
from officeqa.domain import Block


class DocContext:
    """State shared by every story of one document: styles, numbering, pages, comments."""

    def __init__(
        self, styles: Styles, numbering: Numbering, comments: dict[str, Block], rendered_breaks: bool, paginated: bool
    ) -> None:
        self.styles = styles
        self.numbering = numbering
        self.comments = comments
        self.rendered_breaks = rendered_breaks
        self.page: int | None = 1 if paginated else None
        self.pending_section_break = False
        self.pending_caption: str | None = None
        self.styled_depth = 0
        self._capturing: dict[str, list[str]] = {}
        self._ready: list[Block] = []
        self.emitted: set[str] = set()

    def new_page(self) -> None:
        """Count a page break (a no-op when the document has no pagination)."""
        if self.page is not None:
            self.page += 1

    def open_comment(self, comment_id: str) -> None:
        """Start capturing the text a known comment is anchored to."""
        if comment_id in self.comments:
            self._capturing[comment_id] = []

    def close_comment(self, comment_id: str) -> None:
        """End a comment's range: its block (with the commented text) is ready to follow the current block."""
        captured = self._capturing.pop(comment_id, None)
        block = self.comments.get(comment_id)
        if block is None or comment_id in self.emitted:
            return
        if captured is not None:
            anchor = one_line("".join(captured))
            if anchor:
                block.meta["commented_text"] = anchor
        self.emitted.add(comment_id)
        block.page = self.page
        self._ready.append(block)

    def capture(self, text: str) -> None:
        """Add run text to every comment range that is open."""
        if self._capturing:
            for parts in self._capturing.values():
                parts.append(text)

    def take_comments(self) -> list[Block]:
        """The comment blocks whose range closed since the last call."""
        ready, self._ready = self._ready, []
        return ready
