"""``officeqa eval-retrieval --corpus C.jsonl --questions Q.jsonl [--modes bm25,dense,hybrid] [-k 10] [--json]``.

Indexes the corpus into a temporary knowledge base and prints nDCG@k, Recall@1/5/10/100
and MRR@k per mode, ranking by document (see :mod:`eval.retrieval_eval`).
"""

from __future__ import annotations

import argparse
import sys

from officeqa.settings import Settings
from server.cli.output import print_json_line
from server.cli.preflight import FILE


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("eval-retrieval", help="Score retrieval modes on a JSONL corpus and question set.")
    p.add_argument("--corpus", required=True, help='JSONL, one document per line: {"id", "title", "text"}.')
    p.add_argument("--questions", required=True, help='JSONL: {"id", "question", "gold_doc_ids": [...]}.')
    p.add_argument("--modes", default="bm25,dense,hybrid", help="Comma-separated modes (default all three).")
    p.add_argument("-k", type=int, default=10, help="Cut-off of nDCG and MRR (default 10).")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.add_argument("--no-progress", action="store_true", help="No progress bars on stderr.")
    p.set_defaults(handler=run, must_exist={"corpus": FILE, "questions": FILE})


def run(args: argparse.Namespace, settings: Settings) -> int:
    from eval.retrieval_eval import run_retrieval_eval

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    result = run_retrieval_eval(
        args.corpus,
        args.questions,
        settings,
        modes=modes,
        k=args.k,
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    if args.json:
        print_json_line(result.to_json())
    else:
        print(result.table())
        print(f"indexed in {result.index_seconds:.1f}s; " + ", ".join(
            f"{mode} {secs:.1f}s" for mode, secs in result.query_seconds.items()
        ) + f" for {result.questions} questions")
    return 0
