"""Hostile inputs through the real CLI: outcome, wall time and peak RSS (summed over the process tree).

Each probe (tests/hostile_probes.py; issue #16) goes through ``officeqa parse --json`` and
``officeqa chunk --stats`` in a fresh process, then one ``officeqa index`` runs over a folder
of all probes plus ordinary files. Peak RSS is sampled every 20 ms from /proc over the CLI
process and all its descendants (the guarded parse worker included) and summed. Baseline in
the same run: ``officeqa parse`` / ``chunk`` of a two-line text file (interpreter start-up and
imports), so times read as a ratio to it.

    python bench/bench_hostile.py [--quick] [--keep DIR] [--json OUT]
    python bench/bench_hostile.py --corpus      # address space each corpus file needs (sets parsing.max_memory_mb)
    python bench/bench_hostile.py --rules       # stacked-repeat rule regexes: re vs the check and the timeout

``--quick`` shrinks the biggest probes (300 MB bomb instead of 1.2 GB, 20 MB text instead of 100 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import hostile_probes as hp  # noqa: E402 - the generators live beside the tests that use them

OFFICEQA = Path(sys.executable).parent / "officeqa"
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()


def probes(quick: bool) -> dict[str, Callable[[Path], Path]]:
    big = 20 if quick else 100
    return {
        "zip_bomb.docx": lambda p: hp.zip_bomb_docx(p, 300 if quick else 1200),
        "zip_bomb.xlsx": lambda p: hp.zip_bomb_xlsx(p, 300),
        "huge_cell.xlsx": lambda p: hp.huge_cell_xlsx(p, 100),
        "entity_bomb_xxe.docx": hp.entity_bomb_docx,
        "one_line_50mb.csv": hp.csv_one_line_of_cells,
        "one_field_50mb.csv": hp.csv_one_huge_field,
        f"one_char_{big}mb.txt": lambda p: hp.one_char_txt(p, big),
        "unbroken_chinese_10mb.txt": hp.unbroken_chinese_txt,
        "spaces_200k.txt": hp.spaces_line_txt,
        "dots_1m.txt": hp.dots_txt,
        "deep_nesting_100k.html": hp.deep_nesting_html,
        "headings_100k.md": hp.many_headings_md,
    }


def run(args: list[str], env: dict[str, str], timeout: float = 900) -> dict:
    """Run the CLI; exit code, output tails, wall seconds and peak RSS (MB) summed over its process tree."""
    result = hp.run_measured([str(OFFICEQA), *args], env, hang_guard_s=timeout)
    return {"rc": result.returncode, "wall_s": result.wall_s, "peak_mb": round(result.peak_mb),
            "stdout": result.stdout[-4000:], "stderr": result.stderr[-2000:], "stdout_bytes": len(result.stdout)}


def _outcome(result: dict) -> str:
    if "Traceback" in result["stderr"]:
        return "TRACEBACK"
    if result["rc"] == 0:
        return "ok"
    for kind in ("too_large", "timeout", "corrupt", "empty", "unsupported", "encrypted", "no_text_layer"):
        if f": {kind}: " in result["stderr"]:
            return kind
    return f"exit {result['rc']}"


def bench_probes(folder: Path, quick: bool, env: dict[str, str]) -> list[dict]:
    rows = []
    baseline = folder / "baseline.txt"
    baseline.write_text("基线。\n第二行。\n", encoding="utf-8")
    base = {cmd: run([cmd, str(baseline)], env) for cmd in ("parse", "chunk")}
    rows.append({"probe": "baseline.txt", "size_mb": 0.0, **{f"{c}_{k}": base[c][k] for c in base for k in ("wall_s",
                 "peak_mb")}, "parse": "ok", "chunk": "ok"})
    for name, make in probes(quick).items():
        path = make(folder / name)
        row: dict = {"probe": name, "size_mb": round(path.stat().st_size / 2**20, 1)}
        for cmd, extra in (("parse", ["--json"]), ("chunk", ["--stats"])):
            result = run([cmd, *extra, str(path)], env)
            row[cmd] = _outcome(result)
            row[f"{cmd}_wall_s"] = result["wall_s"]
            row[f"{cmd}_x_base"] = round(result["wall_s"] / max(base[cmd]["wall_s"], 1e-3), 1)
            row[f"{cmd}_peak_mb"] = result["peak_mb"]
            if cmd == "chunk" and result["rc"] == 0:
                line = result["stdout"].strip().splitlines()[-1]
                metrics = json.loads(line)["metrics"]
                row["chunks"] = metrics["chunk_count"]
                row["max_tokens"] = metrics["max_tokens"]
            if result["rc"] not in (0,):
                row[f"{cmd}_message"] = result["stderr"].strip().splitlines()[-1][:200] if result["stderr"] else ""
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    return rows


def bench_index(folder: Path, env: dict[str, str]) -> dict:
    hp.normal_files(folder)
    data = Path(tempfile.mkdtemp(prefix="officeqa-hostile-kb-"))
    env = {**env, "OFFICEQA_DATA_DIR": str(data), "OFFICEQA_EMBEDDING__BACKEND": "hash"}
    result = run(["index", str(folder), "--json"], env, timeout=3600)
    out = {"wall_s": result["wall_s"], "peak_mb": result["peak_mb"], "rc": result["rc"],
           "traceback": "Traceback" in result["stderr"]}
    try:
        report = json.loads(result["stdout"].strip().splitlines()[-1])
        failed = {f["path"].rsplit("/", 1)[-1]: f["kind"] for f in report["failed"]}
        out.update(added=report.get("added"), failed=failed)
    except (ValueError, IndexError, KeyError):
        out["stdout"] = result["stdout"][-500:]
    check = run(["check", "--json"], env)
    out["check_rc"] = check["rc"]
    return out


# ---------------------------------------------------------------- corpus address space

_CORPUS_CHILD = r"""
import sys, time
from indexing.parsing.guard import _limit_worker
from officeqa.settings import ChunkingSettings, ParsingSettings
_limit_worker(ParsingSettings(max_memory_mb=0), "/dev/null")  # what the worker does, minus the cap
from indexing.parsing.dispatch import parse_file
from indexing.chunking import chunk_document
started = time.perf_counter()
kind = "ok"
try:
    chunk_document(parse_file(sys.argv[1], settings=ParsingSettings()), ChunkingSettings())
