"""Hostile and broken input files, generated on the fly (shared by the hostile-input tests and bench).

Each generator writes one file and returns its path. Big members are streamed through the zip
writer in 1 MB pieces, so a 300 MB zip bomb costs a second of CPU and a few MB of disk, not
300 MB of memory. What each probe reproduces is said in its docstring (issue #16).
"""

from __future__ import annotations

import io
import os
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_MB = 1024 * 1024
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


def _repeat(head: str, body: str, tail: str, total_bytes: int) -> Iterator[bytes]:
    """head + body repeated to about ``total_bytes`` + tail, in ~1 MB pieces."""
    yield head.encode()
    piece = body.encode()
    block = piece * max(1, _MB // len(piece))
    written = 0
    while written < total_bytes:
        yield block
        written += len(block)
    yield tail.encode()


def _rewrite_zip(template: bytes, path: Path, replace: dict[str, Callable[[], Iterator[bytes]]]) -> Path:
    """Copy a small package, streaming new content into the members named in ``replace``."""
    with zipfile.ZipFile(io.BytesIO(template)) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            if info.filename in replace:
                with out.open(info.filename, "w", force_zip64=True) as member:
                    for chunk in replace[info.filename]():
                        member.write(chunk)
            else:
                out.writestr(info, source.read(info.filename))
    return path


def _docx_template() -> bytes:
    import docx

    buffer = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("placeholder")
    document.save(buffer)
    return buffer.getvalue()


def _xlsx_template(first: str = "placeholder") -> bytes:
    import openpyxl

    buffer = io.BytesIO()
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sheet1"
    sheet["A1"], sheet["B1"] = first, "amount"
    sheet["A2"], sheet["B2"] = "row", 1
    workbook.save(buffer)
    return buffer.getvalue()


def zip_bomb_docx(path: Path, inflated_mb: int = 300) -> Path:
    """A small docx whose word/document.xml inflates to ``inflated_mb`` MB (the issue's was 4.6 MB -> 1.2 GB)."""
    body = "<w:p><w:r><w:t>" + "bomb " * 40 + "</w:t></w:r></w:p>"
    head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {_W}><w:body>'
    return _rewrite_zip(
        _docx_template(),
        path,
        {"word/document.xml": lambda: _repeat(head, body, "</w:body></w:document>", inflated_mb * _MB)},
    )


def zip_bomb_xlsx(path: Path, inflated_mb: int = 300) -> Path:
    """A small xlsx whose first sheet inflates to ``inflated_mb`` MB of identical rows."""
    row = '<row><c t="inlineStr"><is><t>' + "bomb " * 20 + "</t></is></c><c><v>1</v></c></row>"
    head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet {_S}><sheetData>'
    return _rewrite_zip(
        _xlsx_template(),
        path,
        {"xl/worksheets/sheet1.xml": lambda: _repeat(head, row, "</sheetData></worksheet>", inflated_mb * _MB)},
    )


def huge_cell_xlsx(path: Path, cell_mb: int = 100) -> Path:
    """About 1 MB of xlsx holding ONE cell of ``cell_mb`` MB of text (it once drove a parse past 14 GB)."""
    head = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet {_S}><sheetData>'
        '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>note</t></is></c>'
        '</row><row r="2"><c r="A2" t="inlineStr"><is><t>big</t></is></c><c r="B2" t="inlineStr"><is><t>'
    )
    tail = (
        '</t></is></c></row><row r="3"><c r="A3" t="inlineStr"><is><t>small</t></is></c>'
        '<c r="B3" t="inlineStr"><is><t>正常的备注</t></is></c></row></sheetData></worksheet>'
    )
    return _rewrite_zip(
        _xlsx_template(), path, {"xl/worksheets/sheet1.xml": lambda: _repeat(head, "备注内容", tail, cell_mb * _MB)}
    )


def entity_bomb_docx(path: Path) -> Path:
    """A docx whose document.xml declares a billion-laughs entity bomb and an XXE file entity."""
    laughs = ['<!ENTITY l0 "lol">'] + [f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10)]
    doctype = '<!DOCTYPE d [' + "".join(laughs) + '<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    xml = (
        f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<w:document {_W}><w:body>'
        "<w:p><w:r><w:t>before &l9; &xxe; after</w:t></w:r></w:p>"
        "<w:p><w:r><w:t>正文仍然可读。</w:t></w:r></w:p></w:body></w:document>"
    )
    return _rewrite_zip(_docx_template(), path, {"word/document.xml": lambda: iter([xml.encode()])})


