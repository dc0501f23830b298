"""Turn the paths a user names into the regular files to index, without ever stopping on a bad entry.

Why not ``os.walk`` + ``Path.is_file``: a folder on a shared drive holds things that are
not documents and that break naive code. A FIFO named ``report.txt`` blocks the process
that opens it; a symlink loop makes ``Path.resolve`` raise; a file name that is not UTF-8
(copied from an old GBK share) cannot be encoded for SQLite or printed to a UTF-8
terminal; a folder without read permission makes ``os.scandir`` raise. Here every entry is
classified from one ``lstat``/``stat`` and anything that is not a regular file or folder is
reported with the reason and skipped; the walk goes on.

Paths stay ``str`` as the OS gave them (undecodable bytes are ``surrogateescape``d, which
round-trips exactly to the file); :func:`display_path` shows them escaped, and the
registry stores them losslessly (see :mod:`indexing.registry`). Hashing opens files
non-blocking and refuses anything that is not a regular file, so a FIFO that appears
between the walk and the hash cannot hang the run either.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

_HASH_BLOCK = 1 << 20


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` printable on any terminal: bytes that are not UTF-8 shown as ``\\xNN``."""
    return os.fspath(path).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def is_junk(name: str) -> bool:
    """Office lock files (``~$x.docx``) and hidden files are never documents."""
    return name.startswith(("~$", "."))


@dataclass(slots=True)
class Skipped:
    """An entry the walk did not index, and why (shown to the user, never fatal)."""

    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": display_path(self.path), "reason": self.reason}


@dataclass(slots=True)
class WalkResult:
    """Files to index (sorted, unique), folders walked, arguments that do not exist, entries skipped."""

    files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def _stat_reason(exc: OSError, is_link: bool) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if is_link and exc.errno == errno.ENOENT:
        return "broken symlink"
    return f"unreadable: {exc.strerror or exc}"


def absolute(raw: str | os.PathLike[str]) -> str:
    """The absolute, symlink-resolved path (``os.path.realpath`` never raises on a loop, ``Path.resolve`` does)."""
    return os.path.realpath(os.path.expanduser(os.fspath(raw)))


class _Walker:
    def __init__(self, suffixes: frozenset[str], excluded: Callable[[str], bool] | None) -> None:
        self.suffixes = suffixes
        self.excluded = excluded or (lambda _path: False)
        self.result = WalkResult()
        self.files: dict[str, None] = {}
        self.visited: set[tuple[int, int]] = set()

    def add_argument(self, raw: str | os.PathLike[str]) -> None:
        path = absolute(raw)
        try:
            st = os.stat(path)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR) and not os.path.islink(path):
                self.result.missing.append(os.fspath(raw))
            else:
                self.result.skipped.append(Skipped(path, _stat_reason(exc, os.path.islink(path))))
            return
        if stat.S_ISDIR(st.st_mode):
            self.result.folders.append(path)
            self.visited.add((st.st_dev, st.st_ino))
            self._walk(path)
        elif stat.S_ISREG(st.st_mode):
            self.files.setdefault(path)  # named explicitly: kept whatever its suffix or exclusion
        else:
            self.result.skipped.append(Skipped(path, f"{_kind_of(st.st_mode)}, not a document"))

    def _walk(self, root: str) -> None:
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.result.skipped.append(Skipped(folder, f"unreadable folder: {exc.strerror or exc}"))
                continue
            subfolders = []
            for entry in entries:
                sub = self._entry(entry)
                if sub is not None:
                    subfolders.append(sub)
            stack.extend(reversed(subfolders))

    def _entry(self, entry: os.DirEntry[str]) -> str | None:
        """Classify one directory entry; returns a folder to descend into, else None."""
        if is_junk(entry.name):
            return None
        try:
            is_link = entry.is_symlink()
            st = os.stat(entry.path) if is_link else entry.stat(follow_symlinks=False)
        except OSError as exc:
            self.result.skipped.append(Skipped(entry.path, _stat_reason(exc, is_link=os.path.islink(entry.path))))
            return None
        if stat.S_ISDIR(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key in self.visited:
                if is_link:
                    self.result.skipped.append(Skipped(entry.path, "symlink loop (the folder is already walked)"))
                return None
            self.visited.add(key)
            return entry.path
        if not stat.S_ISREG(st.st_mode):
            self.result.skipped.append(Skipped(entry.path, f"{_kind_of(st.st_mode)}, not a document"))
            return None
        if os.path.splitext(entry.name)[1].lower() not in self.suffixes:
            return None
        if self.excluded(entry.path):
            self.result.excluded.append(entry.path)
            return None
        self.files.setdefault(entry.path)
        return None


def walk(
    paths: Iterable[str | os.PathLike[str]],
    suffixes: frozenset[str],
    excluded: Callable[[str], bool] | None = None,
) -> WalkResult:
    """Files under ``paths`` (folders recursively) whose suffix is in ``suffixes``.

    A file named explicitly is kept whatever its suffix (the parser then refuses an
    unsupported one with a reason) and whatever ``excluded`` says (naming a file lifts
    its exclusion); files found in folders are filtered by suffix and by ``excluded``.
    Symlinks are followed, folders at most once (a loop is reported, not walked twice).
    """
    walker = _Walker(suffixes, excluded)
    for raw in paths:
        walker.add_argument(raw)
    walker.result.files = sorted(walker.files)
    return walker.result


class NotARegularFile(OSError):
    """Raised by :func:`file_sha256` for FIFOs, sockets, devices and folders."""


def file_sha256(path: str | Path) -> tuple[str, os.stat_result]:
    """(sha256 hex, stat) of a regular file; never blocks on a FIFO (opened non-blocking, checked first)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(errno.EINVAL, f"{_kind_of(st.st_mode)}, not a document", os.fspath(path))
        digest = hashlib.sha256()
        with os.fdopen(fd, "rb", closefd=False) as fh:
            while block := fh.read(_HASH_BLOCK):
                digest.update(block)
        return digest.hexdigest(), st
    finally:
        os.close(fd)


__all__ = [
    "NotARegularFile",
    "Skipped",
    "WalkResult",
    "absolute",
    "display_path",
    "file_sha256",
    "is_junk",
    "walk",
]