except Exception as exc:
    kind = str(getattr(exc, "kind", type(exc).__name__))
status = dict(line.split(":", 1) for line in open("/proc/self/status") if line.startswith(("VmPeak", "VmHWM")))
print("RESULT", kind, int(status["VmPeak"].split()[0]) // 1024, int(status["VmHWM"].split()[0]) // 1024,
      round(time.perf_counter() - started, 2))
"""


def bench_corpus() -> list[dict]:
    rows = []
    for path in sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.name != "README.md"):
        proc = subprocess.run([sys.executable, "-c", _CORPUS_CHILD, str(path)], capture_output=True, text=True,
                              cwd=ROOT)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT")), None)
        if line is None:
            rows.append({"file": str(path.relative_to(CORPUS)), "error": proc.stderr[-300:]})
            continue
        _, kind, vm_peak, rss_peak, seconds = line.split()
        row = {"file": str(path.relative_to(CORPUS)), "outcome": kind, "vm_peak_mb": int(vm_peak),
               "rss_peak_mb": int(rss_peak), "seconds": float(seconds)}
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
    peak = max(rows, key=lambda r: r.get("vm_peak_mb", 0))
    print(f"largest address space: {peak['vm_peak_mb']} MB ({peak['file']}); cores: {os.cpu_count()}")
    return rows


# ---------------------------------------------------------------- rule regexes

_ISSUE_PATTERN = "a{0,2000}a{0,2000}a{0,2000}b"


def _timed(call: Callable[[], object]) -> tuple[float, str]:
    started = time.perf_counter()
    try:
        call()
        outcome = "ok"
    except Exception as exc:  # noqa: BLE001 - the bench reports what happened, whatever it was
        outcome = type(exc).__name__
    return round(time.perf_counter() - started, 4), outcome


def bench_rules(env: dict[str, str], folder: Path) -> dict:
    """Before: ``re`` on the issue's pattern (cubic: timed on short inputs). After: refused at load, and
    a pattern let through still stopped by the 50 ms regex timeout."""
    import re

    from retrieval.rules.safety import RuleRegex, check_regex

    out: dict = {"re_issue_pattern_s": {}}
    for n in (100, 200, 300):
        out["re_issue_pattern_s"][n] = _timed(lambda n=n: re.search(_ISSUE_PATTERN, "a" * n))[0]
    n300 = out["re_issue_pattern_s"][300]
    out["re_issue_pattern_2000_chars_estimate_s"] = round(n300 * (2000 / 300) ** 3)
    out["check_regex_s"] = _timed(lambda: check_regex(_ISSUE_PATTERN))
    rules = folder / "user_rules.yaml"
    rules.write_text(
        f"rules:\n  - id: stacked\n    route: extract_email\n    triggers: [{{regex: ['{_ISSUE_PATTERN}']}}]\n",
        encoding="utf-8",
    )
    result = run(["route", "a" * 2000], {**env, "OFFICEQA_RULES__USER_RULES_FILE": str(rules)})
    out["route_with_issue_rule"] = {"rc": result["rc"], "wall_s": result["wall_s"],
                                    "stderr": result["stderr"].strip()[:200]}
    unguarded = "[ab]{0,2000}[ac]{0,2000}[ad]{0,2000}$"  # the check would refuse it; here only the timeout stands
    subject = "a" * 2000 + "e"
    out["regex_timeout_on_unchecked_pattern_s"] = _timed(lambda: RuleRegex(unguarded).search(subject))
    accepted = "a{0,30}a{0,30}b{0,30}b{0,30}$"  # the check accepts it (two chains of 961 splits)
    check_regex(accepted)
    subject = "a" * 1000 + "b" * 1000 + "c"
    out["accepted_worst_re_s"] = _timed(lambda: re.search(accepted, subject))
    out["accepted_worst_regex_s"] = _timed(lambda: RuleRegex(accepted).search(subject))
    print(json.dumps(out, ensure_ascii=False))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller versions of the biggest probes")
    parser.add_argument("--keep", type=Path, help="write the probes here and keep them")
    parser.add_argument("--json", type=Path, help="write all results to this JSON file")
    parser.add_argument("--corpus", action="store_true", help="measure the corpus files' address space instead")
    parser.add_argument("--no-index", action="store_true", help="skip the folder index run")
    parser.add_argument("--rules", action="store_true", help="measure rule-regex safety instead")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFICEQA_")}
    if args.corpus:
        results: dict = {"corpus": bench_corpus(), "cpu_count": os.cpu_count()}
    elif args.rules:
        results = {"rules": bench_rules(env, Path(tempfile.mkdtemp(prefix="officeqa-rules-")))}
    else:
        folder = args.keep or Path(tempfile.mkdtemp(prefix="officeqa-hostile-"))
        folder.mkdir(parents=True, exist_ok=True)
        results = {"probes": bench_probes(folder, args.quick, env)}
        if not args.no_index:
            results["index"] = bench_index(folder, env)
            print(json.dumps(results["index"], ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
