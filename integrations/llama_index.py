"""LlamaIndex adapters: officeqa's parsers as a reader, an officeqa knowledge base as a retriever.

Why these two: a team that builds with LlamaIndex wants either officeqa's parsing (legacy
and Chinese office files, tables kept as tables, heading paths) feeding its own index, or
officeqa's whole retrieval (jieba BM25 + dense, fused) behind its own query engine. Both
are thin: the reader calls the product's guarded parser, the retriever calls
:func:`retrieval.search.search`; nothing here re-implements either.

- :class:`OfficeQAReader` -- ``load_data(path, extra_info=None)`` turns a file, a folder (every
  supported file under it) or a list of either into LlamaIndex ``Document``s, one per section: a
  heading and the blocks under it, cut again where the page, sheet or slide changes, so each
  Document's metadata says exactly where it comes from (``file_path``, ``file_name``,
  ``file_type``, ``heading_path``, ``page``/``page_end``, ``sheet``, ``slide``, ``attachment``)
  plus ``extra_info``. Tables are written as Markdown tables, which LLMs read well and
  LlamaIndex's splitters keep whole when they fit. Works from a plain script (no
  ``if __name__ == "__main__":`` needed; see :func:`_script_safe_spawn`).
- :class:`OfficeQARetriever` -- ``OfficeQARetriever(settings=None, mode="hybrid", top_k=10)``
  retrieves from the knowledge base the settings name (from the environment and
  ``OFFICEQA_CONFIG`` when none are given, like the CLI); each ``NodeWithScore`` has the chunk id
  as node id, the chunk text, the fused score, and the citation metadata (``path``,
  ``document``, ``heading_path``, ``page``/``sheet``/``slide``, ``doc_id``, ``citation``). The
  ids and the server path stay in the metadata and out of what the LLM and the embedder read
  (``excluded_llm_metadata_keys``); ``top_k`` must be 1..1000 and a query must not be empty.

Needs ``pip install "officeqa[llamaindex]"`` (llama-index-core; no torch, no LLM client).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import Document, NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # an optional extra: say how to get it
    raise ImportError(
        'integrations.llama_index needs llama-index-core: pip install "officeqa[llamaindex]"'
    ) from exc

from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import UnreadableDocument
from officeqa.settings import Settings, load_settings

__all__ = ["OfficeQAReader", "OfficeQARetriever", "blocks_to_documents", "table_markdown"]

#: What the LLM and the embedder never read of a node's metadata: internal ids and the server's paths.
HIDDEN_FROM_MODELS = ["chunk_id", "doc_id", "path", "file_path"]
MAX_TOP_K = 1000


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
    base = _base_metadata(document)
    out: list[Document] = []
    stack: list[tuple[int, str]] = []
    current: list[Block] = []

    def flush() -> None:
        section = _section_document(current, stack, base, f"{path}#{len(out)}")
        if section is not None:
            out.append(section)
        current.clear()

    for block in document.blocks:
        if block.type is BlockType.HEADING:
            flush()
            level = block.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, block.text))
        elif current and _location(current[-1]) != _location(block) and current[-1].type is not BlockType.HEADING:
            flush()
        current.append(block)
    flush()
    return out


def _base_metadata(document: ParsedDocument) -> dict[str, Any]:
    """Metadata every section of the file carries: its path, name, type, title and mail headers."""
    path = Path(document.path)
    base: dict[str, Any] = {"file_path": str(path), "file_name": path.name, "file_type": document.file_type}
    if document.title:
        base["title"] = document.title
    for key in ("subject", "from", "date"):
        if document.meta.get(key):
            base[f"mail_{key}"] = str(document.meta[key])
    return base


def _location(block: Block) -> tuple[str | None, int | None, str | None]:
    return block.sheet, block.slide, block.meta.get("attachment")


def _section_document(current: list[Block], stack: list[tuple[int, str]], base: dict[str, Any],
                      doc_id: str) -> Document | None:
    """The blocks of one section as a Document (None when they hold no text)."""
    if not any(b.text.strip() for b in current):
        return None
    meta = dict(base)
    meta["heading_path"] = " > ".join(title for _, title in stack)
    pages = [b.page for b in current if b.page is not None]
    if pages:
        meta["page"], meta["page_end"] = min(pages), max(pages)
    sheet, slide, attachment = _location(current[-1])
    for key, value in (("sheet", sheet), ("slide", slide), ("attachment", attachment)):
        if value is not None:
            meta[key] = value
    text = "\n\n".join(_block_text(b) for b in current if b.text.strip())
    return Document(text=text, metadata=meta, id_=doc_id, excluded_llm_metadata_keys=list(HIDDEN_FROM_MODELS),
                    excluded_embed_metadata_keys=list(HIDDEN_FROM_MODELS))


@contextmanager
def _script_safe_spawn() -> Iterator[None]:
    """Let the parse worker start from a plain script that has no ``if __name__ == "__main__":`` guard.

    The worker process is started with ``spawn`` (no inherited threads), which re-runs the parent's main
    script in the child unless that is guarded; an unguarded script calling ``load_data`` would then start
    the worker again from inside the child and the child dies ("parse worker did not start"). The worker
    needs nothing from the script (its code lives in :mod:`indexing.parsing.guard`), so while the reader
    runs, the main module's file is hidden from ``multiprocessing`` and the child does not run the script.
    """
    main = sys.modules.get("__main__")
    hide = main is not None and getattr(main, "__spec__", None) is None and hasattr(main, "__file__")
    if not hide:
        yield
        return
    path = main.__file__
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


class OfficeQAReader(BaseReader):
    """Files -> LlamaIndex Documents through officeqa's parsers (in the guarded worker process)."""

    def __init__(
        self, settings: Settings | None = None, *, password: str | None = None, skip_unreadable: bool = False
    ) -> None:
        self.settings = settings or load_settings()
        self.password = password
        self.skip_unreadable = skip_unreadable
        self.refused: list[UnreadableDocument] = []

    @staticmethod
    def files(path: str | Path | list[str | Path]) -> list[str]:
        """The files ``path`` names: a file as given (an unsupported one is then refused with its reason), every
        supported file under a folder (recursively; office lock files, hidden files and other suffixes skipped).
        A path that does not exist raises FileNotFoundError."""
        from indexing.parsing import SUPPORTED_SUFFIXES
        from indexing.walking import walk

        paths = path if isinstance(path, list) else [path]
        found = walk([str(p) for p in paths], frozenset(SUPPORTED_SUFFIXES))
        if found.missing:
            raise FileNotFoundError(f"no such file or folder: {', '.join(found.missing)}")
        return found.files

    def lazy_load_data(
        self, path: str | Path | list[str | Path], extra_info: dict[str, Any] | None = None, **_: Any
    ) -> Iterator[Document]:
        """Documents of one file, of every supported file under a folder, or of a list of either; ``extra_info``
        is added to every Document's metadata (the file's own keys win on a clash).

        A file that cannot be read raises :class:`officeqa.errors.UnreadableDocument`, or, with
        ``skip_unreadable=True``, is skipped and kept in ``self.refused``.
        """
        from indexing.parsing.guard import GuardedParser

        files = self.files(path)
        with _script_safe_spawn(), GuardedParser(self.settings.parsing) as parser:
            for file in files:
                try:
                    parsed = parser.parse(file, self.password)
                except UnreadableDocument as exc:
                    if not self.skip_unreadable:
                        raise
                    self.refused.append(exc)
                    continue
                for document in blocks_to_documents(parsed):
                    if extra_info:
                        document.metadata = {**extra_info, **document.metadata}
                    yield document

    def load_data(
        self, path: str | Path | list[str | Path], extra_info: dict[str, Any] | None = None, **kwargs: Any
    ) -> list[Document]:
        """See :meth:`lazy_load_data`."""
        return list(self.lazy_load_data(path, extra_info, **kwargs))


def _check_top_k(top_k: object) -> None:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise ValueError(f"top_k must be a whole number from 1 to {MAX_TOP_K}, not {top_k!r}")


class OfficeQARetriever(BaseRetriever):
    """A LlamaIndex retriever over an officeqa knowledge base (BM25, dense or hybrid)."""

    def __init__(
        self, settings: Settings | None = None, mode: str = "hybrid", top_k: int = 10, **kwargs: Any
    ) -> None:
        from retrieval.search import MODES

        if mode not in MODES:
            raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(MODES)}")
        _check_top_k(top_k)
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

        _check_top_k(self.top_k)  # also when it was changed after construction
        query = (query_bundle.query_str or "").strip()
        if not query:
            raise ValueError("the query is empty; retrieve with a question or keywords")
        hits = search(self.knowledge_base, query, mode=self.mode, k=self.top_k)
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
            node = TextNode(id_=hit.chunk_id, text=hit.text, metadata=meta,
                            excluded_llm_metadata_keys=list(HIDDEN_FROM_MODELS),
                            excluded_embed_metadata_keys=list(HIDDEN_FROM_MODELS))
            nodes.append(NodeWithScore(node=node, score=hit.score))
        return nodes
