"""Every file of tests/data/formats becomes blocks or the right refusal through the real CLI, and
``officeqa index`` of a folder mixing all formats indexes or refuses each with a reason.

Like test_parse_corpus.py: ``officeqa parse --json`` runs in its own process per file, so the
CLI contract (exit 3, one stderr line naming the file and the kind, a JSON error object) is
pinned for the new formats too, and content is asserted, not just "no crash".
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.knowledge_base import KnowledgeBase
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.search import search
from server.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "formats"
FILES = sorted(p.name for p in DATA.iterdir() if p.is_file() and p.suffix != ".py")

REFUSED = {
    "EDGE_damaged_truncated.doc": "corrupt",
    "EDGE_damaged_truncated.xls": "corrupt",
    "EDGE_damaged_truncated.ppt": "corrupt",
    "EDGE_damaged_truncated.odt": "corrupt",
    "EDGE_damaged_truncated.ods": "corrupt",
    "EDGE_damaged_truncated.odp": "corrupt",
    "EDGE_damaged_truncated.msg": "corrupt",
    "EDGE_damaged_binary.rtf": "corrupt",
    "EDGE_damaged_binary.eml": "corrupt",
    "EDGE_encrypted_secret.doc": "encrypted",
    "EDGE_encrypted_secret.xls": "encrypted",
    "EDGE_encrypted_secret.odt": "encrypted",
}

# file -> (phrases in the text, a header cell, a sheet name or slide-1 title)
EXPECT: dict[str, tuple[list[str], str | None, str | None]] = {
    "en_quarterly_report.doc": (["4,210 pallets"], "Revenue (EUR)", None),
    "en_quarterly_report.odt": (["4,210 pallets"], "Revenue (EUR)", None),
    "en_quarterly_report.rtf": (["4,210 pallets"], "Revenue (EUR)", None),
    "en_quarterly_report_ooxml.wps": (["4,210 pallets"], "Revenue (EUR)", None),
    "zh_purchase_contract.doc": (["千分之三的违约金"], "金额（元）", None),
    "zh_purchase_contract.wps": (["千分之三的违约金"], "金额（元）", None),
    "zh_purchase_contract.odt": (["千分之三的违约金"], "金额（元）", None),
    "zh_purchase_contract.rtf": (["千分之三的违约金"], "金额（元）", None),
    "en_sales_workbook.xls": (["Alice Moreau"], "Region", "sheet:Staff"),
    "en_sales_workbook.ods": (["Alice Moreau"], "Region", "sheet:Staff"),
    "zh_budget_workbook.xls": (["研发中心"], "预算（万元）", "sheet:人员名单"),
    "zh_budget_workbook.et": (["研发中心"], "预算（万元）", "sheet:人员名单"),
    "zh_budget_workbook.ods": (["研发中心"], "预算（万元）", "sheet:人员名单"),
    "en_project_deck.ppt": (["Field trials in Norway"], "Item", "slide:Project Falcon Kickoff"),
    "en_project_deck.odp": (["Field trials in Norway"], "Item", "slide:Project Falcon Kickoff"),
    "zh_work_summary.ppt": (["推进无纸化办公"], "类别", "slide:年度工作总结"),
    "zh_work_summary.dps": (["推进无纸化办公"], "类别", "slide:年度工作总结"),
    "zh_work_summary.odp": (["推进无纸化办公"], "类别", "slide:年度工作总结"),
    "en_report_mail.eml": (["From: Maria Santos", "4,210 pallets"], "Revenue (EUR)", "sheet:Sales 2023"),
    "zh_contract_mail.eml": (["From: 张伟", "千分之三的违约金"], "文件", "sheet:预算表"),
    "en_kickoff_mail.msg": (["Peter Lind", "Field trials start in Norway"], "Item", "slide:Project Falcon Kickoff"),
    "zh_summary_mail.msg": (["王芳", "节能改造的预算另行通知"], "类别", "slide:年度工作总结"),
}


def _run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main(sys.argv[1:]))", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_format_file_parses_or_is_refused_through_the_cli(name: str) -> None:
    proc = _run_cli("parse", "--json", str(DATA / name))
    assert "Traceback" not in proc.stderr, proc.stderr
    if name in REFUSED:
        assert proc.returncode == 3, proc.stderr
        error = json.loads(proc.stdout)["error"]
        assert error["kind"] == REFUSED[name] and error["file"].endswith(name) and error["message"]
        first_line = proc.stderr.strip().splitlines()[0]
        assert name in first_line and REFUSED[name] in first_line
        return
    assert proc.returncode == 0, proc.stderr
    blocks = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert blocks
    if name not in EXPECT:  # the OOXML sources of the conversions are covered by their own parsers' tests
        return
    phrases, header_cell, where = EXPECT[name]
    text = "\n".join(b["text"] for b in blocks)
    for phrase in phrases:
        assert phrase in text, f"{phrase!r} not in {name}"
    if header_cell:
        assert header_cell in {cell for b in blocks if b["type"] == "table" for cell in b["header"]}
    if where and where.startswith("sheet:"):
        assert where[6:] in {b.get("sheet") for b in blocks}
    if where and where.startswith("slide:"):
        assert any(b["type"] == "heading" and b.get("slide") == 1 and b["text"] == where[6:] for b in blocks)


@pytest.mark.slow
def test_index_of_a_folder_mixing_all_formats_indexes_or_refuses_each(tmp_path: Path, monkeypatch, capsys) -> None:
    folder = tmp_path / "share"
    shutil.copytree(DATA, folder, ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "hash")
    assert main(["index", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])  # progress events, then the report
    failed = {Path(f["path"]).name: f for f in report["failed"]}
    assert {name: f["kind"] for name, f in failed.items()} == REFUSED
    assert all(f["message"] for f in failed.values())
    # byte-identical WPS twins (.wps/.et/.dps copies of .doc/.xls/.ppt, the OOXML .wps of the .docx) are duplicates
    assert report["added"] + report["duplicates"] == len(FILES) - len(REFUSED)
    assert report["duplicates"] == 4

    settings = Settings(data_dir=tmp_path / "data", embedding=EmbeddingSettings(backend="hash"))
    with KnowledgeBase(settings) as kb:
        hits = search(kb, "千分之三的违约金", mode="bm25", k=20)
        assert {Path(h.metadata["path"]).suffix for h in hits} >= {".doc", ".odt", ".rtf", ".eml", ".msg"}
        in_mail = [h for h in search(kb, "Islands 310,200", mode="bm25", k=50) if h.metadata["path"].endswith(".eml")]
        assert in_mail[0].metadata["heading_path"].startswith("附件/Attachment: en_quarterly_report.doc")
        slides = search(kb, "Field trials in Norway", mode="bm25", k=20)
        assert {Path(h.metadata["path"]).suffix for h in slides} >= {".ppt", ".odp", ".msg"}
