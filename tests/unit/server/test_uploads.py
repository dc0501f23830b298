"""Upload checks on real files in a temporary folder: names, sizes, zip bombs, all-or-nothing storage."""

from __future__ import annotations

import hashlib
import io
import unicodedata
import zipfile
from pathlib import Path

import pytest

from officeqa.errors import UploadRejected
from server.uploads import UploadLimits, clean_name, form_name, store_uploads

SUFFIXES = frozenset({".docx", ".txt", ".md", ".xlsx"})
LIMITS = UploadLimits(max_bytes=1000, max_files=3, max_unpacked_bytes=50_000, max_zip_ratio=100)


@pytest.mark.parametrize(
    ("raw", "kind"),
    [("", "bad_name"), ("   ", "bad_name"), ("a/b.txt", "bad_name"), ("..\\b.txt", "bad_name"),
     ("a\x00.txt", "bad_name"), ("a%00.txt", "bad_name"), ("a%0A.txt", "bad_name"), ("a\u202e.txt", "bad_name"),
     ("..", "bad_name"), (".env", "bad_name"), ("~$lock.docx", "bad_name"), ("a|b.txt", "bad_name"),
     ('say%22hi%22.txt', "bad_name"), ("长" * 70 + ".txt", "bad_name"), ("x.exe", "unsupported"),
     ("noext", "unsupported")],
)
def test_bad_names_are_refused_with_a_kind(raw: str, kind: str) -> None:
    with pytest.raises(UploadRejected) as caught:
        clean_name(raw, SUFFIXES)
    assert caught.value.kind == kind and caught.value.message
    assert "\x00" not in caught.value.file and "\n" not in caught.value.file  # the message stays one line


def test_good_names_are_kept_and_normalised() -> None:
    decomposed = unicodedata.normalize("NFD", "Résumé 简历 (2024).docx")
    assert clean_name(decomposed, SUFFIXES) == unicodedata.normalize("NFC", "Résumé 简历 (2024).docx")
    assert clean_name("report%20final.TXT", SUFFIXES) == "report%20final.TXT"  # only encoded controls decode
    assert form_name("a%0Ab") == "a\nb"


def test_everything_or_nothing_is_stored(tmp_path: Path) -> None:
    folder = tmp_path / "uploads"
    with pytest.raises(UploadRejected) as caught:
        store_uploads([("a.txt", io.BytesIO(b"fine")), ("b.txt", io.BytesIO(b"x" * 1001))], folder, LIMITS, SUFFIXES)
    assert [p.file for p in caught.value.problems] == ["b.txt"] and caught.value.kind == "too_large"
    assert list(folder.iterdir()) == []  # no partial or temporary file
    stored = store_uploads([("a.txt", io.BytesIO(b"fine")), ("b.md", io.BytesIO(b"# ok"))], folder, LIMITS, SUFFIXES)
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt", "b.md"]
    assert stored[0].sha256 == hashlib.sha256(b"fine").hexdigest()  # the registry's document id
    assert stored[0].size == 4


def test_same_name_twice_and_too_many_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadRejected, match="twice"):
        store_uploads([("a.txt", io.BytesIO(b"1")), ("A.TXT", io.BytesIO(b"2"))], tmp_path, LIMITS, SUFFIXES)
    with pytest.raises(UploadRejected) as caught:
        store_uploads([(f"{i}.txt", io.BytesIO(b"1")) for i in range(4)], tmp_path, LIMITS, SUFFIXES)
    assert caught.value.kind == "too_many_files"


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_zip_bombs_are_refused_by_declared_size(tmp_path: Path) -> None:
    limits = UploadLimits(max_bytes=10_000_000, max_files=3, max_unpacked_bytes=100_000, max_zip_ratio=1e9)
    bomb = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"\0" * 200_000})
    with pytest.raises(UploadRejected, match="unpacks to") as caught:
        store_uploads([("bomb.docx", io.BytesIO(bomb))], tmp_path, limits, SUFFIXES)
    assert caught.value.kind == "too_large"
    ok = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>" * 100})
    assert store_uploads([("ok.docx", io.BytesIO(ok))], tmp_path, limits, SUFFIXES)[0].name == "ok.docx"
    broken = b"PK\x03\x04 not really a zip"  # left to the parser, which refuses it as corrupt with a reason
    assert store_uploads([("broken.xlsx", io.BytesIO(broken))], tmp_path, limits, SUFFIXES)[0].size == len(broken)


def test_a_symlink_in_the_uploads_folder_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "uploads"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (folder / "a.txt").symlink_to(outside)
    with pytest.raises(UploadRejected, match="non-file"):
        store_uploads([("a.txt", io.BytesIO(b"new"))], folder, LIMITS, SUFFIXES)
    assert outside.read_text() == "keep me"
