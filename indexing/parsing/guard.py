"""Parse (and chunk) files in a worker process with a time limit and a memory cap.

A malformed PDF can send a parser into a loop, a zip bomb or one huge spreadsheet cell can
ask for gigabytes, and a native library (pdfium, onnxruntime, calamine) can crash the
interpreter outright. Every untrusted step -- parsing, OCR, cleaning and, through
:meth:`GuardedParser.parse_and_chunk`, chunking -- therefore runs in one long-lived worker
process (started lazily, with the "spawn" method so it never inherits the parent's threads,
Chroma clients or model weights), and the batch indexer, ``officeqa parse`` and ``officeqa
chunk`` all go through it. Limits, each refused with the setting that raises it:

* time: ``parsing.timeout_s`` per file, owned by the parent (it kills the worker); ``timeout``.
* memory: the worker's address space is capped with ``RLIMIT_AS`` at ``parsing.max_memory_mb``
  (set in the worker before it imports any parser). An allocation above the cap fails inside
  the worker: Python and numpy raise ``MemoryError``, which the worker reports and then exits
  (a fresh worker takes the next file, so fragmentation never carries over), and so does any
  other error raised once the worker's peak address space is within 10% of the cap (libxml2
  reports a failed allocation as "XMLSyntaxError: unknown error"); Rust and C++
  libraries abort the process instead, which the parent recognises from the worker's stderr
  ("memory allocation ... failed") or from the worker's peak address space (``VmPeak``, read
  while it waits) having reached the cap. Both are ``too_large``.
* crash: any other death of the worker is ``corrupt``, with its exit code or signal.

Address space is not resident memory: glibc gives every thread that allocates its own 64 MB
arena, and onnxruntime/pdfium reserve more than they touch, so the cap is set from measurement
(``bench/bench_hostile.py --corpus`` prints each corpus file's peak; the README gives the
numbers). The worker limits glibc to two arenas (``mallopt(M_ARENA_MAX, 2)``) so that the
address space it needs does not grow with the number of CPU cores.

The worker's stderr goes to a temporary file (native libraries print there): its tail is read
to classify a crash and quoted in the refusal, and the user's terminal stays clean.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import signal
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from officeqa.domain import ParsedDocument
from officeqa.errors import OfficeQAError, RefusalKind, UnreadableDocument
from officeqa.settings import ChunkingSettings, ParsingSettings

if TYPE_CHECKING:
    from indexing.chunking import ChunkingResult

__all__ = ["GuardedParser", "memory_refusal"]

_STARTUP_TIMEOUT_S = 120.0
_POLL_S = 0.1  # how often the parent samples the worker's peak address space while it waits
_NEAR_CAP = 0.9  # a crash after the worker's peak address space reached this share of the cap is "too_large"
_M_ARENA_MAX = -8  # mallopt parameter number (glibc malloc.h)
_OOM_MARKERS = ("memory allocation of", "bad_alloc", "out of memory", "Cannot allocate memory", "MemoryError")
_STDERR_TAIL = 4096


def memory_refusal(path: str, cap_mb: int) -> UnreadableDocument:
    """The ``too_large`` refusal of a file that needs more memory than the worker may use."""
    return UnreadableDocument(
        str(path),
        RefusalKind.TOO_LARGE,
        f"reading it needs more than the {cap_mb} MB memory cap; raise parsing.max_memory_mb to allow more",
    )


# ---------------------------------------------------------------- the worker process


def _limit_worker(settings: ParsingSettings, stderr_path: str) -> None:
    """Runs first in the worker: stderr to the log file, fewer malloc arenas, the address-space cap."""
    with contextlib.suppress(OSError):
        fd = os.open(stderr_path, os.O_WRONLY | os.O_APPEND)
        os.dup2(fd, 2)
        os.close(fd)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, 2)  # glibc only; elsewhere the cap just needs more headroom
    if settings.max_memory_mb > 0:
        import resource

        cap = settings.max_memory_mb * 1024 * 1024
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _worker_loop(conn: Connection, settings: ParsingSettings, stderr_path: str) -> None:
    """Runs in the worker: handle each request, send back the result or the refusal."""
    _limit_worker(settings, stderr_path)
    from indexing.parsing.dispatch import parse_file

    conn.send(("ready", None, False))  # imports done: the parent starts each file's clock only now
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        path, password, chunking, doc_id = request
        reply: tuple[str, Any]
        out_of_memory = False
        try:
            document = parse_file(path, password=password, settings=settings)
            if chunking is None:
                reply = ("ok", document)
            else:
                from indexing.chunking import chunk_document

                reply = ("ok", (document, chunk_document(document, chunking, doc_id=doc_id)))
        except UnreadableDocument as exc:
            reply = ("refused", (exc.path, exc.kind.value, exc.message))
            out_of_memory = exc.kind is RefusalKind.CORRUPT and _near_cap(settings)
        except MemoryError:
            out_of_memory = True  # the reply is built outside the handler: its traceback holds the big objects
            reply = ("refused", ())
        except Exception as exc:  # noqa: BLE001 - the worker's only job is to report, not hide: type and text go back
            reply = ("refused", (str(path), RefusalKind.CORRUPT.value, f"parser error {type(exc).__name__}: {exc}"))
            out_of_memory = _near_cap(settings)  # libxml2 reports a failed malloc as "XMLSyntaxError: unknown error"
        if out_of_memory:
            refusal = memory_refusal(path, settings.max_memory_mb)
            reply = ("refused", (refusal.path, refusal.kind.value, refusal.message))
        conn.send((*reply, out_of_memory))  # the last item says whether this worker now exits
        if out_of_memory:
            return  # a fresh worker takes the next file: no fragmented heap near the cap


def _near_cap(settings: ParsingSettings) -> bool:
    """Whether this process's peak address space came close to the cap (an allocation likely failed)."""
    cap = settings.max_memory_mb * 1024 * 1024
    return cap > 0 and _vm_peak_bytes(os.getpid()) >= _NEAR_CAP * cap


