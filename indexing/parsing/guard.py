"""Parse files in a worker process so one bad file cannot hang or crash a batch.

A malformed PDF can send a parser into a loop, and a native library (pdfium,
onnxruntime) can crash the interpreter outright. The batch indexer therefore parses
through :class:`GuardedParser`: one long-lived worker process (started lazily, with the
"spawn" method so it never inherits the parent's threads, Chroma clients or model
weights), a per-file time limit from ``ParsingSettings.timeout_s``, and a fresh worker
after a timeout or a crash. The refusal names the file and says which limit was hit.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType

from officeqa.domain import ParsedDocument
from officeqa.errors import OfficeQAError, RefusalKind, UnreadableDocument
from officeqa.settings import ParsingSettings

_STARTUP_TIMEOUT_S = 120.0


def _worker_loop(conn: Connection, settings: ParsingSettings) -> None:
    """Runs in the worker: parse each requested path, send back the document or the refusal."""
    from indexing.parsing.dispatch import parse_file

    conn.send(("ready", None))  # imports done: the parent starts each file's clock only now
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        path, password = request
        try:
            conn.send(("ok", parse_file(path, password=password, settings=settings)))
        except UnreadableDocument as exc:
            conn.send(("refused", (exc.path, exc.kind.value, exc.message)))
        except Exception as exc:  # noqa: BLE001 - the worker's only job is to report, not hide: type and text go back
            conn.send(("refused", (str(path), RefusalKind.CORRUPT.value, f"parser error {type(exc).__name__}: {exc}")))


class GuardedParser:
    """Parse files one at a time in a supervised worker process with a time limit."""

    def __init__(self, settings: ParsingSettings | None = None) -> None:
        self._settings = settings or ParsingSettings()
        self._context = mp.get_context("spawn")
        self._process: mp.process.BaseProcess | None = None
        self._conn: Connection | None = None

    def _ensure_worker(self) -> Connection:
        if self._process is None or not self._process.is_alive() or self._conn is None:
            parent, child = self._context.Pipe()
            self._process = self._context.Process(
                target=_worker_loop, args=(child, self._settings), name="officeqa-parser", daemon=True
            )
            self._process.start()
            child.close()
            self._conn = parent
            if not parent.poll(_STARTUP_TIMEOUT_S):
                self._kill_worker()
                raise OfficeQAError(f"the parse worker did not start within {_STARTUP_TIMEOUT_S:g} s")
            parent.recv()
        return self._conn

    def _kill_worker(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._process = None
        self._conn = None

    def parse(self, path: str | Path, password: str | None = None) -> ParsedDocument:
        """Parse ``path``; raise UnreadableDocument (kind timeout/corrupt/...) on failure."""
        conn = self._ensure_worker()
        conn.send((str(path), password))
        timeout = self._settings.timeout_s
        try:
            ready = conn.poll(timeout)
        except (EOFError, OSError):
            ready = True
        if not ready:
            self._kill_worker()
            raise UnreadableDocument(
                str(path), RefusalKind.TIMEOUT, f"parsing took longer than {timeout:g} s (parsing.timeout_s)"
            )
        try:
            status, payload = conn.recv()
        except (EOFError, OSError) as exc:
            code = self._process.exitcode if self._process is not None else None
            self._kill_worker()
            raise UnreadableDocument(
                str(path), RefusalKind.CORRUPT, f"the parser crashed on this file (worker exit code {code})"
            ) from exc
        if status == "ok":
            return payload
        file, kind, message = payload
        raise UnreadableDocument(file, RefusalKind(kind), message)

    def close(self) -> None:
        """Stop the worker (politely, then firmly)."""
        if self._conn is not None and self._process is not None and self._process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(None)
            self._process.join(timeout=2)
        self._kill_worker()

    def __enter__(self) -> GuardedParser:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
