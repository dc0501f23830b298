"""Who is asking and what they may touch: the API key of a request, checked in route guards.

Guards run before Litestar reads a request body, so an unauthenticated upload is refused
before a byte of it is spooled. A key travels as ``Authorization: Bearer oqa_...`` (what
OpenAI clients send) or ``X-API-Key``; the knowledge base as ``X-Knowledge-Base`` or ``?kb=``
(the OpenAI endpoint: the model name). With no active key configured the server is in local
mode: it binds to localhost only (``officeqa serve`` sees to that), answers only to loopback
host names and same-origin pages (:mod:`server.browser_guard`), and every request may do
everything. Failed key attempts are counted per address and answers per key and address
(:mod:`server.limits`).
"""

from __future__ import annotations

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from officeqa.errors import NotAuthenticated
from server.keys import Access, KeyStore
from server.limits import RequestPolicy
from server.resources import ServerResources

KB_HEADER = "X-Knowledge-Base"


def resources_of(connection: ASGIConnection) -> ServerResources:
    return connection.app.state.officeqa


def token_of(connection: ASGIConnection) -> str:
    header = connection.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return connection.headers.get("x-api-key", "").strip()


def policy_of(connection: ASGIConnection) -> RequestPolicy:
    return connection.app.state.policy


def address_of(connection: ASGIConnection) -> str:
    return connection.client.host if connection.client else "unknown"


def _key_id(token: str) -> str | None:
    """The id part of ``oqa_<id>_<secret>`` (what a guesser aims at), or None for anything else."""
    parts = token.split("_", 2)
    return parts[1] if len(parts) == 3 and parts[0] == "oqa" and parts[1] else None


def authenticate(connection: ASGIConnection, keys: KeyStore) -> Access:
    """The request's access; 401 without a valid key, 429 once its address, or the key id it tries, failed too
    often in a row (counted per address and per key id, so neither one address nor many aimed at one key
    can keep guessing)."""
    if not keys.has_active_keys():
        return Access(local=True)
    policy = policy_of(connection)
    token = token_of(connection)
    key_id = _key_id(token)
    counted = [f"addr:{address_of(connection)}", *([f"key:{key_id}"] if key_id else [])]
    for who in counted:
        policy.check_auth_allowed(who)
    if not token:
        raise NotAuthenticated("an API key is required: send 'Authorization: Bearer <key>' (see `officeqa keys`)")
    key = keys.authenticate(token)
    if key is None:
        for who in counted:
            policy.failed_auth.failed(who)
        raise NotAuthenticated("unknown or revoked API key")
    for who in counted:
        policy.failed_auth.succeeded(who)
    return Access(key=key)


def requested_kb(connection: ASGIConnection) -> str | None:
    return connection.headers.get(KB_HEADER) or connection.query_params.get("kb") or None


def access_of(connection: ASGIConnection) -> Access:
    """The request's access, as the guard left it."""
    return connection.state.access


def kb_of(connection: ASGIConnection, *, write: bool = False) -> str:
    """The knowledge base this request works on (404 for one its key may not read, 403 to write without right)."""
    return resources_of(connection).knowledge_bases.select(access_of(connection), requested_kb(connection),
                                                           write=write)


def require_key(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """Guard: a valid key (or local mode); the access is kept for the handler."""
    connection.state.access = authenticate(connection, resources_of(connection).keys)


def limit_answers(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    """Guard for the question endpoints: as :func:`require_key`, then one question counted against the key's
    and the address's rate (429 over either)."""
    require_key(connection, handler)
    key = access_of(connection).key
    policy_of(connection).count_answer(key.id if key else None, address_of(connection))


def require_write(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    """Guard: as :func:`require_key`, and the key may change the knowledge base the request names."""
    require_key(connection, handler)
    kb_of(connection, write=True)


__all__ = ["KB_HEADER", "access_of", "address_of", "authenticate", "kb_of", "limit_answers", "policy_of",
           "require_key", "require_write", "resources_of"]
