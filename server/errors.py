"""The one place where errors become HTTP responses.

Every error answer has the body ``{"error": {"kind": ..., "message": ...}}`` (plus ``file``
and ``files`` for refused uploads, ``fields`` for a request that failed validation) and a
4xx/5xx status; no handler answers 200 with an error. The product's exceptions
(:mod:`officeqa.errors`) map by type; Litestar's own (validation, unknown route, body too
large) by their status. Anything else is a bug: logged with its traceback, answered 500.
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
    (ConfigurationError, 500, "configuration"),
    (IndexConsistencyError, 500, "index_inconsistent"),
]
_UPLOAD_STATUS = {"too_large": 413, "too_many_files": 413, "unsupported": 415}
_HTTP_KINDS = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "too_large", 415: "unsupported_media_type", 429: "too_many_requests"}


def error_body(kind: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"kind": kind, "message": message, **extra}}


def status_and_body(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """The status code and JSON body for an exception (also used for errors inside a stream)."""
    if isinstance(exc, UploadRejected):
        statuses = {_UPLOAD_STATUS.get(p.kind, 400) for p in exc.problems}
        status = statuses.pop() if len(statuses) == 1 else 400
        return status, error_body(exc.kind, exc.message, file=exc.file, files=[p.to_json() for p in exc.problems])
    if isinstance(exc, UnreadableDocument):
        return 422, error_body(exc.kind.value, exc.message, file=exc.path)
    for kind_type, status, kind in _PRODUCT:
        if isinstance(exc, kind_type):
            return status, error_body(getattr(exc, "reason", None) or kind, str(exc))
    if isinstance(exc, OfficeQAError):
        return 500, error_body("error", str(exc))
    if isinstance(exc, ValidationException):
        fields = exc.extra if isinstance(exc.extra, list) else []
        detail = "; ".join(f"{f.get('key', '?')}: {f.get('message', '')}" for f in fields if isinstance(f, dict))
        return 400, error_body("invalid_request", detail or exc.detail, fields=fields)
    if isinstance(exc, HTTPException):
        return exc.status_code, error_body(_HTTP_KINDS.get(exc.status_code, "http_error"), exc.detail)
    return 500, error_body("internal", "internal server error; the server log has the cause")


def exception_to_response(request: Request, exc: Exception) -> Response[dict[str, Any]]:
    """Litestar's exception handler for every exception type (registered once in :func:`server.app.create_app`)."""
    status, body = status_and_body(exc)
    if status >= 500 and not isinstance(exc, OfficeQAError | HTTPException):
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    headers = {"WWW-Authenticate": 'Bearer realm="officeqa"'} if status == 401 else None
    return Response(content=body, status_code=status, headers=headers)


__all__ = ["error_body", "exception_to_response", "status_and_body"]
