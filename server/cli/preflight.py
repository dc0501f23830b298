"""Checks every command's arguments get before its handler runs: named paths exist, a knowledge base is there.

A command module declares what it needs when it registers its parser, so the rule is one mechanism
rather than a check copied into each handler (and a new command gets it by declaring, not by remembering):

    p.set_defaults(handler=run, must_exist={"file": FILE})          # these arguments name existing paths
    p.set_defaults(handler=run, reads_kb=True)                      # only reads: needs a knowledge base
    p.set_defaults(handler=run, reads_kb=lambda args: not args.doc) # ... or only for some arguments

A missing path is ``officeqa: error: not found: PATH`` (exit 4), never a parser's "corrupt"; a read-only
command on a data folder without a knowledge base says so, names the folder and the fix, and creates
nothing (opening a knowledge base creates its files). Both are checked before anything is opened.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path

from officeqa.errors import NoKnowledgeBase, PathNotFound
from officeqa.settings import Settings

#: ``must_exist`` kinds: any existing path, or a regular file (a folder given to ``parse`` is not one).
ANY = "any"
FILE = "file"


def check_arguments(args: argparse.Namespace, settings: Settings) -> None:
    """Raise :class:`PathNotFound` or :class:`NoKnowledgeBase` when the command cannot run as asked."""
    must_exist: Mapping[str, str] = getattr(args, "must_exist", {}) or {}
    for dest, kind in must_exist.items():
        values = _values(getattr(args, dest, None))
        if len(values) > 1 and any(Path(v).expanduser().exists() for v in values):
            continue  # a batch (`index a b`, `summarize a b`): the command names each missing one, the rest go on
        for value in values:
            _check_path(value, kind)
    if _reads_kb(args):
        from indexing.presence import knowledge_base_exists

        if not knowledge_base_exists(settings):
            raise NoKnowledgeBase(str(settings.data_dir))


def _values(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _check_path(value: str, kind: str) -> None:
    path = Path(value).expanduser()
    if not path.exists():
        raise PathNotFound(value)
    if kind == FILE and not path.is_file():
        raise PathNotFound(value, f"{value} is a folder, not a file (`officeqa index {value}` indexes a folder)")


def _reads_kb(args: argparse.Namespace) -> bool:
    reads: bool | Callable[[argparse.Namespace], bool] = getattr(args, "reads_kb", False)
    return bool(reads(args)) if callable(reads) else bool(reads)


__all__ = ["ANY", "FILE", "check_arguments"]
