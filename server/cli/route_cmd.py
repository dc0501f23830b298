"""``officeqa route "INSTRUCTION" [--file-type T] [--explain] [--json]``; ``officeqa route --batch FILE.jsonl --json``.

Shows where the L0 rules send an instruction (no model, no index needed). Batch mode
reads one ``{"instruction", "file_type"?}`` object per line and prints one decision per line.
With ``--explain``, a table route also shows the structured query the question becomes over
the stored tables (``data_dir/tables.duckdb``), in words and SQL, or why it would be refused.
"""

from __future__ import annotations

import argparse
import json
import sys

from officeqa.settings import Settings
from server.cli.output import print_json_line
from server.cli.preflight import FILE

EXIT_USAGE = 2
TABLE_ROUTES = ("table_aggregate", "count", "list_values")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("route", help="Show which L0 rule and route an instruction gets.")
    p.add_argument("instruction", nargs="?", help="The instruction to route.")
    p.add_argument("--file-type", help="File type in scope (xlsx, docx, pdf, csv...), checked by rule preconditions.")
    p.add_argument("--explain", action="store_true", help="For every rule: matched or not, and why.")
    p.add_argument("--json", action="store_true", help="Print JSON (one object per line).")
    p.add_argument("--batch", help="A JSONL file of {\"instruction\", \"file_type\"?} objects to route.")
    p.set_defaults(handler=run, must_exist={"batch": FILE})


def run(args: argparse.Namespace, settings: Settings) -> int:
    from retrieval.l0 import get_router

    if bool(args.instruction) == bool(args.batch):
        print("officeqa: error: route takes either an INSTRUCTION or --batch FILE.jsonl", file=sys.stderr)
        return EXIT_USAGE
    router = get_router(settings)
    if args.batch:
        return _batch(args, router)
    decision = router.route(args.instruction, file_type=args.file_type, explain=args.explain)
    table = _table_query(args.instruction, decision.route, settings) if args.explain else None
    if args.json:
        out = decision.to_json(explain=args.explain)
        if table is not None:
            out["table_query"] = table
        print_json_line(out)
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
    if table is not None:
        print(f"table query: {table.get('query') or table.get('refused') or table.get('note')}")
        if table.get("sql"):
            print(f"  sql: {table['sql']}  params: {json.dumps(table['params'], ensure_ascii=False)}")
    return 0


def _table_query(instruction: str, route: str, settings: Settings) -> dict | None:
    """The stored-table query of a table route (words, SQL, parameters), a refusal, or why there is none."""
    if route not in TABLE_ROUTES:
        return None
    from indexing.table_store import TableStore, TableStoreError, table_store_path
    from retrieval.tables import plan_question
    from retrieval.tables.answer import is_chinese
    from retrieval.tables.execute import preview_sql

    path = table_store_path(settings)
    if not path.exists():
        return {"note": f"no table store at {path} (index spreadsheets first)"}
    try:
        with TableStore.from_settings(settings, read_only=True) as store:
            plan = plan_question(instruction, store, None, route)
    except TableStoreError as exc:
        return {"note": str(exc)}
    zh = is_chinese(instruction, None)
    if plan.query is None:
        assert plan.refusal is not None
        return {"refused": plan.refusal.zh if zh else plan.refusal.en, "candidates": plan.refusal.candidates}
    sql, params = preview_sql(plan.query)
    return {"query": plan.words(zh), "sql": sql, "params": params}


def _batch(args: argparse.Namespace, router) -> int:
    try:
        fh = open(args.batch, encoding="utf-8")  # noqa: SIM115 - closed below, lines streamed
    except OSError as exc:
        print(f"officeqa: error: cannot read {args.batch}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    with fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
                instruction = case["instruction"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                print(f"officeqa: error: {args.batch}:{number}: expected {{\"instruction\": ...}}: {exc}",
                      file=sys.stderr)
                return EXIT_USAGE
            decision = router.route(instruction, file_type=case.get("file_type"), explain=args.explain)
            out = decision.to_json(explain=args.explain)
            if args.json:
                print_json_line({"instruction": instruction, **out})
            else:
                print(f"{decision.route}\t{decision.rule_id or '-'}\t{decision.confidence:g}\t{instruction}")
    return 0
