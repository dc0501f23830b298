"""CLI commands over an indexed knowledge base: this code against another code root, alternating, in one run.

Each command runs in a fresh interpreter (what a user at a shell gets) under each root in turn, ``--rounds`` times,
the order alternating; per run the wall seconds and the child's CPU seconds (user + system, ``getrusage``: the
part other jobs' load does not stretch), and whether both roots printed the same output.

    python bench/bench_cli_startup.py --data DATA_DIR --today-root /tmp/today [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = {
    "search --mode hybrid": ["search", "What was the loss after taxation?", "--mode", "hybrid", "-k", "5"],
    "search --mode bm25": ["search", "What was the loss after taxation?", "--mode", "bm25", "-k", "5"],
    "ask --no-model (a figure)": ["ask", "What was Armadale Capital's loss after taxation for 2022?", "--no-model"],
    "ask --no-model (a passage)": ["ask", "What are the main risks Swiss Water faces?", "--no-model"],
}


def run_once(root: Path, data: Path, args: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of ``officeqa ARGS`` with the code under ``root``."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "OFFICEQA_DATA_DIR": str(data), "HOME": str(Path.home()),
           "OFFICEQA_OLLAMA__HOST": "http://127.0.0.1:9"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=root, env=env, capture_output=True,
                         text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--today-root", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    roots = {"today": Path(args.today_root).resolve(), "this code": REPO}
    data = Path(args.data).resolve()
    result: dict[str, dict] = {}
    for label, command in COMMANDS.items():
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in roots}
        outputs: dict[str, str] = {}
        for i in range(args.rounds):
            for name in list(roots) if i % 2 == 0 else list(reversed(roots)):
                wall, cpu, out = run_once(roots[name], data, command)
                runs[name].append((wall, cpu))
                outputs[name] = out
        row = {name: {"wall_s": round(statistics.median(w for w, _ in r), 2),
                      "cpu_s": round(statistics.median(c for _, c in r), 2)} for name, r in runs.items()}
        row["wall_ratio"] = round(row["this code"]["wall_s"] / row["today"]["wall_s"], 2)
        row["cpu_ratio"] = round(row["this code"]["cpu_s"] / row["today"]["cpu_s"], 2)
        row["same_output"] = outputs["today"] == outputs["this code"]
        result[label] = row
        print(label, json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps({"machine_load": os.getloadavg()[0], "commands": result}, indent=1))


if __name__ == "__main__":
    main()
