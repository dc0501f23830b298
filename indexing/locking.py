"""One writer at a time per knowledge base, across processes; readers are never blocked.

Why a lock file: the stores of a knowledge base (the SQLite registry, the Chroma
collection, the BM25 snapshot and its log) are written by whichever process runs
``index``, ``remove``, ``worker`` or the server. SQLite serialises its own transactions,
but a document's commit spans all stores, and without a lock a ``remove`` during an
``index`` left removed documents in BM25. Writers hold :class:`WriteLock` only around
one document's stage-and-commit (well under a second for a typical file), so a long
``index`` run and a ``remove`` interleave instead of waiting for each other. Readers
(search, ``status``, ``check``) never take it: SQLite WAL, Chroma and the BM25 files are
read as committed snapshots.

The lock is ``filelock.FileLock`` (``flock`` on POSIX): the kernel drops it when the
holder dies, so a SIGKILLed writer never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from types import TracebackType

from filelock import FileLock, Timeout

from officeqa.errors import OfficeQAError

LOCK_NAME = "write.lock"
_HOLDER_NAME = "write.lock.holder"


class WriteLockTimeout(OfficeQAError):
    """Another process held the knowledge base's write lock for too long."""


class WriteLock:
    """Re-entrant (within a thread) cross-process write lock of the knowledge base in ``data_dir``."""

    def __init__(self, data_dir: str | Path, timeout_s: float = 600.0) -> None:
        self.data_dir = Path(data_dir)
        self.timeout_s = timeout_s
        self._lock = FileLock(str(self.data_dir / LOCK_NAME), preserve_lock_file=True)
        self._holder = self.data_dir / _HOLDER_NAME

    @property
    def held(self) -> bool:
        return bool(self._lock.is_locked)

    def acquire(self) -> None:
        first = not self._lock.is_locked
        try:
            self._lock.acquire(timeout=self.timeout_s)
        except Timeout as exc:
            raise WriteLockTimeout(
                f"another process has held the write lock {self.data_dir / LOCK_NAME} for more than "
                f"{self.timeout_s:g} s ({self.holder() or 'holder unknown'}); wait for it or stop it"
            ) from exc
        if first:
            with contextlib.suppress(OSError):  # the holder note is only for the timeout message
                self._holder.write_text(f"pid {os.getpid()}: {' '.join(sys.argv)[:200]} since {time.ctime()}\n")

    def release(self) -> None:
        self._lock.release()

    def holder(self) -> str:
        """Who holds (or last held) the lock, as written by the holder."""
        try:
            return self._holder.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return ""

    def __enter__(self) -> WriteLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


__all__ = ["LOCK_NAME", "WriteLock", "WriteLockTimeout"]