# ---------------------------------------------------------------- the parent side


def _vm_peak_bytes(pid: int) -> int:
    """The process's peak virtual memory (VmPeak), 0 when unknown (not Linux, or already gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def _signal_name(code: int | None) -> str:
    if code is None or code >= 0:
        return f"exit code {code}"
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


class GuardedParser:
    """Parse (and chunk) files one at a time in a supervised worker process with time and memory limits."""

    def __init__(self, settings: ParsingSettings | None = None) -> None:
        self._settings = settings or ParsingSettings()
        self._context = mp.get_context("spawn")
        self._process: mp.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self._stderr_path: str | None = None
        self._peak = 0

    # ---- public interface
    def parse(self, path: str | Path, password: str | None = None) -> ParsedDocument:
        """Parse ``path``; raise UnreadableDocument (kind timeout/too_large/corrupt/...) on failure."""
        return self._request(path, password, None, None)

    def parse_and_chunk(
        self,
        path: str | Path,
        chunking: ChunkingSettings,
        password: str | None = None,
        doc_id: str | None = None,
    ) -> tuple[ParsedDocument, ChunkingResult]:
        """Parse and chunk ``path`` in the worker, under the same limits (the time limit covers both)."""
        return self._request(path, password, chunking, doc_id)

    def close(self) -> None:
        """Stop the worker (politely, then firmly) and remove its stderr log."""
        if self._conn is not None and self._process is not None and self._process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                self._conn.send(None)
            self._process.join(timeout=2)
        self._kill_worker()
        if self._stderr_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._stderr_path)
            self._stderr_path = None

    def __enter__(self) -> GuardedParser:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ---- the worker
    def _ensure_worker(self) -> Connection:
        if self._process is None or not self._process.is_alive() or self._conn is None:
            self._kill_worker()
            if self._stderr_path is None:
                fd, self._stderr_path = tempfile.mkstemp(prefix="officeqa-parser-", suffix=".log")
                os.close(fd)
            parent, child = self._context.Pipe()
            self._process = self._context.Process(
                target=_worker_loop,
                args=(child, self._settings, self._stderr_path),
                name="officeqa-parser",
                daemon=True,
            )
            self._process.start()
            child.close()
            self._conn = parent
            self._peak = 0
            try:
                started = parent.poll(_STARTUP_TIMEOUT_S)
                if started:
                    parent.recv()
            except (EOFError, OSError):
                started = False
            if not started:
                code = self._process.exitcode
                self._kill_worker()
                cap = self._settings.max_memory_mb
                raise OfficeQAError(
                    f"the parse worker did not start ({_signal_name(code)}; {self._stderr_tail() or 'no output'})"
                    + (f"; is parsing.max_memory_mb={cap} too low?" if cap else "")
                )
        return self._conn

    def _kill_worker(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(timeout=5)
        if self._conn is not None:
            self._conn.close()
        self._process = None
        self._conn = None

    def _stderr_tail(self) -> str:
        """The last line(s) the worker wrote to stderr, on one line."""
        if self._stderr_path is None:
            return ""
        try:
            with open(self._stderr_path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - _STDERR_TAIL))
                tail = fh.read().decode("utf-8", "replace")
        except OSError:
            return ""
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        return " | ".join(lines[-2:])

    def _mark_stderr(self) -> int:
        """Current size of the worker's stderr log (what a crash wrote comes after it)."""
        try:
            return os.path.getsize(self._stderr_path) if self._stderr_path else 0
        except OSError:
            return 0

    def _wait(self, conn: Connection, timeout: float) -> bool:
        """Wait for a reply (True) or the timeout (False), sampling the worker's peak address space."""
        deadline = time.monotonic() + timeout
        pid = self._process.pid if self._process is not None else None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                if conn.poll(min(remaining, _POLL_S)):
                    return True
            except (EOFError, OSError):
                return True
            if pid is not None:
                self._peak = max(self._peak, _vm_peak_bytes(pid))

    def _request(self, path: str | Path, password: str | None, chunking: ChunkingSettings | None, doc_id: str | None):
        conn = self._ensure_worker()
        mark = self._mark_stderr()
        try:
            conn.send((str(path), password, chunking, doc_id))
        except (BrokenPipeError, OSError):
            self._kill_worker()
            conn = self._ensure_worker()
            conn.send((str(path), password, chunking, doc_id))
        timeout = self._settings.timeout_s
        if not self._wait(conn, timeout):
            self._kill_worker()
            raise UnreadableDocument(
                str(path),
                RefusalKind.TIMEOUT,
                f"parsing took longer than {timeout:g} s; raise parsing.timeout_s to allow more",
            )
        try:
            status, payload, exiting = conn.recv()
        except (EOFError, OSError) as exc:
            raise self._crash_refusal(str(path), mark) from exc
        if status == "ok":
            return payload
        file, kind, message = payload
        if exiting and self._process is not None:
            self._process.join(timeout=5)  # it ran out of memory and exits; the next file gets a fresh worker
        raise UnreadableDocument(file, RefusalKind(kind), message)

    def _crash_refusal(self, path: str, mark: int) -> UnreadableDocument:
        """The worker died mid-file: too_large when it ran out of memory, corrupt otherwise."""
        process = self._process
        if process is not None:
            process.join(timeout=5)
        code = process.exitcode if process is not None else None
        peak = self._peak
        self._kill_worker()
        said = ""
        if self._stderr_path is not None:
            with contextlib.suppress(OSError), open(self._stderr_path, "rb") as fh:
                fh.seek(mark)
                said = fh.read()[-_STDERR_TAIL:].decode("utf-8", "replace")
        cap_mb = self._settings.max_memory_mb
        near_cap = cap_mb > 0 and peak >= _NEAR_CAP * cap_mb * 1024 * 1024
        if cap_mb > 0 and (near_cap or any(marker in said for marker in _OOM_MARKERS)):
            return memory_refusal(path, cap_mb)
        last = " | ".join(line.strip() for line in said.splitlines()[-2:] if line.strip())
        return UnreadableDocument(
            path,
            RefusalKind.CORRUPT,
            f"the parser crashed on this file ({_signal_name(code)})" + (f": {last[:300]}" if last else ""),
            crash=_signal_name(code),
        )
