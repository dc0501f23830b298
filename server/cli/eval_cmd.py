"""``officeqa eval [--tasks FILE] [--generator extractive|fake|ollama] [--json] [--baseline FILE] [--out DIR]``.

Indexes the eval knowledge base into a temporary data folder (the configured settings otherwise:
embedder, chunking, fusion, rules), asks every task through the question service and prints the
Markdown report (or, with ``--json``, one object with ``tasks`` and ``metrics``). Compared with
the baseline (``eval/baseline.json`` unless ``--baseline``/``--no-baseline``), a metric that drops
beyond its tolerance makes the exit status 1. ``--out DIR`` writes ``eval-<generator>.json`` and
``eval-<generator>.md``; ``--update-baseline`` records this run as the generator's baseline.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from officeqa.settings import Settings
from server.cli.output import print_json_line
from server.cli.preflight import ANY, FILE

EXIT_REGRESSION = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    from eval.harness import GENERATORS

    p = subparsers.add_parser("eval", help="Run the task eval over the generated knowledge base; gate on a baseline.")
    p.add_argument("--tasks", help="Task file (JSONL; default eval/tasks.jsonl).")
    p.add_argument("--generator", choices=GENERATORS, default="extractive",
                   help="extractive = no model; fake = a deterministic local Ollama stand-in; "
                        "ollama = settings.ollama.")
    p.add_argument("--json", action="store_true", help="Print one JSON object (tasks, metrics, comparison).")
    p.add_argument("--baseline", help="Baseline file to gate on (default eval/baseline.json).")
    p.add_argument("--no-baseline", action="store_true", help="Do not compare with a baseline.")
    p.add_argument("--update-baseline", action="store_true",
                   help="Write this run into the baseline file as its generator's entry (after comparing).")
    p.add_argument("--out", metavar="DIR", help="Write eval-<generator>.json and eval-<generator>.md here.")
    p.add_argument("--kb", metavar="DIR", help="Knowledge-base folder the tasks refer to (default eval/kb/files).")
    p.add_argument("--data-dir", metavar="DIR",
                   help="Index into this folder and keep it (re-runs skip unchanged files) instead of a temporary one; "
                        "it must hold the eval knowledge base only.")
    # --baseline may name a file --update-baseline is to create; --data-dir is created
    p.set_defaults(handler=run, must_exist={"tasks": FILE, "kb": ANY})


def run(args: argparse.Namespace, settings: Settings) -> int:
    import json

    from eval.baseline import DEFAULT_BASELINE, compare, load_baseline, update_baseline
    from eval.harness import print_progress, run_eval
    from eval.kb import KB_DIR
    from eval.report_md import markdown
    from eval.tasks import DEFAULT_TASKS, load_tasks

    tasks = load_tasks(args.tasks or DEFAULT_TASKS)
    baseline_path = Path(args.baseline) if args.baseline else DEFAULT_BASELINE
    baseline = None
    if not args.no_baseline and (args.baseline or baseline_path.exists()):
        baseline = load_baseline(baseline_path)  # before the run: a bad file fails in a second, not a minute
    progress = print_progress if sys.stderr.isatty() else None
    report = run_eval(settings, tasks, args.generator, kb_dir=Path(args.kb) if args.kb else KB_DIR,
                      data_dir=Path(args.data_dir) if args.data_dir else None, progress=progress)
    comparison = compare(report, baseline, str(baseline_path)) if baseline is not None else None
    if comparison is not None:
        report.comparison = comparison.to_json()
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / f"eval-{args.generator}.json").write_text(
            json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        (out / f"eval-{args.generator}.md").write_text(markdown(report), encoding="utf-8")
    if args.json:
        print_json_line(report.to_json())
    else:
        sys.stdout.write(markdown(report))
    if args.update_baseline:
        update_baseline(baseline_path, report)
        print(f"officeqa eval: baseline for {args.generator} written to {baseline_path}", file=sys.stderr)
        return 0
    if comparison is None:
        return 0
    if not comparison.found:
        print(f"officeqa eval: no baseline for generator {args.generator} in {baseline_path}; nothing gated",
              file=sys.stderr)
        return 0
    for regression in comparison.regressions:
        print(f"officeqa eval: {regression}", file=sys.stderr)
    return 0 if comparison.passed else EXIT_REGRESSION
