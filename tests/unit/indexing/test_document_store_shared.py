"""A stored parsed document is decoded once per process, however many handles and threads read it (issue 38).

Why: each answer thread of the server opens its own knowledge-base handle; each decoded every report it read
(zlib, JSON, blocks), eight times over after a start. The test counts decodings; it times nothing.
"""

from __future__ import annotations

import threading
from pathlib import Path

from indexing import document_store
from indexing.document_store import DocumentStore
from indexing.registry import Registry
from officeqa.domain import Block, BlockType, ParsedDocument


def _document(text: str) -> ParsedDocument:
    return ParsedDocument(path="/r/report.pdf", file_type="pdf", blocks=[Block(type=BlockType.PARAGRAPH, text=text)])


def test_one_decoding_for_every_handle_and_thread(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry.sqlite3")
    with registry.transaction():
        DocumentStore(registry).put("doc1", _document("Revenue rose 5%."))
    registry.close()
    before = document_store.decoded
    texts: list[str] = []

    def read() -> None:  # a handle of the thread's own, as an answer thread has
        own = Registry(tmp_path / "registry.sqlite3")
        document = DocumentStore(own).get("doc1")
        assert document is not None
        texts.append(document.blocks[0].text)
        own.close()

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert texts == ["Revenue rose 5%."] * 8
    assert document_store.decoded - before == 1


def test_a_form_stored_again_is_decoded_afresh(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "registry.sqlite3")
    with registry.transaction():
        DocumentStore(registry).put("doc1", _document("first parse"))
    assert DocumentStore(registry).get("doc1").blocks[0].text == "first parse"
    with registry.transaction():
        DocumentStore(registry).put("doc1", _document("parsed again"))
    assert DocumentStore(registry).get("doc1").blocks[0].text == "parsed again"
