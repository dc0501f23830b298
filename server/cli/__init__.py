"""The ``officeqa`` command line: one module per command group, wired here.

Each module in ``COMMAND_MODULES`` exposes ``register(subparsers)``, which adds its
sub-commands and sets ``handler(args, settings) -> int`` as the parser default.
Handlers import heavy libraries lazily so that ``officeqa parse`` stays quick.

Before a handler runs, :mod:`server.cli.preflight` checks what its parser declared (``must_exist``: paths
that must be there; ``reads_kb``: a command that only reads needs a knowledge base), so a missing path or
an empty data folder fails before anything is opened or created.

Exit codes (every error is one ``officeqa: error: ...`` line on stderr, never a traceback; docs/errors.md
lists the lines):

    0    ok
    1    ``eval``: a metric dropped beyond its tolerance
    2    usage error (argparse, or options that cannot go together)
    3    a document could not be read (``parse``/``chunk``/``ask --doc``: one ``officeqa: cannot read FILE:
         KIND: why`` line, the refusal kind in it)
    4    other product error: a path that does not exist (``not found: PATH``), no knowledge base in the
         data folder, stores disagree, a model unreachable, a bad filter, a file the system refuses, ...
    5    configuration error: settings (unknown key, wrong type, out of bounds, missing or
         invalid --config file), a rule file or a prompt template that cannot be used
    130  interrupted (Ctrl-C); 141 the reader of stdout went away
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from officeqa.errors import ConfigurationError, OfficeQAError
from officeqa.settings import load_settings
from server.cli.preflight import check_arguments

COMMAND_MODULES: list[str] = [
    "server.cli.route_cmd",
    "server.cli.parse_cmd",
    "server.cli.chunk_cmd",
    "server.cli.index_cmd",
    "server.cli.jobs_cmd",
    "server.cli.embed_cmd",
    "server.cli.eval_retrieval_cmd",
    "server.cli.ask_cmd",
    "server.cli.eval_cmd",
    "server.cli.summarize_cmd",
    "server.cli.serve_cmd",
    "server.cli.keys_cmd",
    "server.cli.migrate_cmd",
]

EXIT_USAGE = 2
EXIT_PRODUCT_ERROR = 4
EXIT_CONFIGURATION_ERROR = 5


class _Parser(argparse.ArgumentParser):
    """argparse with the product's error form: one ``officeqa: error:`` line naming the command and where its
    usage is shown (argparse's own form is a usage block, then ``officeqa parse: error: ...``), exit 2."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("officeqa").strip()
        where = f"{command}: " if command else ""
        self.exit(EXIT_USAGE, f"officeqa: error: {where}{message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered sub-command."""
    parser = _Parser(prog="officeqa", description="Local-first RAG over office documents.")
    parser.add_argument("--config", help="TOML settings file (else OFFICEQA_CONFIG, else defaults + env).")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``officeqa`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = load_settings(args.config)
        check_arguments(args, settings)
        return int(args.handler(args, settings) or 0)
    except ConfigurationError as exc:
        print(f"officeqa: error: {exc}", file=sys.stderr)
        return EXIT_CONFIGURATION_ERROR
    except OfficeQAError as exc:
        print(f"officeqa: error: {exc}", file=sys.stderr)
        return EXIT_PRODUCT_ERROR
    except KeyboardInterrupt:
        print("officeqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`officeqa parse --json f | head`): stop quietly, like other CLI tools.
        sys.stderr.close()
        return 141
    except OSError as exc:
        # The system refused a file this command writes or reads (permissions, a full disk): one line naming it.
        print(f"officeqa: error: {_os_error(exc)}", file=sys.stderr)
        return EXIT_PRODUCT_ERROR


def _os_error(exc: OSError) -> str:
    """``PATH: reason`` of an OSError (the file it names, the system's words), without Python's ``[Errno N]``."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
