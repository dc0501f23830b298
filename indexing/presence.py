"""Is there a knowledge base in ``data_dir``? Asked before a command that only reads opens one.

Why a module of its own: opening a knowledge base creates its files (``registry.sqlite3``, the write lock,
Chroma's folder), so a read-only command (``ask``, ``search``, ``status``, ...) pointed at the wrong data
folder used to leave an empty knowledge base behind and answer as if nothing were indexed. The CLI asks
this first and says which folder holds none. It imports nothing heavy: the check is a few ``stat`` calls.
"""

from __future__ import annotations

from pathlib import Path

from officeqa.settings import Settings

#: Files and folders of an embedded knowledge base (indexing/knowledge_base.py's layout); any one of them
#: is a knowledge base, damaged or not (``reindex``/``check --repair`` rebuild a lost registry from the rest).
EMBEDDED_STORES = ("registry.sqlite3", "chroma", "bm25", "bm25.log")


def knowledge_base_exists(settings: Settings) -> bool:
    """True when ``settings`` name a knowledge base that is there to be read.

    A database backend (``storage.backend=postgres``) keeps its knowledge base on the server, where
    finding out means connecting: it counts as present, and opening it reports a server that is not.
    """
    if settings.storage.backend != "embedded":
        return True
    data_dir = Path(settings.data_dir)
    return any((data_dir / name).exists() for name in EMBEDDED_STORES)


__all__ = ["EMBEDDED_STORES", "knowledge_base_exists"]
