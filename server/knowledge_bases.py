"""Named knowledge bases: where each one's data folder is, which ones a server serves.

Why separate data folders (not one collection with a ``kb`` field): a knowledge base is the
unit of access, and keeping its registry, Chroma collection, BM25 index and uploads in a
folder of its own means no query, filter bug or forgotten ``where`` clause can return another
knowledge base's chunks — isolation is structural. The knowledge base named ``default`` is
``settings.data_dir`` itself, so the CLI (``officeqa index``/``ask``) and the server share it;
the others live under ``settings.server.kb_root`` (default ``<data_dir>/kbs/<name>``). To index
into a named one from the command line: ``OFFICEQA_DATA_DIR=<kb_root>/<name> officeqa index ...``.
"""

from __future__ import annotations

import re
from pathlib import Path

from officeqa.errors import ConfigurationError
from officeqa.settings import Settings

DEFAULT_KB = "default"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
UPLOADS = "uploads"


def check_name(name: str) -> str:
    """``name`` if it is a valid knowledge-base name (lower-case letters, digits, ``-``/``_``; it is a folder name)."""
    if not NAME_PATTERN.match(name or ""):
        raise ConfigurationError(
            f"knowledge base name {name!r}: use 1-63 lower-case letters, digits, '-' or '_' (starting with a "
            "letter or digit)"
        )
    return name


def kb_root(settings: Settings) -> Path:
    root = settings.server.kb_root
    return Path(root) if root else Path(settings.data_dir) / "kbs"


def kb_dir(settings: Settings, name: str) -> Path:
    """The data folder of knowledge base ``name``."""
    check_name(name)
    return Path(settings.data_dir) if name == DEFAULT_KB else kb_root(settings) / name


def kb_settings(settings: Settings, name: str) -> Settings:
    """The settings of one knowledge base: the same tree with its own ``data_dir`` (and, in PostgreSQL,
    its own schema ``<storage.postgres_schema>_<name>``: isolation stays structural there too)."""
    update: dict[str, object] = {"data_dir": kb_dir(settings, name)}
    if name != DEFAULT_KB:
        storage = settings.storage
        update["storage"] = storage.model_copy(update={"postgres_schema": kb_schema(storage.postgres_schema, name)})
    return settings.model_copy(update=update)


def kb_schema(base: str, name: str) -> str:
    """The PostgreSQL schema of knowledge base ``name`` (a hash keeps long names within 63 characters)."""
    schema = f"{base}_{check_name(name)}"
    if len(schema) <= 63:
        return schema
    import hashlib

    return f"{schema[:50]}_{hashlib.sha1(name.encode()).hexdigest()[:12]}"


def uploads_dir(settings: Settings, name: str) -> Path:
    """Where uploaded files of knowledge base ``name`` are stored (inside its data folder)."""
    return kb_dir(settings, name) / UPLOADS


def served_names(settings: Settings) -> list[str]:
    """The knowledge bases a server serves: ``server.knowledge_bases``, else default + the folders under kb_root."""
    if settings.server.knowledge_bases:
        return list(dict.fromkeys(check_name(n) for n in settings.server.knowledge_bases))
    names = [DEFAULT_KB]
    root = kb_root(settings)
    if root.is_dir():
        names += sorted(p.name for p in root.iterdir() if p.is_dir() and NAME_PATTERN.match(p.name))
    return list(dict.fromkeys(names))


__all__ = [
    "DEFAULT_KB", "check_name", "kb_dir", "kb_root", "kb_schema", "kb_settings", "served_names", "uploads_dir",
]
