"""``officeqa migrate --to postgres``: copy the embedded knowledge base of data_dir into PostgreSQL.

    officeqa migrate --to postgres [--json]

The target is ``storage.postgres_dsn`` / ``storage.postgres_schema`` (OFFICEQA_STORAGE__POSTGRES_DSN, ...);
vectors are copied from Chroma, nothing is embedded again. Afterwards set
``OFFICEQA_STORAGE__BACKEND=postgres`` and run ``officeqa check``.
"""

from __future__ import annotations

import argparse
import sys

from officeqa.settings import Settings
from server.cli.output import print_json_line


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("migrate", help="Copy the embedded knowledge base into PostgreSQL (no re-embedding).")
    p.add_argument("--to", required=True, choices=["postgres"], help="The target backend.")
    p.add_argument("--json", action="store_true", help="One JSON object.")
    p.set_defaults(handler=run_migrate, reads_kb=True)


def run_migrate(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.postgres.migrate import migrate_to_postgres

    progress = None if args.json else (lambda text: print(text, file=sys.stderr))
    report = migrate_to_postgres(settings, on_progress=progress)
    if args.json:
        print_json_line(report.to_json())
    else:
        print(
            f"copied {report.documents} documents, {report.chunks} chunks and {report.jobs} jobs from "
            f"{settings.data_dir} to {report.target} in {report.seconds:.1f}s (nothing re-embedded); "
            "now set OFFICEQA_STORAGE__BACKEND=postgres and run `officeqa check`"
        )
    return 0
