"""``officeqa serve [--host H] [--port P] [--kb NAME ...] [--no-model]``: run the HTTP server and web client.

With no active API key the server binds to 127.0.0.1 whatever ``--host`` says, and says so:
an unauthenticated server must not be reachable from the network. ``--kb`` (repeatable)
names the knowledge bases to serve (created when missing); by default ``default`` and every
folder under ``server.kb_root``.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys

from officeqa.settings import Settings

LOCALHOST = "127.0.0.1"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("serve", help="Run the HTTP API and the web chat client.")
    p.add_argument("--host", help="Bind address (default server.host; localhost only while no API key exists).")
    p.add_argument("--port", type=int, help="Bind port (default server.port).")
    p.add_argument("--kb", action="append", default=[], metavar="NAME",
                   help="A knowledge base to serve (repeatable; default: 'default' and every one under kb_root).")
    p.add_argument("--no-model", action="store_true", help="Never call Ollama: extractive and rule answers only.")
    p.set_defaults(handler=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_host(settings: Settings, requested: str, has_keys: bool) -> tuple[str, str | None]:
    """The address to bind and, when it differs from the one asked for, why."""
    if has_keys or is_loopback(requested):
        return requested, None
    return LOCALHOST, (
        f"no API key is configured: binding to {LOCALHOST} only (not {requested}). Create one with "
        "`officeqa keys create --kb NAME --role read|write` to serve the network."
    )


def _log_access_to_stderr() -> None:
    """The access log's JSON lines (``officeqa.access``, :mod:`server.access_log`) go to stderr, one per request."""
    import logging

    logger = logging.getLogger("officeqa.access")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def run(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from server.app import create_app
    from server.keys import KeyStore, keys_path
    from server.knowledge_bases import check_name

    update: dict = {}
    if args.host:
        update["host"] = args.host
    if args.port:
        update["port"] = args.port
    if args.kb:
        update["knowledge_bases"] = [check_name(n) for n in args.kb]
    settings = settings.model_copy(update={"server": settings.server.model_copy(update=update)})
    has_keys = KeyStore(keys_path(settings)).has_active_keys()
    host, warning = bind_host(settings, settings.server.host, has_keys)
    if warning:
        print(f"officeqa: {warning}", file=sys.stderr)
    elif not has_keys:
        print(f"officeqa: no API key is configured: local mode, reachable from this machine only ({host}).",
              file=sys.stderr)
    if settings.server.access_log:
        _log_access_to_stderr()
    app = create_app(settings, generator=None if args.no_model else "ollama")
    shown = "localhost" if host in (LOCALHOST, "localhost") else host
    print(f"officeqa: serving on http://{shown}:{settings.server.port}/  (API docs: /schema)", flush=True)
    uvicorn.run(app, host=host, port=settings.server.port, log_level="warning")
    return 0
