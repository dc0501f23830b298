"""Legacy, WPS, OpenDocument, RTF and mail parsers: speed and peak memory, against each library's own baseline.

Every measurement runs in a fresh interpreter (best of --repeat), so peak RSS is the
parse's own (plus the interpreter), and imports are counted as a user pays them. For each
file two numbers: officeqa's whole ``parse_file`` (blocks, cleaning) and the baseline --
the chosen library doing only its own job on the same file:

- .doc/.wps: ``antiword`` plain text (the program officeqa drives, in DocBook mode);
- .xls/.et/.ods: python-calamine reading every sheet's values; for .ods also odfpy's
  ``teletype`` text extraction (the candidate not chosen), when odfpy is installed;
- .odt/.odp: odfpy's ``teletype`` over every paragraph (the candidate not chosen), when installed;
- .ppt: officeqa's .pptx parser on the original .pptx (no Python library reads .ppt);
- .rtf: striprtf's ``rtf_to_text``; .eml: the stdlib parser walking every part;
  .msg: python-oxmsg loading the message, bodies and attachment bytes.

``seconds`` counts the imports (a cold CLI call); ``parse_seconds`` starts after the
parser's modules are imported, as in the guarded worker that parses a whole batch.

Files: the committed fixtures (tests/data/formats) and larger ones made from the shared
corpus with LibreOffice into bench/results/cache/formats (``--make``; needs soffice):
the 872-page handbook and a Chinese notice as .doc/.odt/.rtf, two workbooks as .xls/.ods,
a deck as .ppt/.odp, and a mail carrying the handbook .doc.

    python bench/bench_formats.py --make          # once (minutes: LibreOffice conversions)
    python bench/bench_formats.py > bench/results/formats.jsonl
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
FIXTURES = ROOT / "tests" / "data" / "formats"
CACHE = ROOT / "bench" / "results" / "cache" / "formats"

CONVERSIONS = [
    ("docx/en_handbook-872p.docx", ("doc", "odt", "rtf")),
    ("docx/zh_股东会-会议通知.docx", ("doc", "odt", "rtf")),
    ("xlsx/en_2023-half-year-analyses-by-segment.xlsx", ("xls", "ods")),
    ("xlsx/zh_langchain-ChatGLM_closed.xlsx", ("xls", "ods")),
    ("pptx/en_mineru_pptx_01.pptx", ("ppt", "odp")),
]
FIXTURE_FILES = [
    "en_quarterly_report.doc",
    "zh_purchase_contract.wps",
    "en_sales_workbook.xls",
    "zh_budget_workbook.et",
    "zh_budget_workbook.ods",
    "en_project_deck.ppt",
    "zh_work_summary.dps",
    "en_quarterly_report.odt",
    "zh_work_summary.odp",
    "zh_purchase_contract.rtf",
    "zh_contract_mail.eml",
    "zh_summary_mail.msg",
]

_HEADER = "import json, resource, sys, time\nt0 = time.perf_counter()\n"
_FOOTER = (
    "el = time.perf_counter() - t0\n"
    "usage = resource.getrusage\n"
    "rss = max(usage(resource.RUSAGE_SELF).ru_maxrss, usage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "out = {'seconds': el, 'items': items, 'pages': pages, 'peak_rss_mb': rss / 1024}\n"
    "if 'parse_seconds' in globals(): out['parse_seconds'] = parse_seconds\n"
    "print(json.dumps(out))\n"
)
OFFICEQA = (
    _HEADER + "from pathlib import Path\n"
    "from indexing.parsing import parse_file\n"
    "from indexing.parsing.dispatch import load_parser\n"
    "load_parser(Path(sys.argv[1]).suffix.lower())\n"  # the imports a warm parse worker has already paid
    "t1 = time.perf_counter()\n"
    "doc = parse_file(sys.argv[1])\n"
    "parse_seconds = time.perf_counter() - t1\n"
    "items = len(doc.blocks)\n"
    "pages = doc.page_count or len({b.page for b in doc.blocks if b.page} | {b.slide for b in doc.blocks if b.slide})\n"
    + _FOOTER
)
BASELINES = {
    "antiword": _HEADER + "import subprocess\n"
    "out = subprocess.run(['antiword', sys.argv[1]], capture_output=True, check=True).stdout\n"
    "items = out.count(b'\\n'); pages = None\n" + _FOOTER,
    "calamine": _HEADER + "from python_calamine import CalamineWorkbook\n"
    "wb = CalamineWorkbook.from_path(sys.argv[1])\n"
    "items = sum(len(wb.get_sheet_by_name(n).to_python()) for n in wb.sheet_names); pages = None\n" + _FOOTER,
    "odfpy": _HEADER + "from odf import opendocument, teletype, text\n"
    "doc = opendocument.load(sys.argv[1])\n"
    "paras = doc.getElementsByType(text.P) + doc.getElementsByType(text.H)\n"
    "items = len([teletype.extractText(p) for p in paras]); pages = None\n" + _FOOTER,
    "pptx_of_original": _HEADER + "from indexing.parsing import parse_file\n"
    "doc = parse_file(sys.argv[1])\n"
    "items = len(doc.blocks); pages = doc.page_count\n" + _FOOTER,
    "striprtf": _HEADER + "from striprtf.striprtf import rtf_to_text\n"
    "items = rtf_to_text(open(sys.argv[1], encoding='latin-1').read(), errors='replace').count('\\n'); pages = None\n"
    + _FOOTER,
    "stdlib_email": _HEADER + "from email import policy\nfrom email.parser import BytesParser\n"
    "msg = BytesParser(policy=policy.default).parse(open(sys.argv[1], 'rb'))\n"
    "items = sum(len(p.get_payload(decode=True) or b'') > 0 for p in msg.walk()); pages = None\n" + _FOOTER,
    "python_oxmsg": _HEADER + "from oxmsg import Message\n"
    "m = Message.load(sys.argv[1])\n"
    "items = len(m.body or '') + sum(len(a.file_bytes or b'') > 0 for a in m.attachments); pages = None\n" + _FOOTER,
}
BASELINE_FOR = {
    ".doc": ["antiword"],
    ".wps": ["antiword"],
    ".xls": ["calamine"],
    ".et": ["calamine"],
    ".ods": ["calamine", "odfpy"],
    ".odt": ["odfpy"],
    ".odp": ["odfpy"],
    ".ppt": ["pptx_of_original"],
    ".dps": ["pptx_of_original"],
    ".rtf": ["striprtf"],
    ".eml": ["stdlib_email"],
    ".msg": ["python_oxmsg"],
}


def _soffice(source: Path, fmt: str, out_dir: Path) -> None:
    profile = Path(tempfile.mkdtemp(prefix="lo-profile-"))
    try:
        subprocess.run(
            ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to", fmt,
             "--outdir", str(out_dir), str(source)],
            check=True, capture_output=True, timeout=900,
        )  # fmt: skip
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def make() -> None:
    """Convert the shared corpus files into the legacy/open formats, and build a mail around the handbook."""
    from email.message import EmailMessage

    CACHE.mkdir(parents=True, exist_ok=True)
    for rel, formats in CONVERSIONS:
        source = CORPUS / rel
        shutil.copy(source, CACHE / source.name)
        for fmt in formats:
            if not (CACHE / f"{source.stem}.{fmt}").exists():
                print(f"converting {rel} -> {fmt}", file=sys.stderr)
                _soffice(CACHE / source.name, fmt, CACHE)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@example.com", "b@example.com", "Handbook"
    msg.set_content("The handbook is attached.")
    handbook = CACHE / "en_handbook-872p.doc"
    msg.add_attachment(handbook.read_bytes(), maintype="application", subtype="msword", filename=handbook.name)
    (CACHE / "en_handbook_mail.eml").write_bytes(bytes(msg))


def run(code: str, path: Path, timeout: float) -> dict:
    try:
        out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                             timeout=timeout, cwd=ROOT)  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:g} s"}
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(code: str, path: Path, repeat: int, timeout: float) -> dict:
    results = [run(code, path, timeout) for _ in range(repeat)]
    ok = [r for r in results if "error" not in r]
    return min(ok, key=lambda r: r["seconds"]) if ok else results[0]


def _files() -> list[Path]:
    files = [FIXTURES / name for name in FIXTURE_FILES]
    if CACHE.is_dir():
        files += sorted(p for p in CACHE.iterdir() if p.suffix in BASELINE_FOR)
    return files


def _original_pptx(path: Path) -> Path | None:
    for candidate in (path.with_suffix(".pptx"), FIXTURES / f"{path.stem}.pptx"):
        if candidate.exists():
            return candidate
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--make", action="store_true", help="convert the shared corpus into bench/results/cache/formats")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    if args.make:
        make()
        return
    for path in _files():
        ours = best(OFFICEQA, path, args.repeat, args.timeout)
        mb = path.stat().st_size / 1024 / 1024
        row = {"file": path.name, "mb": round(mb, 3), "officeqa": ours}
        if "seconds" in ours:
            row["mb_per_s"] = round(mb / ours["seconds"], 2)
            row["mb_per_s_warm"] = round(mb / ours["parse_seconds"], 2)
            if ours.get("pages"):
                row["pages_per_s_warm"] = round(ours["pages"] / ours["parse_seconds"], 1)
        for name in BASELINE_FOR[path.suffix]:
            target = _original_pptx(path) if name == "pptx_of_original" else path
            if target is None:
                continue
            theirs = best(BASELINES[name], target, args.repeat, args.timeout)
            row[name] = theirs
            if "seconds" in theirs and "seconds" in ours:
                row[f"ratio_vs_{name}"] = round(ours["seconds"] / theirs["seconds"], 2)
        print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
