"""File names as clients see them: relative to the knowledge base, never the server's absolute paths.

The registry keeps absolute paths (the indexer needs them); an HTTP client has no use for
``/srv/officeqa/data/kbs/hr/uploads/合同.docx`` and a read key must not learn the server's
layout. A path is shown relative to the first of these that holds it: the knowledge base's
uploads folder, its data folder, the folder every indexed document shares (what ``officeqa
index FOLDER`` was given); failing all, the file name alone. The Ollama address never reaches
a client either: notices and failure messages name "the model server" instead.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

MODEL_SERVER = "the model server"
#: "BadZipFile: ", "UnicodeDecodeError: ": a Python class name leading a message (users read the rest)
_CLASS_PREFIX = re.compile(
    r"\b(?:[a-z_][a-z0-9_]*\.)*(?:(?:[A-Z][a-z0-9]+){2,}(?:Error|Exception|Warning)?|[A-Z][a-zA-Z]*(?:Error|Exception)):\s+")
#: "OfficeQAError('the parse worker did not start')": an exception's repr inside a message -> its text
_CLASS_REPR = re.compile(r"\b(?:[a-z_][a-z0-9_]*\.)*[A-Z]\w*(?:Error|Exception)\((['\"])(.*?)\1\)")
#: an absolute POSIX path inside a message
_ABSOLUTE = re.compile(r"(?<![\w.])/(?:[^\s/'\"]+/)+[^\s'\"]*")


class PathView:
    """Maps absolute document paths to the names a client sees (see the module docstring)."""

    def __init__(self, roots: Iterable[str | os.PathLike[str]]) -> None:
        self.roots = [PurePath(r) for r in roots if str(r)]

    @classmethod
    def for_paths(cls, fixed_roots: Iterable[str | os.PathLike[str]], paths: Iterable[str]) -> PathView:
        """``fixed_roots`` plus the common folder of ``paths`` (the knowledge base's indexed documents)."""
        roots = list(fixed_roots)
        absolute = [p for p in paths if p and os.path.isabs(p)]
        if absolute:
            common = os.path.commonpath(absolute)
            roots.append(common if len(absolute) > 1 else os.path.dirname(common))
        return cls(roots)

    def show(self, path: str) -> str:
        if not path:
            return path
        pure = PurePath(path)
        if not pure.is_absolute():
            return path
        for root in self.roots:
            if pure.is_relative_to(root) and pure != root:
                return pure.relative_to(root).as_posix()
        return pure.name

    def message(self, text: str | None) -> str | None:
        """An error message as a user reads it: no Python class name, no absolute path."""
        if not text:
            return text
        text = _CLASS_PREFIX.sub("", _CLASS_REPR.sub(lambda m: m.group(2), text))
        return _ABSOLUTE.sub(lambda m: self.show(m.group(0)), text)

    def document(self, item: dict[str, Any]) -> dict[str, Any]:
        """A document entry of ``GET /api/documents`` (its path, its errors and its jobs' errors)."""
        out = {**item, "path": self.show(item.get("path", ""))}
        if isinstance(out.get("error"), dict):
            out["error"] = {**out["error"], "message": self.message(out["error"].get("message"))}
        for key in ("job", "summary"):
            job = out.get(key)
            if isinstance(job, dict) and isinstance(job.get("error"), dict):
                out[key] = {**job, "error": {**job["error"], "message": self.message(job["error"].get("message"))}}
        if isinstance(out.get("note"), str):
            out["note"] = self.message(out["note"])
        return out

    def scrub(self, value: Any) -> Any:
        """``value`` (JSON-like: an answer's metadata) with every string that is an absolute path shown relative."""
        if isinstance(value, str):
            return self.show(value) if value.startswith("/") and "\n" not in value else value
        if isinstance(value, dict):
            return {key: self.scrub(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.scrub(item) for item in value]
        return value

    def citations(self, citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**c, "path": self.show(c["path"])} if c.get("path") else c for c in citations]


def without_host(text: str, host: str) -> str:
    """``text`` with the model server's address replaced by a name (for notices and failure messages)."""
    if not text or not host:
        return text
    for shape in (f"（{host}）", f" ({host})"):
        text = text.replace(shape, "")
    return text.replace(host.rstrip("/"), MODEL_SERVER)


def public_answer(data: dict[str, Any], view: PathView, host: str) -> dict[str, Any]:
    """An answer's JSON (``Answer.to_json``) as an HTTP client gets it: relative paths, no model address."""
    out = {**data, "citations": view.citations(data.get("citations", []))}
    if out.get("notice"):
        out["notice"] = without_host(out["notice"], host)
    for key in ("answer", "text"):
        if isinstance(out.get(key), str):
            out[key] = without_host(out[key], host)
    metadata = view.scrub(dict(out.get("metadata") or {}))
    failure = metadata.get("failure")
    if isinstance(failure, dict) and isinstance(failure.get("message"), str):
        metadata["failure"] = {**failure, "message": without_host(failure["message"], host)}
    out["metadata"] = metadata
    return out


__all__ = ["MODEL_SERVER", "PathView", "public_answer", "without_host"]