def _stream_text(path: Path, head: str, body: str, total_bytes: int, tail: str = "", encoding: str = "utf-8") -> Path:
    piece = body.encode(encoding)
    block = piece * max(1, _MB // len(piece))
    with path.open("wb") as fh:
        fh.write(head.encode(encoding))
        written = 0
        while written + len(block) <= total_bytes:
            fh.write(block)
            written += len(block)
        fh.write(piece * ((total_bytes - written) // len(piece)))
        fh.write(tail.encode(encoding))
    return path


def one_char_txt(path: Path, mb: int = 100, char: str = "a") -> Path:
    """``mb`` MB of one repeated character and no line break (a 100 MB one reached 10 GB)."""
    return _stream_text(path, "", char, mb * _MB, "\n")


def unbroken_chinese_txt(path: Path, mb: int = 10) -> Path:
    """``mb`` MB of Chinese with no punctuation, space or line break (8 M characters kept `parse` busy > 4 min)."""
    han = "甲方乙方根据合同约定履行付款义务并承担相应违约责任本办法自发布之日起施行由公司负责解释"
    return _stream_text(path, "", han, mb * _MB, "")


def csv_one_line_of_cells(path: Path, mb: int = 50) -> Path:
    """One 50 MB CSV line of short cells (millions of columns; it once ended a batch at 'allocate 79.5 GiB')."""
    return _stream_text(path, "name,amount\n", "abc,", mb * _MB, "end\n")


def csv_one_huge_field(path: Path, mb: int = 50) -> Path:
    """A CSV whose second row holds a single ``mb`` MB field."""
    return _stream_text(path, "name,note\nx,", "y", mb * _MB, "\nz,short\n")


def spaces_line_txt(path: Path, spaces: int = 200_000) -> Path:
    """A line of 200,000 spaces not followed by a line end (quadratic in the old trailing-space regex)."""
    path.write_text("x" + " " * spaces + "y\n\n正文。\n", encoding="utf-8")
    return path


def dots_txt(path: Path, dots: int = 1_000_000) -> Path:
    """A million dots then a letter (quadratic in the old sentence-end regex)."""
    path.write_text("开头。" + "." * dots + "x\n", encoding="utf-8")
    return path


def deep_nesting_html(path: Path, depth: int = 100_000) -> Path:
    """100,000 nested <div> elements around one sentence."""
    path.write_text("<html><body>" + "<div>" * depth + "深处的一句话。" + "</div>" * depth + "</body></html>")
    return path


def many_headings_md(path: Path, headings: int = 100_000) -> Path:
    """100,000 empty sections, then one paragraph (once one oversize chunk, built in quadratic time)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(headings):
            fh.write(f"## 第{i}节\n\n")
        fh.write("唯一的正文段落。\n")
    return path


def normal_files(folder: Path) -> list[Path]:
    """Ordinary documents that must index next to the probes."""
    import docx
    import openpyxl

    folder.mkdir(parents=True, exist_ok=True)
    note = folder / "normal_note.txt"
    note.write_text("第一章 总则\n\n本办法适用于全体员工。年假为每年十天。\n", encoding="utf-8")
    document = docx.Document()
    document.add_heading("报销制度", level=1)
    document.add_paragraph("差旅费用须在出差结束后三十日内报销。")
    document.save(folder / "normal_policy.docx")
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["部门", "预算"])
    sheet.append(["研发部", 120])
    sheet.append(["销售部", 80])
    workbook.save(folder / "normal_budget.xlsx")
    csv_file = folder / "normal_staff.csv"
    csv_file.write_text("姓名,部门\n张三,研发部\n李四,销售部\n", encoding="utf-8")
    return [note, folder / "normal_policy.docx", folder / "normal_budget.xlsx", csv_file]


# ---------------------------------------------------------------- running the CLI with a process-tree RSS probe


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out.extend(int(x) for x in fh.read().split())
    except OSError:
        pass
    return out


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants (Linux /proc), summed."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += _rss_kb(current)
        stack.extend(_children(current))
    return total


@dataclass
class Run:
    """One CLI run: exit code, output, wall time and the peak RSS summed over its process tree."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    peak_mb: float


def run_measured(argv: list[str], env: dict[str, str], cwd: Path | None = None, hang_guard_s: float = 1800) -> Run:
    """Run ``argv`` sampling the tree's RSS every 20 ms (sampling can only under-report a peak)."""
    import tempfile

    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=cwd)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, tree_rss_kb(proc.pid))
            if time.perf_counter() - started > hang_guard_s:
                proc.kill()
            time.sleep(0.02)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return Run(
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            round(wall, 2),
            round(peak / 1024, 1),
        )
