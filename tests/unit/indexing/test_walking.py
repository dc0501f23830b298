"""Folder walking reports and skips what is not a document, and never stops on one bad entry."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from indexing.walking import NotARegularFile, display_path, file_sha256, walk

SUFFIXES = frozenset({".txt", ".md"})


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a", encoding="utf-8")
    (root / "sub" / "b.md").write_text("b", encoding="utf-8")
    (root / "notes.xyz").write_text("not a supported suffix", encoding="utf-8")
    (root / "~$lock.txt").write_text("office lock file", encoding="utf-8")
    os.mkfifo(root / "pipe.txt")
    (root / "self.txt").symlink_to("self.txt")  # a symlink loop
    (root / "dangling.txt").symlink_to("nowhere.txt")
    (root / "sub" / "up").symlink_to("..")  # a folder loop
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "socket.txt"))
    sock.close()
    if os.geteuid() == 0:  # a character device (only root may create one)
        os.mknod(root / "null.txt", 0o600 | 0o020000, os.makedev(1, 3))
    (root / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"non-UTF-8 name")
    return root


def test_walk_skips_special_files_and_loops_with_reasons(tree: Path) -> None:
    result = walk([tree], SUFFIXES)
    names = [os.path.relpath(p, tree) for p in result.files]
    assert names == ["a.txt", os.fsdecode(b"caf\xe9.txt"), "sub/b.md"]
    reasons = {os.path.relpath(s.path, tree): s.reason for s in result.skipped}
    assert reasons["pipe.txt"] == "a FIFO (named pipe), not a document"
    assert reasons["socket.txt"] == "a socket, not a document"
    assert reasons["self.txt"] == "symlink loop"
    assert reasons["dangling.txt"] == "broken symlink"
    assert reasons["sub/up"] == "symlink loop (the folder is already walked)"
    if os.geteuid() == 0:
        assert reasons["null.txt"] == "a character device, not a document"
    assert result.folders == [str(tree)] and result.missing == []


def test_named_arguments_missing_special_or_any_suffix(tree: Path) -> None:
    result = walk([tree / "notes.xyz", tree / "pipe.txt", tree / "nope.txt", tree / "self.txt"], SUFFIXES)
    assert [Path(p).name for p in result.files] == ["notes.xyz"]  # named explicitly: kept, the parser refuses it
    assert result.missing == [str(tree / "nope.txt")]
    assert sorted(Path(s.path).name for s in result.skipped) == ["pipe.txt", "self.txt"]


def test_excluded_files_are_skipped_in_folders_but_not_when_named(tree: Path) -> None:
    excluded = {str(tree / "a.txt")}
    in_folder = walk([tree], SUFFIXES, excluded=excluded.__contains__)
    assert str(tree / "a.txt") not in in_folder.files and in_folder.excluded == [str(tree / "a.txt")]
    assert walk([tree / "a.txt"], SUFFIXES, excluded=excluded.__contains__).files == [str(tree / "a.txt")]


def test_non_utf8_names_round_trip_and_display_escaped(tree: Path) -> None:
    name = next(p for p in walk([tree], SUFFIXES).files if "caf" in p)
    assert os.fsencode(name).endswith(b"caf\xe9.txt")  # the exact bytes come back
    assert display_path(name).endswith("caf\\xe9.txt")
    display_path(name).encode("utf-8")  # printable on a UTF-8 terminal
    assert file_sha256(name)[1].st_size == len(b"non-UTF-8 name")


def test_hashing_refuses_a_fifo_instead_of_hanging(tree: Path) -> None:
    with pytest.raises(NotARegularFile, match="FIFO"):
        file_sha256(tree / "pipe.txt")  # opened non-blocking: returns at once with no writer
    digest, st = file_sha256(tree / "a.txt")
    assert len(digest) == 64 and st.st_size == 1
