"""The second routing stage: an instruction no rule matched is labelled by its nearest labelled examples.

Why a second stage at all: keyword rules recognise the words someone wrote them for, and
users keep finding new ones ("电子信箱", "梳理出", "sum up"). Growing the keyword lists
catches the next synonym only after someone misses it; a sentence embedding places
"汇总出所有的电子信箱" next to "找出所有的邮件地址" without either word being listed.

Why nearest neighbours in the bundled USE space and not a classifier over character
n-grams: measured by leave-one-out over the labelled examples (``bench/bench_l0.py``),
USE neighbours label 57-82% of them right (by floor and margin) against at most 49% for
TF-IDF char n-gram neighbours, and when they override the default route they are right 93%
of the time (at the shipped floor 0.65 and margin 0.08, which leave 97% of ordinary
questions alone) against 64-71%. The cost (a few milliseconds to embed one instruction on
one thread, a 2-6 s model load and under a second for the examples, once per process) is
paid only when no rule matched.

Why a margin and vetoes: most instructions no rule matches are ordinary questions
(``retrieve_qa``), so the stage speaks only when the best route is clearly ahead of every
other route (``min_similarity`` and ``margin``), never picks a route whose rule fired and
was vetoed by an exclusion or a precondition ("电话会议纪要" is not a phone request), and
its answers carry a low confidence, so a handler's result goes to the model as context
instead of being shown as the answer.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from officeqa.embeddings.base import Embedder
from officeqa.errors import ConfigurationError
from retrieval.rules.loader import ALL_ROUTES
from retrieval.rules.normalize import normalize

__all__ = ["SHIPPED_EXAMPLES", "Example", "NearestExamples", "NearestResult", "load_examples"]

SHIPPED_EXAMPLES = "route_examples.jsonl"
DEFAULT_ROUTE = "retrieve_qa"
SHOWN_NEIGHBOURS = 3


@dataclass(frozen=True, slots=True)
class Example:
    """One labelled instruction (normalised) and its route."""

    instruction: str
    route: str


@dataclass(slots=True)
class NearestResult:
    """What the second stage decided and the evidence: the nearest examples and the margin."""

    route: str
    accepted: bool
    similarity: float
    runner_up: str | None
    runner_up_similarity: float
    neighbours: list[tuple[str, str, float]]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "route": self.route, "accepted": self.accepted, "similarity": round(self.similarity, 4),
            "runner_up": self.runner_up, "runner_up_similarity": round(self.runner_up_similarity, 4),
            "neighbours": [{"instruction": t, "route": r, "similarity": round(s, 4)} for t, r, s in self.neighbours],
            "reason": self.reason,
        }


def _read_jsonl(text: str, source: str) -> list[Example]:
    out: list[Example] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            instruction, route = entry["instruction"], entry.get("route") or entry["expected_route"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"{source}:{number}: expected {{\"instruction\", \"route\"}}: {exc}") from exc
        if route not in ALL_ROUTES:
            raise ConfigurationError(f"{source}:{number}: unknown route {route!r}")
        out.append(Example(normalize(str(instruction)), route))
    return out


def load_examples(user_file: str | Path | None = None) -> list[Example]:
    """The shipped labelled examples plus the user's (same JSONL shape), de-duplicated by instruction."""
    text = resources.files("retrieval.rules").joinpath(SHIPPED_EXAMPLES).read_text(encoding="utf-8")
    examples = _read_jsonl(text, SHIPPED_EXAMPLES)
    if user_file:
        path = Path(user_file)
        try:
            examples += _read_jsonl(path.read_text(encoding="utf-8"), str(path))
        except OSError as exc:
            raise ConfigurationError(f"route examples file {path}: cannot be read: {exc}") from exc
    latest = {e.instruction: e for e in examples}  # a user's label wins over a shipped one
    return list(latest.values())


class NearestExamples:
    """Labelled examples embedded once; :meth:`classify` labels one instruction or declines."""

    def __init__(self, examples: Iterable[Example], embedder: Embedder, *, min_similarity: float,
                 margin: float) -> None:
        self.examples = list(examples)
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.margin = margin
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()
        self._routes = np.array([e.route for e in self.examples])

    @property
    def fingerprint(self) -> str:
        """Identifies the example set (for caches keyed by content)."""
        digest = hashlib.sha256()
        for e in self.examples:
            digest.update(f"{e.route}\t{e.instruction}\n".encode())
        return digest.hexdigest()[:16]

    def matrix(self) -> np.ndarray:
        """The examples' unit vectors, computed on first use (one batch)."""
        if self._matrix is None:
            with self._lock:
                if self._matrix is None:
                    self._matrix = np.asarray(
                        self.embedder.embed_documents([e.instruction for e in self.examples]), dtype=np.float32
                    )
        return self._matrix

    def classify(self, text: str, vetoed: frozenset[str] = frozenset()) -> NearestResult:
        """The best route among the nearest examples, accepted only with enough similarity and margin."""
        query = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        sims = self.matrix() @ query
        best: dict[str, float] = {}
        for route, sim in zip(self._routes.tolist(), sims.tolist(), strict=True):
            if sim > best.get(route, -2.0):
                best[route] = sim
        order = np.argsort(-sims)[:SHOWN_NEIGHBOURS]
        neighbours = [(self.examples[i].instruction, self.examples[i].route, float(sims[i])) for i in order]
        allowed = {r: s for r, s in best.items() if r not in vetoed}
        if not allowed:
            return NearestResult(DEFAULT_ROUTE, False, 0.0, None, 0.0, neighbours, "every nearby route was vetoed")
        route = max(allowed, key=allowed.__getitem__)
        top = allowed[route]
        others = [(s, r) for r, s in best.items() if r != route]
        second, second_route = max(others) if others else (-1.0, None)
        if route == DEFAULT_ROUTE:
            return NearestResult(route, False, top, second_route, second, neighbours,
                                 "nearest examples are ordinary questions")
        if top < self.min_similarity:
            return NearestResult(route, False, top, second_route, second, neighbours,
                                 f"similarity {top:.2f} < {self.min_similarity:g}")
        if top - second < self.margin:
            return NearestResult(route, False, top, second_route, second, neighbours,
                                 f"margin {top - second:.2f} over {second_route} < {self.margin:g}")
        return NearestResult(route, True, top, second_route, second, neighbours,
                             f"similarity {top:.2f}, margin {top - second:.2f} over {second_route}")
