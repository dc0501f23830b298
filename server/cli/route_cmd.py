"""``officeqa route "INSTRUCTION" [--file-type T] [--explain] [--json]``; ``officeqa route --batch FILE.jsonl --json``.

Shows where the L0 rules send an instruction (no model, no index needed). Batch mode
reads one ``{"instruction", "file_type"?}`` object per line and prints one decision per line.
"""

from __future__ import annotations

import argparse
import json
import sys

from officeqa.settings import Settings
from server.cli.output import print_json_line

EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("route", help="Show which L0 rule and route an instruction gets.")
    p.add_argument("instruction", nargs="?", help="The instruction to route.")
    p.add_argument("--file-type", help="File type in scope (xlsx, docx, pdf, csv...), checked by rule preconditions.")
    p.add_argument("--explain", action="store_true", help="For every rule: matched or not, and why.")
    p.add_argument("--json", action="store_true", help="Print JSON (one object per line).")
    p.add_argument("--batch", help="A JSONL file of {\"instruction\", \"file_type\"?} objects to route.")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from retrieval.l0 import get_router

    if bool(args.instruction) == bool(args.batch):
        print("officeqa route: give either an INSTRUCTION or --batch FILE.jsonl", file=sys.stderr)
        return EXIT_USAGE
    router = get_router(settings)
    if args.batch:
        return _batch(args, router)
    decision = router.route(args.instruction, file_type=args.file_type, explain=args.explain)
    if args.json:
        print_json_line(decision.to_json(explain=args.explain))
        return 0
    print(f"route: {decision.route}  (rule {decision.rule_id or '-'}, confidence {decision.confidence:g}, "
          f"mode {decision.mode})")
    if decision.params:
        print(f"params: {json.dumps(decision.params, ensure_ascii=False)}")
    print(f"why: {decision.explanation}")
    if decision.input_capped:
        print(f"note: instruction cut to {settings.rules.max_input_chars} characters before matching")
    if args.explain:
        print(decision.explain_text())
    return 0


def _batch(args: argparse.Namespace, router) -> int:
    try:
        fh = open(args.batch, encoding="utf-8")  # noqa: SIM115 - closed below, lines streamed
    except OSError as exc:
        print(f"officeqa route: cannot read {args.batch}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                instruction = case["instruction"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                print(f"officeqa route: {args.batch}:{number}: expected {{\"instruction\": ...}}: {exc}",
                      file=sys.stderr)
                return EXIT_USAGE
            decision = router.route(instruction, file_type=case.get("file_type"), explain=args.explain)
            out = decision.to_json(explain=args.explain)
            if args.json:
                print_json_line({"instruction": instruction, **out})
            else:
                print(f"{decision.route}\t{decision.rule_id or '-'}\t{decision.confidence:g}\t{instruction}")
    return 0
