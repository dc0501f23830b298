"""Domain types shared by every layer: the block model (parsing output) and chunks.

Why plain dataclasses: parsing, chunking, retrieval and the rule handlers are pure
functions over these values, so tests can build them as literals and the CLI can
print them as JSON lines without an ORM or schema library in between.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class BlockType(StrEnum):
    """The kinds of block a document is made of (see DESIGN.md, "The block model")."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    CODE = "code"
    IMAGE = "image"
    PAGE_BREAK = "page_break"


class BlockRole(StrEnum):
    """Where a block sits in the document; non-body blocks are kept but marked."""

    BODY = "body"
    HEADER = "header"
    FOOTER = "footer"
    COMMENT = "comment"
    NOTES = "notes"
    FOOTNOTE = "footnote"


@dataclass(slots=True)
class Block:
    """One typed unit of a parsed document, with its provenance.

    ``text`` is always filled (for a table: its rows rendered one per line with
    " | " between cells; for a list: one item per line) so that consumers which only
    need text never re-render. Structured fields (``items``, ``header_rows``,
    ``rows``) keep the shape the chunker and the table handlers need.
    """

    type: BlockType
    text: str = ""
    level: int | None = None
    items: list[str] | None = None
    header_rows: list[list[str]] | None = None
    rows: list[list[str]] | None = None
    caption: str | None = None
    page: int | None = None
    sheet: str | None = None
    slide: int | None = None
    role: BlockRole = BlockRole.BODY
    ocr: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def header(self) -> list[str]:
        """The table header as one row: stacked header rows joined per column."""
        if not self.header_rows:
            return []
        width = max(len(r) for r in self.header_rows)
        merged: list[str] = []
        for col in range(width):
            parts: list[str] = []
            for row in self.header_rows:
                cell = row[col] if col < len(row) else ""
                if cell and (not parts or parts[-1] != cell):
                    parts.append(cell)
            merged.append(" / ".join(parts))
        return merged

    @classmethod
    def table(cls, header_rows: list[list[str]], rows: list[list[str]], **fields: Any) -> Block:
        """A table block whose ``text`` is rendered from its rows, so the two never disagree."""
        return cls(
            type=BlockType.TABLE,
            text=render_table_text(header_rows, rows),
            header_rows=header_rows,
            rows=rows,
            **fields,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON-lines shape printed by ``officeqa parse --json`` (a CLI contract)."""
        out: dict[str, Any] = {"type": self.type.value, "text": self.text}
        if self.level is not None:
            out["level"] = self.level
        for key in ("page", "sheet", "slide", "caption"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.items is not None:
            out["items"] = self.items
        if self.type is BlockType.TABLE:
            out["header"] = self.header
            out["header_rows"] = self.header_rows or []
            out["rows"] = self.rows or []
        if self.role is not BlockRole.BODY:
            out["role"] = self.role.value
        if self.ocr:
            out["ocr"] = True
        if self.meta:
            out["meta"] = self.meta
        return out


_BLOCK_FIELDS = ("text", "level", "items", "header_rows", "rows", "caption", "page", "sheet", "slide")


def block_to_dict(block: Block) -> dict[str, Any]:
    """A lossless plain-data form of a block (unlike :meth:`Block.to_json`, the CLI shape)."""
    out: dict[str, Any] = {"type": block.type.value}
    for key in _BLOCK_FIELDS:
        value = getattr(block, key)
        if value is not None and value != "":
            out[key] = value
    if block.role is not BlockRole.BODY:
        out["role"] = block.role.value
    if block.ocr:
        out["ocr"] = True
    if block.meta:
        out["meta"] = block.meta
    return out


def block_from_dict(data: dict[str, Any]) -> Block:
    """The inverse of :func:`block_to_dict`."""
    fields = {key: data[key] for key in _BLOCK_FIELDS if key in data}
    return Block(
        type=BlockType(data["type"]),
        role=BlockRole(data.get("role", BlockRole.BODY.value)),
        ocr=bool(data.get("ocr", False)),
        meta=dict(data.get("meta") or {}),
        **fields,
    )


def render_table_text(header_rows: list[list[str]], rows: list[list[str]]) -> str:
    """Render a table as text lines, cells joined by " | " (one line per row)."""
    return "\n".join(" | ".join(cell for cell in row) for row in [*header_rows, *rows])


@dataclass(slots=True)
class ParsedDocument:
    """A parsed file: its blocks plus what the parser learned about it."""

    path: str
    file_type: str
    blocks: list[Block]
    title: str | None = None
    page_count: int | None = None
    ocr_used: bool = False
    warnings: list[str] = field(default_factory=list)
    # What the format says about the document as a whole (mail: subject, from, to, cc, date, attachments).
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the stored form of a parsed document (questions read it, never the source file)."""
        return {
            "path": self.path,
            "file_type": self.file_type,
            "title": self.title,
            "page_count": self.page_count,
            "ocr_used": self.ocr_used,
            "warnings": list(self.warnings),
            "meta": dict(self.meta),
            "blocks": [block_to_dict(b) for b in self.blocks],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ParsedDocument:
        return cls(
            path=data["path"],
            file_type=data["file_type"],
            blocks=[block_from_dict(b) for b in data["blocks"]],
            title=data.get("title"),
            page_count=data.get("page_count"),
            ocr_used=bool(data.get("ocr_used", False)),
            warnings=list(data.get("warnings") or []),
            meta=dict(data.get("meta") or {}),
        )


class ChunkKind(StrEnum):
    """What a chunk holds; tables and oversize tables are routed separately."""

    TEXT = "text"
    TABLE = "table"
    OVERSIZE_TABLE = "oversize_table"
    LIST = "list"
    CODE = "code"


@dataclass(slots=True)
class Chunk:
    """A retrievable unit of a document with its provenance and size in tokens."""

    id: str
    doc_id: str
    text: str
    heading_path: list[str]
    kind: ChunkKind
    tokens: int
    position: int = 0
    page: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    slide: int | None = None
    char_start: int = 0
    char_end: int = 0
    overlap_chars: int = 0
    block_types: list[str] = field(default_factory=list)
    version: str | None = None
    forced_cut: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON-lines shape printed by ``officeqa chunk --json`` (a CLI contract)."""
        out = asdict(self)
        out["kind"] = self.kind.value
        return {k: v for k, v in out.items() if v is not None and v != {}}
