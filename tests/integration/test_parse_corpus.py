"""Every file of the shared corpus becomes blocks or the right refusal, through the real CLI.

Each file is parsed by ``officeqa parse --json`` in its own process, so the test also
pins the CLI contract (exit 3, one stderr line naming the file, a JSON error object)
and can read the peak memory of the CLI and its guarded parse worker. No wall-clock limit
(correctness only: the OCR'd scans take minutes on a busy 2-core machine; the parse time
limit is raised for the test and timings live in bench/). Content is asserted, not just "no crash":
known headings, table header cells, sheet names, slide titles, and Chinese sentences
from the GB2312 files and the OCR'd scans.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CORPUS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus").resolve()
FILES = sorted(
    str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*") if p.is_file() and p.name not in {"README.md"}
)
# Peak RSS of the CLI plus its parse worker. Measured: the largest is the Chinese scan's OCR, 819 MB in the
# worker + about 60 MB in the CLI (bench/bench_hostile.py --corpus); the bound leaves room for more cores.
MAX_RSS_MB = 2560  # OCR: ~1.4 GB address space in the worker; the bound catches the 10 GB blow-ups
HANG_GUARD_S = 1800  # only so that a hang fails instead of blocking CI; not a performance limit

# Run the CLI in-process inside a fresh interpreter and report its peak RSS on stderr.
_CHILD = (
    "import resource, sys\n"
    "from server.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "usage = resource.getrusage\n"
    # Linux keeps ru_maxrss across exec, so RUSAGE_SELF would count the forking pytest process's own peak (GBs
    # late in a full run); VmHWM is this process's peak since exec.
    "try:\n"
    "    own = int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1])\n"
    "except (OSError, StopIteration):\n"
    "    own = usage(resource.RUSAGE_SELF).ru_maxrss\n"
    "peak = own + usage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "sys.stderr.write('\\nMAXRSS_KB %d\\n' % peak)\n"
    "sys.exit(code)\n"
)

REFUSED = {
    "docx/EDGE_encrypted_pw-tika.docx": "encrypted",
    "docx/EDGE_truncated_testWORD_truncated.docx": "corrupt",
    "pdf/EDGE_encrypted_password.pdf": "encrypted",
    "txt/EDGE_empty.txt": "empty",
    "txt/EDGE_all-whitespace.txt": "empty",
    "xlsx/EDGE_empty.xlsx": "empty",
    "xlsx/EDGE_encrypted_password_protected.xlsx": "encrypted",
}

PASSWORDS = {
    "docx/EDGE_encrypted_pw-tika.docx": "tika",
    "pdf/EDGE_encrypted_password.pdf": "password",
}


@dataclass
class Expect:
    """What a readable file must contain."""

    text: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    table_headers: list[str] = field(default_factory=list)
    sheets: list[str] = field(default_factory=list)
    slides: dict[int, str] = field(default_factory=dict)
    pages: int | None = None  # at least this many distinct pages


EXPECT: dict[str, Expect] = {
    "txt/EDGE_zh_gb2312_cnblog.txt": Expect(text=["它支持很多种Blog服务"]),
    "txt/zh_test.txt": Expect(text=["Prompt"], headings=["第一章：Prompt 工程技术简介"]),
    "txt/en_norwich-city.txt": Expect(text=["Norwich City"]),
    "html/EDGE_zh_gb2312_fragment.html": Expect(text=["搜狐在线国庆免费大酬宾"]),
    "html/EDGE_cp1252.html": Expect(text=["Die schöne Frau"], headings=["My First Heading"]),
    "html/zh_静静的顿河-wiki.html": Expect(text=["肖洛霍夫"]),
    "md/zh_分布式训练技术原理.md": Expect(headings=["分布式训练技术原理", "数据并行"]),
    "csv/EDGE_semicolon-delimited.csv": Expect(table_headers=["Lorem, ipsum", "dolor sit", "amet"]),
    "csv/EDGE_utf16-bom_stanley-cups.csv": Expect(table_headers=["Team", "Location", "Stanley Cups"]),
    "csv/zh_langchain-ChatGLM_closed.csv": Expect(table_headers=["title", "url", "detail"]),
    "docx/en_docx-tables.docx": Expect(table_headers=["Header Col 1", "Header Col 2"]),
    "docx/en_docx_rich_tables_01.docx": Expect(headings=["Phase 1"], table_headers=["Feature", "Action Needed"]),
    "docx/en_handbook-872p.docx": Expect(headings=["Chapter 13", "Standing Trustees"]),
    "docx/zh_股东会-会议通知.docx": Expect(headings=["一、 会议基本情况", "二、 会议议案"], text=["《公司法》"]),
    "docx/zh_ocr_test.docx": Expect(text=["我是文字"]),
    "docx/EDGE_encrypted_pw-tika.docx": Expect(),
    "xlsx/en_2023-half-year-analyses-by-segment.xlsx": Expect(
        sheets=["OS-Rev.and results 30 06 2023", "Reconciliation 30 06 2023"],
        table_headers=["In millions of CHF", "Sales (a)"],
    ),
    "xlsx/en_xlsx_03_chartsheet.xlsx": Expect(sheets=["Duck Observations"], table_headers=["Year", "Saltwater Ducks"]),
    "xlsx/EDGE_huge-dimension_xlsx_04_inflated.xlsx": Expect(
        sheets=["Sheet1", "Sheet2", "Sheet3"], table_headers=["first", "col-1"]
    ),
    "xlsx/zh_langchain-ChatGLM_closed.xlsx": Expect(sheets=["Sheet1"], table_headers=["title", "url"]),
    "pptx/en_fake-power-point.pptx": Expect(slides={1: "Adding a Bullet Slide"}),
    "pptx/en_mineru_pptx_01.pptx": Expect(slides={1: "Test Table Slide", 2: "Second slide title"}),
    "pptx/zh_ocr_test.pptx": Expect(text=["我是文字"]),
    "pdf/zh_chinese-tables.pdf": Expect(
        headings=["第七章 企业资信状况"],
        table_headers=["年份", "主体信用评级", "评级机构"],
        text=["盐城高新区投资集团"],
    ),
    "pdf/zh_ocr_test.pdf": Expect(text=["我是文字"]),
    "pdf/EDGE_en_scanned_testOCR.pdf": Expect(text=["Happy New Year 2003"]),
    "pdf/EDGE_zh_scanned_small_ocr.pdf": Expect(text=["商品体本身", "使用价值"], pages=8),
    "pdf/EDGE_owner-password_copy-protected.pdf": Expect(pages=2),
    "pdf/en_DA-619p.pdf": Expect(pages=600),
    "pdf/en_layout-parser-paper-fast.pdf": Expect(text=["LayoutParser"], pages=2),
}


def _run_cli(*args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "OFFICEQA_PARSING__TIMEOUT_S": str(HANG_GUARD_S)},  # OCR may be slow here: not a refusal
    )
    elapsed = time.perf_counter() - started
    rss_lines = [line for line in proc.stderr.splitlines() if line.startswith("MAXRSS_KB ")]
    rss_mb = int(rss_lines[-1].split()[1]) / 1024 if rss_lines else 0.0
    return proc, elapsed, rss_mb


def _blocks(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.slow
@pytest.mark.parametrize("rel", FILES)
def test_corpus_file_parses_or_is_refused_with_the_right_kind(rel: str) -> None:
    proc, _elapsed, rss_mb = _run_cli("parse", "--json", str(CORPUS / rel))
    assert rss_mb < MAX_RSS_MB, f"{rel} peaked at {rss_mb:.0f} MB"
    assert "Traceback" not in proc.stderr, proc.stderr
    if rel in REFUSED:
        assert proc.returncode == 3, proc.stderr
        error = json.loads(proc.stdout)["error"]
        assert error["kind"] == REFUSED[rel]
        assert error["file"].endswith(rel) and error["message"]
        first_line = proc.stderr.strip().splitlines()[0]
        assert rel in first_line and REFUSED[rel] in first_line
        return
    assert proc.returncode == 0, proc.stderr
    blocks = _blocks(proc.stdout)
    assert blocks and any(b["text"].strip() for b in blocks)
    expect = EXPECT.get(rel)
    if expect is None:
        return
    text = "\n".join(b["text"] for b in blocks)
    for needle in expect.text:
        assert needle in text, f"{needle!r} not in {rel}"
    headings = [b["text"] for b in blocks if b["type"] == "heading"]
    for heading in expect.headings:
        assert heading in headings, f"heading {heading!r} not in {rel}: {headings[:20]}"
    header_cells = {cell for b in blocks if b["type"] == "table" for cell in b["header"]}
    for cell in expect.table_headers:
        assert cell in header_cells, f"header cell {cell!r} not in {rel}: {sorted(header_cells)[:20]}"
    sheets = {b.get("sheet") for b in blocks}
    for sheet in expect.sheets:
        assert sheet in sheets
    for slide, title in expect.slides.items():
        assert any(b["type"] == "heading" and b.get("slide") == slide and b["text"] == title for b in blocks)
    if expect.pages:
        assert len({b.get("page") for b in blocks if b.get("page")}) >= expect.pages


@pytest.mark.slow
@pytest.mark.parametrize("rel", sorted(PASSWORDS))
def test_encrypted_corpus_file_opens_with_its_password(rel: str) -> None:
    proc, _, _ = _run_cli("parse", "--json", "--password", PASSWORDS[rel], str(CORPUS / rel))
    assert proc.returncode == 0, proc.stderr
    blocks = _blocks(proc.stdout)
    assert any(b["text"].strip() for b in blocks)
    if rel.endswith(".pdf"):
        assert "File with password" in "\n".join(b["text"] for b in blocks)


@pytest.mark.slow
def test_wrong_password_is_refused_as_encrypted() -> None:
    proc, _, _ = _run_cli("parse", "--json", "--password", "not-it", str(CORPUS / "docx/EDGE_encrypted_pw-tika.docx"))
    assert proc.returncode == 3
    assert json.loads(proc.stdout)["error"]["kind"] == "encrypted"
