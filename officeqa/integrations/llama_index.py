"""LlamaIndex adapters: officeqa's parsers as a reader, an officeqa knowledge base as a retriever.

Why these two: a team that builds with LlamaIndex wants either officeqa's parsing (legacy
and Chinese office files, tables kept as tables, heading paths) feeding its own index, or
officeqa's whole retrieval (jieba BM25 + dense, fused) behind its own query engine. Both
are thin: the reader calls the product's guarded parser, the retriever calls
:func:`retrieval.search.search`; nothing here re-implements either.

- :class:`OfficeQAReader` -- ``load_data(path)`` turns a file (or every supported file of a
  folder) into LlamaIndex ``Document``s, one per section: a heading and the blocks under it,
  cut again where the page, sheet or slide changes, so each Document's metadata says exactly
  where it comes from (``file_path``, ``file_name``, ``file_type``, ``heading_path``,
  ``page``/``page_end``, ``sheet``, ``slide``, ``attachment``). Tables are written as Markdown
  tables, which LLMs read well and LlamaIndex's splitters keep whole when they fit.
- :class:`OfficeQARetriever` -- ``OfficeQARetriever(settings=None, mode="hybrid", top_k=10)``
  retrieves from the knowledge base the settings name (from the environment and
  ``OFFICEQA_CONFIG`` when none are given, like the CLI); each ``NodeWithScore`` has the chunk id
  as node id, the chunk text, the fused score, and the citation metadata (``path``,
  ``document``, ``heading_path``, ``page``/``sheet``/``slide``, ``doc_id``, ``citation``).

Needs ``pip install "officeqa[llamaindex]"`` (llama-index-core; no torch, no LLM client).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

try:
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import Document, NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # an optional extra: say how to get it
    raise ImportError(
        'officeqa.integrations.llama_index needs llama-index-core: pip install "officeqa[llamaindex]"'
    ) from exc

from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import UnreadableDocument
from officeqa.settings import Settings, load_settings

__all__ = ["OfficeQAReader", "OfficeQARetriever", "blocks_to_documents", "table_markdown"]


def table_markdown(block: Block) -> str:
    """A table block as a Markdown table (stacked header rows merged into one, pipes escaped)."""

    def row(cells: Iterable[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |"

    body = list(block.rows or [])
    header = block.header or (body.pop(0) if body else [])
    width = max([len(header), *(len(r) for r in body)])
    if width == 0:
        return block.text
    header = list(header) + [""] * (width - len(header))
    lines = [row(header), "| " + " | ".join(["---"] * width) + " |"]
    lines.extend(row(list(r) + [""] * (width - len(r))) for r in body)
    caption = f"{block.caption}\n\n" if block.caption else ""
    return caption + "\n".join(lines)


def _block_text(block: Block) -> str:
    if block.type is BlockType.TABLE:
        return table_markdown(block)
    if block.type is BlockType.HEADING:
        return "#" * min(block.level or 1, 6) + " " + block.text
    if block.type is BlockType.LIST and block.items:
        return "\n".join(f"- {item}" for item in block.items)
    if block.role is BlockRole.NOTES:
        return f"Notes: {block.text}"
    return block.text


def blocks_to_documents(document: ParsedDocument) -> list[Document]:
    """One LlamaIndex Document per section of a parsed file (see the module docstring)."""
    path = Path(document.path)
    base: dict[str, Any] = {"file_path": str(path), "file_name": path.name, "file_type": document.file_type}
    if document.title:
        base["title"] = document.title
    for key in ("subject", "from", "date"):
        if document.meta.get(key):
            base[f"mail_{key}"] = str(document.meta[key])
    out: list[Document] = []
    stack: list[tuple[int, str]] = []
    current: list[Block] = []

    def location(block: Block) -> tuple[str | None, int | None, str | None]:
        return block.sheet, block.slide, block.meta.get("attachment")

    def flush() -> None:
        if not any(b.text.strip() for b in current):
            current.clear()
            return
        meta = dict(base)
        meta["heading_path"] = " > ".join(title for _, title in stack)
        pages = [b.page for b in current if b.page is not None]
        if pages:
            meta["page"], meta["page_end"] = min(pages), max(pages)
        sheet, slide, attachment = location(current[-1])
        for key, value in (("sheet", sheet), ("slide", slide), ("attachment", attachment)):
            if value is not None:
                meta[key] = value
        text = "\n\n".join(_block_text(b) for b in current if b.text.strip())
        out.append(Document(text=text, metadata=meta, id_=f"{path}#{len(out)}"))
        current.clear()

    for block in document.blocks:
        if block.type is BlockType.HEADING:
            flush()
            level = block.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, block.text))
        elif current and location(current[-1]) != location(block) and current[-1].type is not BlockType.HEADING:
            flush()
        current.append(block)
    flush()
    return out


class OfficeQAReader(BaseReader):
    """Files -> LlamaIndex Documents through officeqa's parsers (in the guarded worker process)."""

    def __init__(
        self, settings: Settings | None = None, *, password: str | None = None, skip_unreadable: bool = False
    ) -> None:
        self.settings = settings or load_settings()
        self.password = password
        self.skip_unreadable = skip_unreadable
        self.refused: list[UnreadableDocument] = []

    def _files(self, path: Path) -> list[Path]:
        if path.is_dir():
            from indexing.ingest import discover

            files, _folders, _missing = discover([path])
            return files
        return [path]

    def lazy_load_data(self, path: str | Path | list[str | Path], **_: Any) -> Iterator[Document]:
        """Documents of one file, of every supported file under a folder, or of a list of either.

        A file that cannot be read raises :class:`officeqa.errors.UnreadableDocument`, or, with
        ``skip_unreadable=True``, is skipped and kept in ``self.refused``.
        """
        from indexing.parsing.guard import GuardedParser

        paths = path if isinstance(path, list) else [path]
        files = [file for p in paths for file in self._files(Path(p))]
        with GuardedParser(self.settings.parsing) as parser:
            for file in files:
                try:
                    parsed = parser.parse(file, self.password)
                except UnreadableDocument as exc:
                    if not self.skip_unreadable:
                        raise
                    self.refused.append(exc)
                    continue
                yield from blocks_to_documents(parsed)

    def load_data(self, path: str | Path | list[str | Path], **kwargs: Any) -> list[Document]:
        """See :meth:`lazy_load_data`."""
        return list(self.lazy_load_data(path, **kwargs))


