"""The one place where errors become HTTP responses.

Every error answer has OpenAI's error shape, which every endpoint shares, with this API's
``kind`` beside it: ``{"error": {"message", "type", "param", "code", "kind"}}`` (``code`` =
``kind``; ``type`` is OpenAI's class: ``invalid_request_error``, ``authentication_error``,
``permission_error``, ``not_found_error``, ``rate_limit_error``, ``server_error``; ``param``
names the offending field when one does), plus ``file`` and ``files`` for refused uploads and
``fields`` for a request that failed validation, and a 4xx/5xx status; no handler answers 200
with an error. The product's exceptions (:mod:`officeqa.errors`) map by type; Litestar's own
(validation, unknown route, body too large) by their status. A refusal that passes with time
(429, 503) says when to retry in ``Retry-After``. Anything else is a bug: logged with its
traceback, answered 500. Messages are one line, without class names or server paths.
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from officeqa.errors import (
    ConfigurationError,
    DocumentNotFound,
    IndexConsistencyError,
    InvalidFilter,
    ModelUnavailable,
    NotAuthenticated,
    OfficeQAError,
    PermissionDenied,
    StoreUnavailable,
    UnknownKnowledgeBase,
    UnreadableDocument,
    UploadRejected,
)

log = logging.getLogger(__name__)

#: (exception type, status, kind), most specific first
_PRODUCT: list[tuple[type[OfficeQAError], int, str]] = [
    (NotAuthenticated, 401, "unauthenticated"),
    (PermissionDenied, 403, "forbidden"),
    (UnknownKnowledgeBase, 404, "unknown_knowledge_base"),
    (DocumentNotFound, 404, "not_found"),
    (InvalidFilter, 400, "invalid_filter"),
    (UnreadableDocument, 422, "unreadable"),
    (ModelUnavailable, 503, "model_unavailable"),
    (StoreUnavailable, 503, "store_unavailable"),
    (ConfigurationError, 500, "configuration"),
    (IndexConsistencyError, 500, "index_inconsistent"),
]
_UPLOAD_STATUS = {"too_large": 413, "too_many_files": 413, "unsupported": 415}
_HTTP_KINDS = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "too_large", 415: "unsupported_media_type", 429: "too_many_requests"}


#: How long a client waits before retrying a store outage (seconds; sent as Retry-After).
STORE_RETRY_AFTER_S = 5
STORE_MESSAGE = "the document store is not reachable right now; try again in a few seconds"


class RateLimited(Exception):
    """Too many requests from one key or address; ``retry_after`` seconds until the next is accepted."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = max(1, int(retry_after + 0.999))


class RequestRefused(Exception):
    """A request the size and content policy refuses (:mod:`server.limits`): an empty question, one too long,
    too many messages. ``kind`` is the error code, ``param`` the offending field."""

    def __init__(self, message: str, kind: str = "invalid_request", param: str | None = None,
                 status: int = 400) -> None:
        super().__init__(message)
        self.kind = kind
        self.param = param
        self.status = status


def openai_type(status: int) -> str:
    """OpenAI's error class for a status code."""
    if status == 401:
        return "authentication_error"
    if status == 403:
        return "permission_error"
    if status == 404:
        return "not_found_error"
    if status == 429:
        return "rate_limit_error"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"


def error_body(kind: str, message: str, *, status: int = 400, param: str | None = None,
               **extra: Any) -> dict[str, Any]:
    return {"error": {"message": message, "type": openai_type(status), "param": param, "code": kind,
                      "kind": kind, **extra}}


def _field_name(key: Any) -> str | None:
    """``body.messages[0].content`` style keys of Litestar's validation errors -> ``messages``."""
    if not isinstance(key, str) or not key:
        return None
    return key.removeprefix("body.").split(".")[0].split("[")[0] or None


def status_and_body(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """The status code and JSON body for an exception (also used for errors inside a stream)."""
    if isinstance(exc, UploadRejected):
        statuses = {_UPLOAD_STATUS.get(p.kind, 400) for p in exc.problems}
        status = statuses.pop() if len(statuses) == 1 else 400
        return status, error_body(exc.kind, exc.message, status=status, param="files", file=exc.file,
                                  files=[p.to_json() for p in exc.problems])
    if isinstance(exc, UnreadableDocument):
        return 422, error_body(exc.kind.value, exc.message, status=422, file=exc.path)
    if isinstance(exc, StoreUnavailable):
        return 503, error_body("store_unavailable", STORE_MESSAGE, status=503)
    for kind_type, status, kind in _PRODUCT:
        if isinstance(exc, kind_type):
            return status, error_body(getattr(exc, "reason", None) or kind, str(exc), status=status)
    if isinstance(exc, OfficeQAError):
        return 500, error_body("error", str(exc), status=500)
    if isinstance(exc, RateLimited):
        return 429, error_body("rate_limited", str(exc), status=429)
    if isinstance(exc, RequestRefused):
        return exc.status, error_body(exc.kind, str(exc), status=exc.status, param=exc.param)
    if isinstance(exc, ValidationException):
        fields = exc.extra if isinstance(exc.extra, list) else []
        detail = "; ".join(f"{f.get('key', '?')}: {f.get('message', '')}" for f in fields if isinstance(f, dict))
        param = next((_field_name(f.get("key")) for f in fields if isinstance(f, dict)), None)
        return 400, error_body("invalid_request", detail or exc.detail, status=400, param=param, fields=fields)
    if isinstance(exc, HTTPException):
        status = exc.status_code
        return status, error_body(_HTTP_KINDS.get(status, "http_error"), exc.detail, status=status)
    return 500, error_body("internal", "internal server error; the server log has the cause", status=500)


def retry_after(exc: BaseException) -> int | None:
    """Seconds a client should wait before retrying, for refusals that pass with time."""
    if isinstance(exc, RateLimited):
        return exc.retry_after
    if isinstance(exc, StoreUnavailable):
        return STORE_RETRY_AFTER_S
    return None


def exception_to_response(request: Request, exc: Exception) -> Response[dict[str, Any]]:
    """Litestar's exception handler for every exception type (registered once in :func:`server.app.create_app`)."""
    status, body = status_and_body(exc)
    if status >= 500 and not isinstance(exc, OfficeQAError | HTTPException):
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    elif isinstance(exc, StoreUnavailable):
        log.warning("store unavailable on %s %s: %s", request.method, request.url.path, exc)
    headers: dict[str, str] = {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="officeqa"'
    wait = retry_after(exc)
    if wait is not None:
        headers["Retry-After"] = str(wait)
    return Response(content=body, status_code=status, headers=headers or None)


__all__ = ["RateLimited", "RequestRefused", "error_body", "exception_to_response", "openai_type", "retry_after",
           "status_and_body"]
