"""Extract the reports of ``eval/annual/reports_manifest.json`` from their git mirrors into one knowledge-base folder.

Why a script: the reports are public filings fetched into ``/work/.mirror/<owner>+<name>/repo`` (git directories
without a work tree); they are never committed here. Each is read with ``git show <commit>:<path>`` (the
commit the manifest records, so a newer mirror cannot change a report under its questions), checked against its
SHA-256 and written as ``<file>`` into the output folder, which ``bench/bench_annual.py --kb`` then indexes as
ONE knowledge base. A report whose mirror is absent is skipped with one line saying which mirror to fetch.

    python bench/annual_reports_fetch.py [--out bench/results/cache/annual-reports] [--mirrors /work/.mirror]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "eval" / "annual" / "reports_manifest.json"
DEFAULT_OUT = ROOT / "bench" / "results" / "cache" / "annual-reports"
DEFAULT_MIRRORS = Path("/work/.mirror")


def mirror_of(entry: dict[str, Any], mirrors: Path) -> Path:
    """The git directory of the entry's repository under ``mirrors`` (owner/name -> owner+name/repo)."""
    return mirrors / str(entry["repo"]).replace("/", "+") / "repo"


def extract(entry: dict[str, Any], mirrors: Path, out: Path) -> str:
    """Write one report into ``out``; return one line saying what happened (extracted, present, skipped)."""
    target = out / entry["file"]
    if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == entry["sha256"]:
        return f"present  {entry['file']}"
    git_dir = mirror_of(entry, mirrors)
    if not git_dir.is_dir():
        return f"skipped  {entry['file']}: mirror {git_dir} is absent (fetch github:{entry['repo']})"
    shown = subprocess.run(["git", "-C", str(git_dir), "show", f"{entry['commit']}:{entry['path']}"],
                           capture_output=True, check=False)
    if shown.returncode != 0:
        return f"skipped  {entry['file']}: {entry['path']} is not at {entry['commit'][:8]} in {git_dir}"
    if hashlib.sha256(shown.stdout).hexdigest() != entry["sha256"]:
        return f"skipped  {entry['file']}: its SHA-256 differs from the manifest's (a different file)"
    target.write_bytes(shown.stdout)
    return f"extracted {entry['file']} ({len(shown.stdout) // 1024} KiB)"


def fetch_all(out: Path = DEFAULT_OUT, mirrors: Path = DEFAULT_MIRRORS, manifest: Path = MANIFEST) -> list[str]:
    """Extract every report of the manifest; the lines say what happened to each."""
    out.mkdir(parents=True, exist_ok=True)
    entries = json.loads(manifest.read_text(encoding="utf-8"))
    return [extract(entry, mirrors, out) for entry in entries]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder to write the reports into")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="folder holding the git mirrors")
    args = parser.parse_args()
    lines = fetch_all(args.out, args.mirrors)
    print("\n".join(lines))
    skipped = sum(line.startswith("skipped") for line in lines)
    print(f"{len(lines) - skipped} of {len(lines)} reports in {args.out}")
    if skipped == len(lines):
        sys.exit(1)


if __name__ == "__main__":
    main()