class OfficeQARetriever(BaseRetriever):
    """A LlamaIndex retriever over an officeqa knowledge base (BM25, dense or hybrid)."""

    def __init__(
        self, settings: Settings | None = None, mode: str = "hybrid", top_k: int = 10, **kwargs: Any
    ) -> None:
        from retrieval.search import MODES

        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        super().__init__(**kwargs)
        self.settings = settings or load_settings()
        self.mode = mode
        self.top_k = top_k
        self._kb: Any = None

    @property
    def knowledge_base(self) -> Any:
        """The knowledge base, opened on first use and kept open (Chroma, BM25 and the embedder load once)."""
        if self._kb is None:
            from indexing.storage import open_knowledge_base

            self._kb = open_knowledge_base(self.settings)
        return self._kb

    def close(self) -> None:
        if self._kb is not None:
            self._kb.close()
            self._kb = None

    def __enter__(self) -> OfficeQARetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        from retrieval.citations import citation_from_metadata
        from retrieval.search import search

        hits = search(self.knowledge_base, query_bundle.query_str, mode=self.mode, k=self.top_k)
        nodes: list[NodeWithScore] = []
        for n, hit in enumerate(hits, start=1):
            citation = citation_from_metadata(n, hit.chunk_id, hit.doc_id, hit.metadata)
            meta: dict[str, Any] = {
                "chunk_id": hit.chunk_id,
                "doc_id": hit.doc_id,
                "path": citation.path,
                "document": citation.document,
                "file_type": hit.metadata.get("file_type"),
                "heading_path": " > ".join(citation.heading_path),
                "citation": citation.label().split(" ", 1)[1],  # without the "[n]" of an answer
            }
            for key in ("page", "page_end", "sheet", "slide"):
                value = getattr(citation, key)
                if value is not None:
                    meta[key] = value
            node = TextNode(id_=hit.chunk_id, text=hit.text, metadata=meta)
            nodes.append(NodeWithScore(node=node, score=hit.score))
        return nodes
