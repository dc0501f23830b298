"""Opening Office Open XML packages: plain, encrypted (OLE/CFB-wrapped), truncated, not Office at all."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest

from indexing.parsing.ooxml import CFB_MAGIC, corrupt_on_error, open_ooxml, read_core_title
from officeqa.errors import RefusalKind, UnreadableDocument


def _refusal(path: Path, password: str | None = None) -> UnreadableDocument:
    with pytest.raises(UnreadableDocument) as err:
        open_ooxml(path, password).close()
    return err.value


def test_plain_package_opens_as_a_zip(tmp_path: Path) -> None:
    d = docx.Document()
    d.core_properties.title = "  Plain title "
    path = tmp_path / "plain.docx"
    d.save(path)
    with open_ooxml(path, None) as stream, zipfile.ZipFile(stream) as archive:
        assert "word/document.xml" in archive.namelist()
        assert read_core_title(archive) == "Plain title"


def test_encrypted_package_needs_the_right_password(corpus_dir: Path) -> None:
    path = corpus_dir / "docx" / "EDGE_encrypted_pw-tika.docx"
    assert path.read_bytes()[:8] == CFB_MAGIC
    missing = _refusal(path)
    assert missing.kind is RefusalKind.ENCRYPTED and "password" in missing.message
    wrong = _refusal(path, "wrong")
    assert wrong.kind is RefusalKind.ENCRYPTED and wrong.message == "wrong password"
    with open_ooxml(path, "tika") as stream:
        assert isinstance(stream, io.BytesIO)  # decrypted in memory, never on disk
        assert "[Content_Types].xml" in zipfile.ZipFile(stream).namelist()


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (b"just some text, not an office file", RefusalKind.CORRUPT),
        (b"PK\x03\x04\x14\x00\x00\x00", RefusalKind.CORRUPT),  # a zip header and nothing else
    ],
)
def test_not_a_package(tmp_path: Path, content: bytes, kind: RefusalKind) -> None:
    path = tmp_path / "bad.docx"
    path.write_bytes(content)
    assert _refusal(path).kind is kind


def test_zip_that_is_not_an_office_package(tmp_path: Path) -> None:
    path = tmp_path / "archive.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "hi")
    refusal = _refusal(path)
    assert refusal.kind is RefusalKind.CORRUPT and "Content_Types" in refusal.message


def test_truncated_corpus_file_is_corrupt(corpus_dir: Path) -> None:
    assert _refusal(corpus_dir / "docx" / "EDGE_truncated_testWORD_truncated.docx").kind is RefusalKind.CORRUPT


def test_corrupt_on_error_wraps_library_errors_and_keeps_the_cause(tmp_path: Path) -> None:
    path = tmp_path / "x.docx"
    with pytest.raises(UnreadableDocument) as err, corrupt_on_error(path, "the document"):
        raise KeyError("word/document.xml")
    assert err.value.kind is RefusalKind.CORRUPT
    assert isinstance(err.value.__cause__, KeyError)
    assert "the document" in err.value.message


def test_corrupt_on_error_lets_refusals_through(tmp_path: Path) -> None:
    path = tmp_path / "x.docx"
    original = UnreadableDocument(str(path), RefusalKind.ENCRYPTED, "wrong password")
    with pytest.raises(UnreadableDocument) as err, corrupt_on_error(path, "the document"):
        raise original
    assert err.value is original
