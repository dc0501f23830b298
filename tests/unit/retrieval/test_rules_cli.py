"""``officeqa route``: single instruction (text, --json, --explain) and --batch JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import main


def test_route_json_single(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", "按地区汇总销售额", "--file-type", "xlsx", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["route"] == "table_aggregate" and out["rule_id"] == "table_aggregate"
    assert out["confidence"] == 0.95 and out["mode"] == "answer" and "explanation" in out


def test_route_text_explain_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route", "电话会议纪要总结一下", "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("route: summary_tree")
    assert "extract_phone" in out and "excluded by @phone_not=电话会议" in out


def test_route_batch_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = tmp_path / "in.jsonl"
    batch.write_text('{"instruction": "提取所有邮箱"}\n\n{"instruction": "你好", "file_type": "docx"}\n'
                     '{"instruction": "列出目录", "file_type": "xlsx"}\n', encoding="utf-8")
    assert main(["route", "--batch", str(batch), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["route"] for x in lines] == ["extract_email", "chitchat", "retrieve_qa"]
    assert all({"rule_id", "route", "confidence", "explanation"} <= set(x) for x in lines)


def test_route_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["route"]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "no instruction key"}\n', encoding="utf-8")
    assert main(["route", "--batch", str(bad), "--json"]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


def test_route_explain_shows_the_table_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from indexing.table_store import TableStore
    from officeqa.domain import Block, ParsedDocument

    doc = ParsedDocument(path="orders.xlsx", file_type="xlsx", blocks=[Block.table(
        [["区域", "状态", "金额"]], [["华东", "已完成", "10.5"], ["华东", "已取消", "3"], ["华北", "已完成", "7"]],
        sheet="订单")])
    with TableStore(tmp_path / "tables.duckdb") as store:
        store.put("d1", "orders.xlsx", doc)
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("OFFICEQA_RULES__SECOND_STAGE", "off")
    assert main(["route", "华东区不含已取消订单的金额合计", "--explain", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["table_query"]
    assert table["query"].startswith("区域 = 华东 且 状态 ≠ 已取消，对 金额 求和")
    assert "?" in table["sql"] and "华东" not in table["sql"] and table["params"] == ["华东", "已取消"]
    assert main(["route", "华东区不含已取消订单的金额合计", "--explain"]) == 0
    assert "table query: 区域 = 华东" in capsys.readouterr().out
    assert main(["route", "华东区不含已取消订单的金额合计", "--json"]) == 0  # no --explain: the shape is unchanged
    assert set(json.loads(capsys.readouterr().out)) == {"rule_id", "route", "confidence", "mode", "params",
                                                         "explanation", "elapsed_ms"}
