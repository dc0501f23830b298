"""API keys: created by ``officeqa keys create``, stored hashed, scoped to knowledge bases and a role.

A key reads ``oqa_<id>_<secret>``: ``id`` (8 hex characters) finds the record, the secret
is checked against its SHA-256 with a constant-time comparison. Why SHA-256 and not a slow
password hash: the secret is 256 random bits, so there is nothing to brute-force, and a slow
hash would cost every request. The file holds only hashes (a stolen copy grants nothing) and
is written atomically with mode 0600.

Roles: ``read`` asks questions and reads documents, chunks and citations of its knowledge
bases; ``write`` may also upload and delete. With no active key at all the server runs in
local mode (everything allowed, bound to localhost only).

The server re-reads the file when it changes, so a key created or revoked while it runs
takes effect on the next request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from officeqa.errors import ApiKeyNotFound, ConfigurationError
from officeqa.settings import Settings
from server.knowledge_bases import check_name

Role = Literal["read", "write"]
ROLES: tuple[str, ...] = ("read", "write")
PREFIX = "oqa"
_FORMAT = "officeqa-keys/1"


@dataclass(slots=True)
class ApiKey:
    """One key's record (never its secret)."""

    id: str
    kbs: list[str]
    role: str
    secret_sha256: str
    label: str = ""
    created_at: str = ""
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def can_read(self, kb: str) -> bool:
        return self.active and kb in self.kbs

    def can_write(self, kb: str) -> bool:
        return self.can_read(kb) and self.role == "write"

    def public(self) -> dict[str, Any]:
        """What ``keys list`` shows: everything but the hash."""
        out = asdict(self)
        out.pop("secret_sha256")
        return out


def keys_path(settings: Settings) -> Path:
    configured = settings.server.api_keys_file
    return Path(configured) if configured else Path(settings.data_dir) / "api-keys.json"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class KeyStore:
    """The keys file; safe to share between request threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._keys: dict[str, ApiKey] = {}

    # -- reading ----------------------------------------------------------------------------------
    def keys(self) -> list[ApiKey]:
        """Every key record (revoked ones too), re-read when the file changed."""
        with self._lock:
            self._reload()
            return list(self._keys.values())

    def has_active_keys(self) -> bool:
        return any(k.active for k in self.keys())

    def authenticate(self, token: str) -> ApiKey | None:
        """The active key whose secret ``token`` carries, else None."""
        parts = (token or "").strip().split("_", 2)
        if len(parts) != 3 or parts[0] != PREFIX:
            return None
        with self._lock:
            self._reload()
            key = self._keys.get(parts[1])
        if key is None or not key.active:
            return None
        return key if hmac.compare_digest(key.secret_sha256, _digest(parts[2])) else None

    def _reload(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._keys = None, {}
            return
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            records = [ApiKey(**item) for item in data["keys"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"API keys file {self.path}: cannot read it ({exc})") from exc
        self._keys = {k.id: k for k in records}
        self._stamp = stamp

    # -- writing (the CLI) ------------------------------------------------------------------------
    def create(self, kbs: Sequence[str], role: str, label: str = "") -> tuple[ApiKey, str]:
        """A new key for ``kbs`` with ``role``; returns its record and the token (shown once, never stored)."""
        if role not in ROLES:
            raise ConfigurationError(f"role {role!r}: use one of {', '.join(ROLES)}")
        names = list(dict.fromkeys(check_name(k) for k in kbs))
        if not names:
            raise ConfigurationError("a key needs at least one knowledge base (--kb NAME)")
        with self._lock:
            self._reload()
            key_id = secrets.token_hex(4)
            while key_id in self._keys:
                key_id = secrets.token_hex(4)
            secret = secrets.token_urlsafe(32)
            key = ApiKey(id=key_id, kbs=names, role=role, secret_sha256=_digest(secret), label=label,
                         created_at=_now())
            self._keys[key_id] = key
            self._write()
        return key, f"{PREFIX}_{key_id}_{secret}"

    def revoke(self, key_id: str) -> ApiKey:
        with self._lock:
            self._reload()
            key = self._keys.get(key_id)
            if key is None:
                raise ApiKeyNotFound(f"no API key with id {key_id!r} in {self.path} (see `officeqa keys list`)")
            if key.revoked_at is None:
                key.revoked_at = _now()
                self._write()
        return key

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"format": _FORMAT, "keys": [asdict(k) for k in self._keys.values()]}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".api-keys.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, ensure_ascii=False, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self._stamp = None  # re-read (and re-stamp) on the next access


@dataclass(frozen=True, slots=True)
class Access:
    """What one request may do: a key's scope, or everything in local mode (no key configured)."""

    key: ApiKey | None = None
    local: bool = False

    def can_read(self, kb: str) -> bool:
        return self.local or (self.key is not None and self.key.can_read(kb))

    def can_write(self, kb: str) -> bool:
        return self.local or (self.key is not None and self.key.can_write(kb))


__all__ = ["ROLES", "Access", "ApiKey", "KeyStore", "keys_path"]
