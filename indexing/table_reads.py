"""The stored tables' catalogue read once per process and file version, not once per question.

Why: a table question opens the table store read-only and asks for its scope's tables; each read ran a query and
parsed every table's column JSON (about 40 ms a question over 16 reports, for the same rows each time). The rows
change only when the file does, so they are kept per process, keyed by the file's path and version (size and
modification time of the DuckDB file and of its write-ahead log: a commit changes one of them), and a changed
version drops the old rows. ``reads`` counts the catalogue reads, so a test can say a second question over the
same tables read nothing (no timing)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["cached_tables", "clear", "reads", "version_of"]

_LOCK = threading.Lock()
#: path -> (version, {doc ids key -> rows}): one version per file, the latest seen
_CACHE: dict[str, tuple[tuple[Any, ...], dict[tuple[str, ...] | None, list[Any]]]] = {}
_READS = [0]


def version_of(path: Path) -> tuple[Any, ...] | None:
    """What changes when the file's contents do (None when it cannot be read: then nothing is cached)."""
    try:
        main = os.stat(path)
    except OSError:
        return None
    try:
        wal = os.stat(f"{path}.wal")
        log: tuple[int, int] | None = (wal.st_mtime_ns, wal.st_size)
    except OSError:
        log = None
    return (main.st_mtime_ns, main.st_size, main.st_ino, log)


def cached_tables(path: Path, key: tuple[str, ...] | None, read: Callable[[], list[Any]]) -> list[Any]:
    """The rows ``read`` returns for ``key`` in this version of ``path``, read once per version."""
    version = version_of(path)
    name = str(path.resolve())
    with _LOCK:
        held = _CACHE.get(name)
        if version is not None and held is not None and held[0] == version and key in held[1]:
            return held[1][key]
    found = read()
    _READS[0] += 1
    if version is not None and version == version_of(path):  # unchanged while reading: the rows are this version's
        with _LOCK:
            held = _CACHE.get(name)
            if held is None or held[0] != version:
                held = (version, {})
                _CACHE[name] = held
            held[1][key] = found
    return found


def reads() -> int:
    """Catalogue reads so far in this process (what the cache saved shows as reads that did not happen)."""
    return _READS[0]


def clear() -> None:
    """Forget every cached catalogue (tests)."""
    with _LOCK:
        _CACHE.clear()

