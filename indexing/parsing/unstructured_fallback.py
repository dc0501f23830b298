"""Suffixes no native parser covers (.epub, .org, .rst) -> blocks, through unstructured.

Why a fallback and not the default: unstructured was measured against the focused parsers
(README, ``bench/bench_unstructured.py``): 5-74x slower, more memory, tables in content
controls missed, and its PDF extra pulls a CUDA torch. For formats the product has no
parser of its own, it is still the quickest honest way in, so ``pip install
"officeqa[unstructured]"`` (epub/org/rst partitioners only: pandoc via pypandoc-binary, no
PDF stack, no torch) registers these suffixes in :data:`indexing.parsing.dispatch.SUPPORTED_SUFFIXES`;
without the extra they stay ``unsupported`` with a message naming it.

Same contract as every parser: it runs in the guarded worker, returns the block model, and
refuses with a kind. unstructured's elements map to blocks: ``Title`` -> heading (level from
``category_depth``), ``ListItem`` runs -> one list, ``Table`` -> table (rows from its
``text_as_html``), ``CodeSnippet`` -> code, ``Header``/``Footer`` -> role header/footer,
everything else with text -> paragraph; ``page_number`` -> page.

Offline: unstructured sends a usage ping on import unless told not to; the documented
opt-outs (``SCARF_NO_ANALYTICS``, ``DO_NOT_TRACK``) are set for this process before the
import. unstructured 0.27 also classifies text with spaCy's ``en_core_web_sm`` and downloads
that model on first use; without it (an offline machine) the file is refused as
``unsupported`` with the command that installs the model, never left hanging.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

from officeqa.domain import Block, BlockRole, BlockType, ParsedDocument
from officeqa.errors import RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

__all__ = ["elements_to_blocks", "parse_with_unstructured"]

_PARAGRAPH_SKIP = {"PageBreak", "Image", "PageNumber"}


def _table_block(element: Any, page: int | None) -> Block:
    html = getattr(element.metadata, "text_as_html", None)
    if html:
        from bs4 import BeautifulSoup

        from indexing.parsing.html import table_grid

        table = BeautifulSoup(html, "lxml").find("table")
        if table is not None:
            header, rows = table_grid(table)
            if header or rows:
                return Block.table(header, rows, page=page)
    return Block(type=BlockType.PARAGRAPH, text=str(element.text or ""), page=page)


def elements_to_blocks(elements: list[Any]) -> list[Block]:
    """Blocks of unstructured's elements (uncleaned)."""
    blocks: list[Block] = []
    items: list[str] = []
    items_page: int | None = None

    def flush() -> None:
        nonlocal items_page
        if items:
            blocks.append(Block(type=BlockType.LIST, text="\n".join(items), items=list(items), page=items_page))
            items.clear()
        items_page = None

    for element in elements:
        category = getattr(element, "category", "") or type(element).__name__
        text = str(getattr(element, "text", "") or "").strip()
        page = getattr(element.metadata, "page_number", None)
        if category == "ListItem" and text:
            if not items:
                items_page = page
            items.append(text)
            continue
        flush()
        if category in _PARAGRAPH_SKIP:
            continue
        if category == "Table":
            blocks.append(_table_block(element, page))
        elif not text:
            continue
        elif category == "Title":
            depth = getattr(element.metadata, "category_depth", None)
            level = depth + 1 if isinstance(depth, int) and depth >= 0 else 1
            blocks.append(Block(type=BlockType.HEADING, text=text, level=min(level, 9), page=page))
        elif category == "CodeSnippet":
            blocks.append(Block(type=BlockType.CODE, text=text, page=page))
        elif category in ("Header", "Footer"):
            role = BlockRole.HEADER if category == "Header" else BlockRole.FOOTER
            blocks.append(Block(type=BlockType.PARAGRAPH, text=text, page=page, role=role))
        else:
            blocks.append(Block(type=BlockType.PARAGRAPH, text=text, page=page))
    flush()
    return blocks


def parse_with_unstructured(path: Path, password: str | None, settings: ParsingSettings) -> ParsedDocument:
    """Parse a file with unstructured's partitioner for its type."""
    del password, settings  # no encryption support, no knobs
    os.environ.setdefault("SCARF_NO_ANALYTICS", "true")
    os.environ.setdefault("DO_NOT_TRACK", "true")
    try:
        from unstructured.partition.auto import partition
    except ImportError as exc:
        hint = f'needs the optional extra: pip install "officeqa[unstructured]" ({exc})'
        raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, hint) from exc
    from unstructured.partition.common import UnsupportedFileFormatError

    try:
        elements = partition(filename=str(path))
    except ImportError as exc:  # a partitioner's own dependency (pandoc ...) is missing
        raise UnreadableDocument(str(path), RefusalKind.UNSUPPORTED, f"unstructured cannot read it: {exc}") from exc
    except UnsupportedFileFormatError as exc:  # the bytes are not the format the suffix names
        raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"unstructured cannot read it: {exc}") from exc
    except RuntimeError as exc:
        if "spaCy model" not in str(exc):
            raise UnreadableDocument(str(path), RefusalKind.CORRUPT, f"unstructured cannot read it: {exc}") from exc
        # unstructured classifies text with spaCy's en_core_web_sm and downloads it on first use
        raise UnreadableDocument(
            str(path),
            RefusalKind.UNSUPPORTED,
            "unstructured needs the spaCy model en_core_web_sm and could not download it (offline); "
            "install it where the product runs (python -m spacy download en_core_web_sm)",
        ) from exc
    except (ValueError, OSError, KeyError, IndexError, zipfile.BadZipFile, UnicodeError) as exc:
        raise UnreadableDocument(
            str(path), RefusalKind.CORRUPT, f"unstructured cannot read it: {type(exc).__name__}: {exc}"
        ) from exc
    blocks = elements_to_blocks(elements)
    title = next((b.text for b in blocks if b.type is BlockType.HEADING), None)
    return ParsedDocument(path=str(path), file_type=path.suffix.lower().lstrip("."), blocks=blocks, title=title)
