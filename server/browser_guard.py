"""What a web page on another site may do with this server: nothing.

A browser lets any page send requests to ``http://127.0.0.1:8000``: a form that posts a file, a
``fetch`` with ``text/plain`` JSON (no CORS preflight), or, after DNS rebinding, reads under a
name the attacker controls. In local mode (no key) those requests would carry every right, so
this ASGI middleware refuses them before a route runs or a body is read:

- **Host**: in local mode only ``localhost``, ``127.0.0.1``, ``[::1]`` and the names of
  ``server.allowed_hosts`` (DNS rebinding arrives with the attacker's name). With active keys
  an empty list allows any host: a rebinding page cannot read the key from the real origin.
- **Origin**: an API call (``/api/``, ``/v1/``) from a browser must come from the server's own
  origin or one of ``server.allowed_origins``. Browsers send ``Origin`` on every cross-origin
  request that could change something and ``Sec-Fetch-Site`` on every request; a request
  without either is not from a web page (curl, the ``openai`` client) and passes to the key
  check. That covers uploads too: a browser upload without a key must come from the page itself.
- **Content type**: JSON endpoints take ``application/json`` only (a ``text/plain`` body is a
  way around the preflight), uploads ``multipart/form-data`` only: 415.

Why not Litestar's ``AllowedHostsConfig``: it matches the whole ``Host`` header, port included
(``localhost:8000`` would need listing per port), cannot depend on whether keys exist, and
answers in its own body shape instead of this API's error body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from litestar.datastructures import Headers
from litestar.types import ASGIApp, Receive, Scope, Send

from server.errors import error_body

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
API_PREFIXES = ("/api/", "/v1/")
UPLOAD_PATH = "/api/documents"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def host_name(host_header: str) -> str:
    """The name of a ``Host`` header without its port: ``[::1]:8000`` -> ``::1``, ``A.corp:80`` -> ``a.corp``."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _origin_netloc(origin: str) -> str | None:
    """``scheme://host:port`` -> ``host:port`` (lower case); None for ``null`` or anything unparsable."""
    parts = urlsplit(origin.strip().lower())
    return parts.netloc if parts.scheme in ("http", "https") and parts.netloc else None


@dataclass(frozen=True, slots=True)
class BrowserPolicy:
    """The hosts and origins a server accepts (from ``settings.server``)."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_origins: frozenset[str] = frozenset()
    any_host: bool = False
    local_mode: Callable[[], bool] = field(default=lambda: True)

    @classmethod
    def create(cls, hosts: Iterable[str], origins: Iterable[str], local_mode: Callable[[], bool]) -> BrowserPolicy:
        hosts = [h.strip() for h in hosts if h.strip()]
        netlocs = {n for n in (_origin_netloc(o) for o in origins) if n}
        return cls(frozenset(host_name(h) for h in hosts if h != "*"), frozenset(netlocs), "*" in hosts, local_mode)

    def host_refusal(self, host_header: str) -> str | None:
        name = host_name(host_header)
        if self.any_host or name in LOOPBACK_HOSTS or name in self.allowed_hosts:
            return None
        if not self.allowed_hosts and not self.local_mode():
            return None
        return (f"this server does not answer to the host name {name or '(none)'!r}; "
                "add it to server.allowed_hosts if clients use it")

    def origin_refusal(self, headers: Headers) -> str | None:
        origin = headers.get("origin")
        fetch_site = headers.get("sec-fetch-site", "")
        if origin is None:
            if fetch_site in ("cross-site", "same-site"):
                return "requests from another web site are refused (no Origin header)"
            return None
        netloc = _origin_netloc(origin)
        own = headers.get("host", "").strip().lower()
        if netloc is not None and (netloc == own or netloc in self.allowed_origins):
            return None
        return (f"requests from the web page at {origin.strip()!r} are refused; "
                "add its origin to server.allowed_origins to allow it")


def _media_type(headers: Headers) -> str:
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _has_body(headers: Headers) -> bool:
    return headers.get("content-length", "0").strip() not in ("", "0") or "transfer-encoding" in headers


def content_type_refusal(method: str, path: str, headers: Headers) -> str | None:
    """Why a request's body type is refused (None: accepted). A request without a body is left to the route
    (a missing key is a 401, a missing body a 400)."""
    if method not in _BODY_METHODS or not _has_body(headers):
        return None
    wanted = "multipart/form-data" if path.rstrip("/") == UPLOAD_PATH else "application/json"
    if _media_type(headers) == wanted:
        return None
    return f"{method} {path} takes only {wanted} bodies (this one is {_media_type(headers) or 'untyped'})"


async def _refuse(send: Send, status: int, kind: str, message: str) -> None:
    body = json.dumps(error_body(kind, message, status=status), ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"x-content-type-options", b"nosniff")]})
    await send({"type": "http.response.body", "body": body})


def browser_guard(policy: BrowserPolicy) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware factory: the checks of the module docstring, in that order."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            headers = Headers.from_scope(scope)
            path = scope["path"]
            refusal = policy.host_refusal(headers.get("host", ""))
            if refusal:
                await _refuse(send, 400, "invalid_host", refusal)
                return
            if path.startswith(API_PREFIXES):
                refusal = policy.origin_refusal(headers)
                if refusal:
                    await _refuse(send, 403, "cross_origin", refusal)
                    return
                refusal = content_type_refusal(scope["method"], path, headers)
                if refusal:
                    await _refuse(send, 415, "unsupported_media_type", refusal)
                    return
            await app(scope, receive, send)

        return guarded

    return middleware


__all__ = ["LOOPBACK_HOSTS", "BrowserPolicy", "browser_guard", "content_type_refusal", "host_name"]
