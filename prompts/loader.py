"""Load prompt templates from ``prompts/templates/<kind>.<language>.yaml``.

Why files and a loader: prompts are data that users tune without touching code
(STYLE.md, "Prompts and evals are data"). Templates are read on first use and cached,
never at import time, so importing ``prompts`` costs nothing and a broken template
is reported as a ConfigurationError where it is used.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import yaml

from officeqa.errors import ConfigurationError

_T = TypeVar("_T")

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"

Language = Literal["zh", "en"]
LANGUAGES: tuple[str, ...] = ("zh", "en")


@dataclass(frozen=True, slots=True)
class QATemplate:
    """The parts of a question-answering prompt, in the order they are assembled."""

    language: str
    system: str
    instruction: str
    background: str
    materials_header: str
    material_item: str
    question: str
    requirements: str
    not_found: str

    def render_requirements(self) -> str:
        return self.requirements.format(not_found=self.not_found)


@dataclass(frozen=True, slots=True)
class RewriteTemplate:
    """The prompt that turns a follow-up question into a standalone one."""

    language: str
    system: str
    instruction: str


@dataclass(frozen=True, slots=True)
class SummaryTemplate:
    """The prompts of the summary tree: one per node kind, plus how a child summary is listed."""

    language: str
    system: str
    leaf: str
    section: str
    document: str
    child_item: str

    def fingerprint(self) -> str:
        """A short hash of every part: part of each node's cache key, so an edited template rebuilds its nodes."""
        import hashlib

        text = "\x1e".join((self.language, self.system, self.leaf, self.section, self.document, self.child_item))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _read_yaml(kind: str, language: str) -> dict[str, str]:
    if language not in LANGUAGES:
        raise ConfigurationError(f"no prompt templates for language {language!r} (have {', '.join(LANGUAGES)})")
    path = TEMPLATE_DIR / f"{kind}.{language}.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigurationError(f"prompt template {path} cannot be read: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"prompt template {path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f"prompt template {path} must be a mapping of part name to text")
    return {str(k): str(v) for k, v in data.items()}


def _build(cls: Callable[..., _T], kind: str, language: str) -> _T:
    data = _read_yaml(kind, language)
    names = [f.name for f in fields(cast(Any, cls)) if f.name != "language"]
    missing = [n for n in names if n not in data]
    if missing:
        raise ConfigurationError(f"prompt template {kind}.{language}.yaml lacks parts: {', '.join(missing)}")
    return cls(language=language, **{n: data[n] for n in names})


@functools.cache
def load_qa_template(language: str) -> QATemplate:
    """The question-answering template for ``language`` ("zh" or "en"), cached after the first read."""
    return _build(QATemplate, "qa", language)


@functools.cache
def load_rewrite_template(language: str) -> RewriteTemplate:
    """The follow-up rewrite template for ``language``, cached after the first read."""
    return _build(RewriteTemplate, "rewrite", language)


@functools.cache
def load_summary_template(language: str) -> SummaryTemplate:
    """The summary-tree templates for ``language``, cached after the first read."""
    return _build(SummaryTemplate, "summary", language)
