"""One structured line per request: ``{"method", "path", "status", "ms", "key", "client"}`` on the
``officeqa.access`` logger (``officeqa serve`` writes it to stderr), and ``question`` only when
``server.access_log_questions`` is on: questions can be confidential, so they stay out by default.

The key is named by its id (``oqa_<id>_...``), never its secret; ``local`` in local mode, ``-``
when the request carried no valid key. The path is logged without its query string.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from litestar.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("officeqa.access")


def _key_label(state: dict) -> str:
    access = state.get("access")
    if access is None:
        return "-"
    if getattr(access, "local", False):
        return "local"
    key = getattr(access, "key", None)
    return key.id if key is not None else "-"


def access_log(with_questions: bool) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware factory writing the access line after each response."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def logged(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.perf_counter()
            status = 500
            logged = False

            def write() -> None:
                nonlocal logged
                logged = True
                state = scope.get("state") or {}
                record = {"method": scope["method"], "path": scope["path"], "status": status,
                          "ms": round((time.perf_counter() - started) * 1000, 1), "key": _key_label(state),
                          "client": (scope.get("client") or ("-",))[0]}
                if with_questions and state.get("question"):
                    record["question"] = state["question"]
                log.info(json.dumps(record, ensure_ascii=False))

            async def sending(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                elif message["type"] == "http.response.body" and not message.get("more_body", False):
                    write()  # before the last byte leaves: a client that got its answer finds the line written
                await send(message)

            try:
                await app(scope, receive, sending)
            finally:
                if not logged:
                    write()

        return logged

    return middleware


__all__ = ["access_log"]
