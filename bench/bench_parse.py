"""Parsing throughput and peak memory on the large corpus files.

Each file is parsed in a fresh interpreter (so peak RSS is the file's own, not the
running total) three times; the script prints pages/s (or rows/s), seconds and peak RSS.
Baseline in the same run: reading the raw bytes of the file (I/O floor).

    python bench/bench_parse.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
FILES = ["pdf/en_DA-619p.pdf", "docx/en_handbook-872p.docx", "xlsx/EDGE_huge-dimension_xlsx_04_inflated.xlsx"]
UNITS = {"pdf/en_DA-619p.pdf": ("pages", 619), "docx/en_handbook-872p.docx": ("pages", 872)}

_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from indexing.parsing import parse_file
doc = parse_file(sys.argv[1])
elapsed = time.perf_counter() - t0
rows = sum(len(b.rows or []) for b in doc.blocks)
chars = sum(len(b.text) for b in doc.blocks)
print(json.dumps({"seconds": elapsed, "blocks": len(doc.blocks), "rows": rows, "chars": chars,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_once(path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for rel in FILES:
        path = CORPUS / rel
        t0 = time.perf_counter()
        path.read_bytes()
        io_s = time.perf_counter() - t0
        runs = [run_once(path) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["seconds"])
        unit, count = UNITS.get(rel, ("rows", best["rows"]))
        print(
            json.dumps(
                {
                    "file": rel,
                    "seconds_best": round(best["seconds"], 2),
                    "seconds_all": [round(r["seconds"], 2) for r in runs],
                    f"{unit}_per_s": round(count / best["seconds"], 1),
                    "blocks": best["blocks"],
                    "chars": best["chars"],
                    "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1),
                    "raw_read_s": round(io_s, 4),
                },
                ensure_ascii=False,
            )
        )


if __name__ == "__main__":
    main()
