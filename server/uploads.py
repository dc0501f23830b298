"""Uploaded files: checked, then stored inside a knowledge base's ``uploads`` folder, or refused whole.

The rules, and why:

* The client's file name is a claim, not a path. Browsers and httpx send ``"`` and control
  characters percent-encoded (``%22``, ``%00``, ``%0A``); those escapes are decoded first, so a
  NUL or newline is seen for what it is. A name holding a path separator
  (``../../x.docx``), a control character (NUL, newline), a Windows-reserved character, a
  leading dot (hidden and Office lock files) or more than 200 bytes is refused — not silently
  rewritten, so the user learns which file was wrong. Names are NFC-normalised (a macOS
  client sends decomposed Chinese/accented names). The final path is checked to sit directly
  in the uploads folder before anything is written.
* Unsupported types (by suffix), empty files and files above ``server.max_upload_mb`` are
  refused before they are stored.
* Zip-based formats (docx, xlsx, pptx, ...) are opened and their declared uncompressed sizes
  summed: a zip bomb (above ``server.max_unpacked_mb`` in total, or a compression ratio above
  ``server.max_zip_ratio`` once past 10 MiB, or more than 20,000 members) is refused here, so
  no worker ever inflates it. Python's zipfile stops reading at a member's declared size, so
  the declared sizes are the ones that count. A damaged zip is left to the parser, which
  refuses it as ``corrupt`` with a reason the documents page shows.
* All or nothing: files are first written to hidden temporary files in the uploads folder
  (hashing as they go: the sha256 is the document id the registry will use), and renamed into
  place only when every file of the request passed; otherwise every temporary file is removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import unicodedata
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from officeqa.errors import UploadRejected
from officeqa.settings import ServerSettings

MIB = 1 << 20
MAX_NAME_BYTES = 200
MAX_ZIP_MEMBERS = 20_000
RATIO_CHECK_FROM = 10 * MIB
ZIP_MAGIC = b"PK\x03\x04"
_RESERVED = set('<>:"|?*')
_FORM_ESCAPES = re.compile(r"%([01][0-9A-Fa-f]|22|7[Ff])")
_BLOCK = 1 << 20


@dataclass(slots=True)
class UploadLimits:
    """The limits of one upload request, from :class:`ServerSettings`."""

    max_bytes: int
    max_files: int
    max_unpacked_bytes: int
    max_zip_ratio: float

    @classmethod
    def from_settings(cls, server: ServerSettings) -> UploadLimits:
        return cls(
            max_bytes=int(server.max_upload_mb * MIB),
            max_files=server.max_upload_files,
            max_unpacked_bytes=int(server.max_unpacked_mb * MIB),
            max_zip_ratio=server.max_zip_ratio,
        )


@dataclass(slots=True)
class StoredUpload:
    """A file stored in the uploads folder: its name, path, size and content hash (the document id)."""

    name: str
    path: Path
    size: int
    sha256: str


def _shown(raw: str) -> str:
    """The name as it may appear in an error message (control characters made visible)."""
    return raw.encode("unicode_escape").decode("ascii", "replace")[:120] if raw else "(no name)"


def form_name(raw: str | None) -> str:
    """The file name a client meant: browsers (WHATWG) and httpx percent-encode ``"`` and control
    characters (NUL, CR, LF...) in a multipart file name; decode exactly those so they can be refused."""
    return _FORM_ESCAPES.sub(lambda m: chr(int(m.group(1), 16)), raw or "")


def clean_name(raw: str | None, suffixes: frozenset[str]) -> str:
    """The file name to store ``raw`` under, or :class:`UploadRejected` saying what is wrong with it."""
    raw = form_name(raw)
    shown = _shown(raw)
    if not raw.strip():
        raise UploadRejected(shown, "bad_name", "the file has no name")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in raw):
        raise UploadRejected(shown, "bad_name", "the name contains a control character (NUL, newline, ...)")
    if "/" in raw or "\\" in raw:
        raise UploadRejected(shown, "bad_name", "the name contains a path separator; send the bare file name")
    name = unicodedata.normalize("NFC", raw).strip()
    if name in (".", "..") or name.startswith((".", "~$")):
        raise UploadRejected(shown, "bad_name", "hidden files and Office lock files (~$) are not documents")
    if _RESERVED & set(name):
        raise UploadRejected(shown, "bad_name", 'the name contains one of < > : " | ? *')
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise UploadRejected(shown, "bad_name", f"the name is longer than {MAX_NAME_BYTES} bytes")
    suffix = Path(name).suffix.lower()
    if suffix not in suffixes:
        raise UploadRejected(
            name, "unsupported", f"unsupported file type {suffix or '(no suffix)'!r}; supported: "
            + ", ".join(sorted(suffixes))
        )
    return name


def _copy(source: BinaryIO, target: BinaryIO, name: str, limit: int) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    while block := source.read(_BLOCK):
        size += len(block)
        if size > limit:
            raise UploadRejected(name, "too_large", f"larger than the upload limit of {limit / MIB:g} MiB")
        digest.update(block)
        target.write(block)
    if size == 0:
        raise UploadRejected(name, "empty", "the file is empty")
    return size, digest.hexdigest()


def check_zip(path: Path, name: str, size: int, limits: UploadLimits) -> None:
    """Refuse a zip bomb by the sizes its members declare (see the module docstring)."""
    with path.open("rb") as fh:
        if fh.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
            return
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        return  # damaged: the parser refuses it as corrupt, with its own reason
    if len(members) > MAX_ZIP_MEMBERS:
        raise UploadRejected(name, "too_large", f"zip container with {len(members)} members (at most "
                                                f"{MAX_ZIP_MEMBERS})")
    unpacked = sum(m.file_size for m in members)
    if unpacked > limits.max_unpacked_bytes:
        raise UploadRejected(name, "too_large", f"unpacks to {unpacked / MIB:.0f} MiB (zip bomb?); at most "
                                                f"{limits.max_unpacked_bytes / MIB:g} MiB")
    if unpacked > RATIO_CHECK_FROM and unpacked / max(size, 1) > limits.max_zip_ratio:
        raise UploadRejected(name, "too_large", f"compression ratio {unpacked / max(size, 1):.0f}:1 (zip bomb?); "
                                                f"at most {limits.max_zip_ratio:g}:1")


def store_uploads(
    files: Sequence[tuple[str | None, BinaryIO]], folder: Path, limits: UploadLimits, suffixes: frozenset[str]
) -> list[StoredUpload]:
    """Check and store ``(client file name, stream)`` pairs in ``folder``; all of them, or none (UploadRejected)."""
    if not files:
        raise UploadRejected("(none)", "empty", "no file in the request: send one or more multipart fields 'files'")
    if len(files) > limits.max_files:
        raise UploadRejected(f"{len(files)} files", "too_many_files",
                             f"{len(files)} files in one request; at most {limits.max_files}")
    problems: list[UploadRejected] = []
    names: list[str] = []
    for raw, _ in files:
        try:
            name = clean_name(raw, suffixes)
        except UploadRejected as exc:
            problems.append(exc)
            continue
        if name.casefold() in {n.casefold() for n in names}:
            problems.append(UploadRejected(name, "bad_name", "the same file name twice in one upload"))
        names.append(name)
    if problems:
        raise UploadRejected.of(problems)

    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    staged: list[tuple[str, Path, int, str]] = []
    try:
        for name, (_, stream) in zip(names, files, strict=True):
            target = root / name
            if target.parent != root:  # belt and braces: clean_name already refused separators
                raise UploadRejected(name, "bad_name", "the name leaves the uploads folder")
            fd, tmp = tempfile.mkstemp(dir=root, prefix=".upload-", suffix=".part")
            staged.append((name, Path(tmp), 0, ""))
            try:
                with os.fdopen(fd, "wb") as out:
                    size, digest = _copy(stream, out, name, limits.max_bytes)
                check_zip(Path(tmp), name, size, limits)
            except UploadRejected as exc:
                problems.append(exc)
                continue
            staged[-1] = (name, Path(tmp), size, digest)
        if problems:
            raise UploadRejected.of(problems)
        for name, *_ in staged:
            final = root / name
            if final.is_symlink() or (final.exists() and not final.is_file()):
                problems.append(UploadRejected(name, "bad_name", "a non-file of that name is in the uploads folder"))
        if problems:
            raise UploadRejected.of(problems)
        stored = []
        for name, tmp, size, digest in staged:
            final = root / name
            os.replace(tmp, final)
            stored.append(StoredUpload(name, final, size, digest))
        staged = []
        return stored
    finally:
        for _, tmp, _, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()


__all__ = ["StoredUpload", "UploadLimits", "check_zip", "clean_name", "form_name", "store_uploads"]
