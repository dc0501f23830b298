"""What clients see of file paths and of the model server's address."""

from __future__ import annotations

from server.public_paths import MODEL_SERVER, PathView, public_answer, without_host


def test_paths_are_shown_relative_to_the_first_root_holding_them() -> None:
    view = PathView.for_paths(["/srv/kb/uploads", "/srv/kb"], ["/home/a/docs/x/1.docx", "/home/a/docs/y/2.pdf"])
    assert view.show("/srv/kb/uploads/合同.docx") == "合同.docx"
    assert view.show("/srv/kb/other/a.md") == "other/a.md"
    assert view.show("/home/a/docs/x/1.docx") == "x/1.docx"  # the indexed folder's common root
    assert view.show("/elsewhere/z.txt") == "z.txt"
    assert view.show("relative/kept.txt") == "relative/kept.txt"
    assert PathView.for_paths([], ["/only/one/file.md"]).show("/only/one/file.md") == "file.md"


def test_messages_lose_class_names_and_paths() -> None:
    view = PathView(["/srv/kb/uploads"])
    assert view.message("BadZipFile: Bad CRC-32 for 'word/document.xml'") == "Bad CRC-32 for 'word/document.xml'"
    assert view.message("cannot read /srv/kb/uploads/a.docx: UnicodeDecodeError: bad byte") == \
        "cannot read a.docx: bad byte"
    assert view.message("the parse worker stopped: OfficeQAError('the parse worker did not start')") == \
        "the parse worker stopped: the parse worker did not start"
    entry = view.document({"path": "/srv/kb/uploads/a.docx", "error": {"kind": "corrupt", "message": "KeyError: x"},
                           "job": {"error": {"kind": "corrupt", "message": "zipfile.BadZipFile: y"}}})
    assert entry["path"] == "a.docx" and entry["error"]["message"] == "x"
    assert entry["job"]["error"]["message"] == "y"


def test_answers_lose_the_ollama_address() -> None:
    host = "http://10.1.2.3:11434"
    assert without_host(f"模型服务无法连接（{host}），以下为摘录。", host) == "模型服务无法连接，以下为摘录。"
    answer = {"answer": "x", "notice": f"The model server did not answer ({host}).", "citations": [],
              "metadata": {"failure": {"kind": "unreachable", "message": f"{host} cannot be reached"},
                           "scope": {"documents": [{"path": "/srv/kb/uploads/a.md"}]}}}
    public = public_answer(answer, PathView(["/srv/kb/uploads"]), host)
    assert host not in str(public) and public["metadata"]["failure"]["message"].startswith(MODEL_SERVER)
    assert public["metadata"]["scope"]["documents"][0]["path"] == "a.md"
