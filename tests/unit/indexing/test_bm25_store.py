"""The BM25 snapshot + log: every change durable at once, other processes catch up, damage named."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.bm25_store import BM25Store
from officeqa.errors import StoreDamaged


def test_changes_are_durable_without_rewriting_the_snapshot(tmp_path: Path) -> None:
    writer = BM25Store(tmp_path)
    writer.add(["d1-00000", "d1-00001"], ["苹果 供应 合同", "违约金 按日 支付"])
    writer.fold(force=True)
    snapshot = writer.snapshot_path.stat().st_mtime_ns
    writer.add(["d2-00000"], ["带薪 年假 十天"])
    writer.remove(["d1-00001"])
    assert writer.snapshot_path.stat().st_mtime_ns == snapshot  # only the log grew
    # a fresh reader (a process started after a SIGKILL of the writer) sees every change
    reader = BM25Store(tmp_path)
    assert reader.ids() == {"d1-00000", "d2-00000"}
    assert reader.index.search("年假", 3)[0][0] == "d2-00000"


def test_readers_catch_up_with_appends_and_folds(tmp_path: Path) -> None:
    writer = BM25Store(tmp_path)
    writer.add(["a-00000"], ["第一 文档"])
    reader = BM25Store(tmp_path)
    assert reader.ids() == {"a-00000"}
    writer.add(["b-00000"], ["第二 文档"])
    reader.refresh()
    assert reader.ids() == {"a-00000", "b-00000"}
    writer.fold(force=True)  # new snapshot epoch and an empty log
    writer.remove(["a-00000"])
    reader.refresh()
    assert reader.ids() == {"b-00000"}


def test_a_torn_last_record_is_ignored(tmp_path: Path) -> None:
    writer = BM25Store(tmp_path)
    writer.add(["a-00000"], ["完整 的 记录"])
    with open(writer.log_path, "ab") as fh:
        fh.write(b'{"op":"add","ids":["b-00000"],"tok')  # the writer was killed mid-append
    assert BM25Store(tmp_path).ids() == {"a-00000"}


@pytest.mark.parametrize("target", ["snapshot", "log"])
def test_damaged_files_are_named_with_the_fix(tmp_path: Path, target: str) -> None:
    writer = BM25Store(tmp_path)
    writer.add(["a-00000"], ["一些 文字"])
    writer.fold(force=True)
    writer.add(["b-00000"], ["更多 文字"])
    path = writer.snapshot_path if target == "snapshot" else writer.log_path
    data = bytearray(path.read_bytes())
    if target == "snapshot":
        data = data[: len(data) // 2]
    else:
        data[len(data) // 2 : len(data) // 2 + 8] = b"\x00garble\x00"
        data += b'{"op":"del","ids":[]}\n'  # a complete record after the garbled one
    path.write_bytes(bytes(data))
    with pytest.raises(StoreDamaged) as caught:
        BM25Store(tmp_path).ids()
    message = str(caught.value)
    assert str(path) in message and "officeqa check --repair" in message and "\n" not in message
