"""``officeqa chunk FILE [--json] [--stats]`` on real files written by the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import main

MARKDOWN = """# 采购合同

版本号：V1.0

## 第一条 标的

乙方向甲方供应办公设备一批，具体清单见附件。依据《中华人民共和国民法典》订立本合同。

| 名称 | 数量 | 单价 |
| --- | --- | --- |
| 打印机 | 2 | 1500 |
| 显示器 | 5 | 900 |

## 第二条 付款

甲方应于收货后十日内付款。
"""


@pytest.fixture
def contract(tmp_path: Path) -> Path:
    path = tmp_path / "合同.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    return path


def test_chunk_json_lines_carry_the_contract_fields(contract: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", str(contract), "--json", "--stats"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    chunks, stats = lines[:-1], lines[-1]["metrics"]
    assert chunks
    for chunk in chunks:
        assert {"id", "text", "heading_path", "tokens", "kind", "overlap_chars"} <= chunk.keys()
        assert chunk["version"] == "版本号: V1.0"
    tables = [c for c in chunks if c["kind"] == "table"]
    assert tables and tables[0]["text"].splitlines()[:2] == ["名称 | 数量 | 单价", "名称: 打印机, 数量: 2, 单价: 1500"]
    assert any(c["heading_path"][-1:] == ["第二条 付款"] for c in chunks)
    assert stats["chunk_count"] == len(chunks)
    assert stats["sentence_breaks"] == 0 and stats["table_header_retention"] == 1.0


def test_stats_alone_prints_one_json_object(contract: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", str(contract), "--stats"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "chunk_count" in json.loads(out[0])["metrics"]


def test_text_output_and_refusal(contract: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", str(contract)]) == 0
    assert "第一条 标的" in capsys.readouterr().out
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    assert main(["chunk", str(empty), "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "empty"
