"""Uploads, the document list with states and errors, chunk previews and deletion, through Litestar's
test client against a real app (real stores, the background indexer, the ``hash`` embedder)."""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest
from litestar.testing import TestClient
from server_helpers import files_under, make_settings, upload, wait_indexed, wait_settled

from server.app import create_app

MD = "# 报销制度\n\n## 第一条 差旅\n\n员工出差住宿费每晚不超过500元。报销需在出差结束后十日内提交。\n".encode()
TXT = "会议通知：年度总结大会于2025年1月18日召开，联系人赵敏，电话 13588886666。\n".encode()


def _docx_bytes() -> bytes:
    document = docx.Document()
    document.add_heading("设备采购合同", level=1)
    document.add_paragraph("合同总价款为人民币贰佰肆拾万元整。乙方逾期交货的，每日按千分之三支付违约金。")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _zip_bomb(member_mib: int) -> bytes:
    """A docx-named zip whose one member inflates ``member_mib`` MiB of zeros (kilobytes on the wire)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(member_mib):
                member.write(block)
    return out.getvalue()


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("documents")


@pytest.fixture(scope="module")
def client(root: Path) -> Iterator[TestClient]:
    settings = make_settings(root, max_upload_mb=1.0, max_unpacked_mb=8.0, max_upload_files=5)
    with TestClient(create_app(settings, generator=None)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def indexed(client: TestClient) -> dict[str, dict]:
    files = {"报销制度.md": MD, "会议通知.txt": TXT, "采购合同.docx": _docx_bytes(), "损坏.docx": b"PK\x03\x04 broken"}
    response = upload(client, files)
    assert response.status_code == 202, response.text
    body = response.json()
    assert [d["file"] for d in body["documents"]] == list(files)
    for item, data in zip(body["documents"], files.values(), strict=True):
        assert item["doc_id"] == hashlib.sha256(data).hexdigest()  # the id the registry will use
        assert item["state"] in ("queued", "indexing")
        assert item["job"]["kind"] == "index" and item["job"]["state"] in ("PENDING", "RUNNING")
    return wait_indexed(client, list(files))


def test_uploaded_files_are_indexed_and_listed_with_their_states(indexed: dict[str, dict], root: Path) -> None:
    for name in ("报销制度.md", "会议通知.txt", "采购合同.docx"):
        assert indexed[name]["state"] == "indexed", indexed[name]
        assert indexed[name]["chunks"] >= 1
        assert indexed[name]["error"] is None
        assert indexed[name]["path"] == name  # relative to the uploads folder: no server path reaches a client
    broken = indexed["损坏.docx"]
    assert broken["state"] == "failed"
    assert broken["error"]["kind"] == "corrupt"
    assert broken["error"]["message"]


def test_chunk_preview_shows_text_heading_path_tokens_and_quality(client: TestClient, indexed: dict) -> None:
    doc_id = indexed["报销制度.md"]["doc_id"]
    response = client.get(f"/api/documents/{doc_id[:10]}/chunks")  # a short id works too
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["doc_id"] == doc_id and page["name"] == "报销制度.md" and page["total"] == len(page["chunks"])
    chunk = page["chunks"][0]
    assert "500元" in chunk["text"]
    assert chunk["heading_path"] == ["报销制度", "第一条 差旅"]
    assert chunk["tokens"] > 0
    assert chunk["quality"] == {"oversize": False, "ends_at_sentence": True, "empty": False, "sentence_break": False}
    assert page["metrics"]["chunk_count"] >= 1 and page["metrics"]["heading_path_coverage"] == 1.0

    one = client.get(f"/api/documents/{doc_id}/chunks", params={"chunk_id": chunk["id"], "metrics": "false"})
    assert one.status_code == 200 and [c["id"] for c in one.json()["chunks"]] == [chunk["id"]]
    assert "metrics" not in one.json()


def test_unknown_documents_and_chunks_are_404_with_a_json_body(client: TestClient, indexed: dict) -> None:
    for url in ("/api/documents/0123456789abcdef/chunks", "/api/documents/ab/chunks"):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json()["error"]["kind"] == "not_found"
    doc_id = indexed["报销制度.md"]["doc_id"]
    response = client.get(f"/api/documents/{doc_id}/chunks", params={"chunk_id": "nope"})
    assert response.status_code == 404 and "nope" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("name", "data", "status", "kind"),
    [
        ("空文件.txt", b"", 400, "empty"),
        ("大文件.txt", b"x" * (1024 * 1024 + 1), 413, "too_large"),
        ("../../x.docx", b"PK", 400, "bad_name"),
        ("..\\..\\x.docx", b"PK", 400, "bad_name"),
        ("a\x00b.txt", b"text", 400, "bad_name"),
        ("a\nb.txt", b"text", 400, "bad_name"),
        (".hidden.txt", b"text", 400, "bad_name"),
        ("程序.exe", b"MZ", 415, "unsupported"),
        ("bomb.docx", "zip_bomb", 413, "too_large"),
    ],
)
def test_bad_uploads_are_refused_and_nothing_is_written(
    client: TestClient, root: Path, indexed: dict, name: str, data: bytes | str, status: int, kind: str
) -> None:
    if data == "zip_bomb":
        data = _zip_bomb(12)  # 12 MiB unpacked > max_unpacked_mb 8
    wait_settled(client)
    before = files_under(root)
    response = upload(client, {name: data})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["kind"] == kind
    assert error["message"]
    assert error["files"][0]["kind"] == kind
    assert files_under(root) == before  # nothing stored, no temporary file left, nothing outside the data dir


def test_a_zip_bomb_by_ratio_is_refused(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, max_upload_mb=5.0, max_unpacked_mb=1024.0, max_zip_ratio=100.0)
    with TestClient(create_app(settings, generator=None)) as client:
        response = upload(client, {"bomb.pptx": _zip_bomb(40)})  # 40 MiB from ~40 KiB: ratio ~1000
    assert response.status_code == 413, response.text
    assert "ratio" in response.json()["error"]["message"]
    assert not (tmp_path / "data" / "uploads").exists() or not any((tmp_path / "data" / "uploads").iterdir())


def test_one_bad_file_refuses_the_whole_request_and_names_it(client: TestClient, root: Path, indexed: dict) -> None:
    wait_settled(client)
    before = files_under(root)
    response = upload(client, {"好文件.md": b"# ok\n\ncontent here.", "坏文件.exe": b"MZ"})
    assert response.status_code == 415
    assert [f["file"] for f in response.json()["error"]["files"]] == ["坏文件.exe"]
    assert files_under(root) == before


def test_requests_without_files_or_with_too_many_are_refused(client: TestClient) -> None:
    response = client.post("/api/documents", files=[("other", ("a.txt", b"text"))])
    assert response.status_code == 400 and "'files'" in response.json()["error"]["message"]
    response = client.post("/api/documents", data={"x": "1"})  # not multipart at all
    assert response.status_code == 415 and "multipart/form-data" in response.json()["error"]["message"]
    response = upload(client, {f"f{i}.txt": b"text" for i in range(6)})
    assert response.status_code == 413 and response.json()["error"]["kind"] == "too_many_files"


def test_a_new_version_replaces_the_old_one(client: TestClient, indexed: dict) -> None:
    updated = TXT.replace("1月18日".encode(), "1月25日".encode())
    assert upload(client, {"会议通知.txt": updated}).status_code == 202
    docs = wait_indexed(client, ["会议通知.txt"])  # the job is queued at once, so this waits for it
    assert docs["会议通知.txt"]["doc_id"] == hashlib.sha256(updated).hexdigest()
    assert docs["会议通知.txt"]["state"] == "indexed"
    names = [d["name"] for d in client.get("/api/documents").json()["documents"]]
    assert names.count("会议通知.txt") == 1


def test_delete_removes_the_document_its_chunks_and_its_uploaded_copy(
    client: TestClient, indexed: dict, root: Path
) -> None:
    doc = indexed["采购合同.docx"]
    response = client.delete(f"/api/documents/{doc['doc_id']}")
    assert response.status_code == 200, response.text
    assert response.json()["state"] == "removed"
    assert not Path(doc["path"]).exists()
    names = [d["name"] for d in client.get("/api/documents").json()["documents"]]
    assert "采购合同.docx" not in names
    assert client.get(f"/api/documents/{doc['doc_id']}/chunks").status_code == 404
    again = client.delete(f"/api/documents/{doc['doc_id']}")
    assert again.status_code == 404 and again.json()["error"]["kind"] == "not_found"


@pytest.mark.parametrize("raw_name", [b"a\x00b.txt", b"../../x.docx", b"%2e%2e/x.txt"])
def test_raw_multipart_names_are_refused_too(client: TestClient, root: Path, indexed: dict, raw_name: bytes) -> None:
    """A client that does not percent-encode (curl, scripts) sends the bytes as they are."""
    boundary = b"officeqa-test-boundary"
    body = (b"--" + boundary + b"\r\nContent-Disposition: form-data; name=\"files\"; filename=\"" + raw_name
            + b"\"\r\nContent-Type: application/octet-stream\r\n\r\nsome text\r\n--" + boundary + b"--\r\n")
    wait_settled(client)
    before = files_under(root)
    response = client.post("/api/documents", content=body,
                           headers={"Content-Type": f"multipart/form-data; boundary={boundary.decode()}"})
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["error"]["kind"] in ("bad_name", "bad_request", "invalid_request")
    assert files_under(root) == before


@pytest.mark.parametrize("name", ["md/zh_分布式训练技术原理.md", "txt/zh_test.txt", "txt/en_norwich-city.txt"])
def test_chunk_badges_agree_with_the_documents_metric(client: TestClient, corpus_dir: Path, name: str) -> None:
    """The "cut mid-sentence" badge is the metric's own verdict per chunk (zh_test.txt: the metric counts 0
    breaks where a last-character check flagged 29 of 34 chunks), and the list has the metric's chunks."""
    source = corpus_dir / name
    assert upload(client, {source.name: source.read_bytes()}).status_code == 202
    doc = wait_indexed(client, [source.name])[source.name]
    assert doc["state"] == "indexed", doc
    first = client.get(f"/api/documents/{doc['doc_id']}/chunks", params={"limit": 500}).json()
    flagged = [c["id"] for c in first["chunks"] if c["quality"]["sentence_break"]]
    assert len(first["chunks"]) == first["total"] == first["metrics"]["chunk_count"]
    assert len(flagged) == first["metrics"]["sentence_breaks"]
    assert all(c["quality"]["sentence_break"] is not None for c in first["chunks"])
