"""Question latency with the background model idle and while it runs, in one process and one run.

Why a helper of its own: ``bench/bench_question_cost.py`` runs it inside each code root's worker process, over a
copy of the data folder (the background model's ``embed`` jobs write to it). The questions go through one
:class:`retrieval.service.QuestionService`; the background model runs as the server runs it, in the same process:
an :class:`indexing.service.IngestService` with ``background_embed=True`` sharing the fast embedder. Blocks
alternate (idle, running, idle, running, ...) so the machine's load falls on both alike; a running block starts
once the model has stored a batch (its model loaded, its pass under way), and the first idle block only after the
pass has stored one (questions embed with the strong model too once it holds any vector: both states alike).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

#: the longest a running block waits for the background model's first stored batch
_START_WAIT_S = 300.0


def idle_and_background(settings: Any, asked: list[str], rounds: int) -> dict[str, Any]:
    """p50/p95/max wall seconds of ``asked`` per state, ``rounds`` blocks of each, and the chunks embedded."""
    from indexing.service import IngestService
    from indexing.strong import GENERATION_KEY
    from officeqa.embeddings import create_embedder
    from retrieval.service import QuestionService

    embedder = create_embedder(settings.embedding, settings.ollama)
    service = QuestionService.open(settings, generator=None, embedder=embedder)
    for q in asked[:4]:  # warm: the stores, the fast model and the tagger are loaded before any block
        service.ask(q)
    walls: dict[str, list[float]] = {"idle": [], "background running": []}
    held_before = _held(service)
    for i in range(rounds + 1):  # round 0 only starts the pass: both states then hold some strong vectors
        if i:
            walls["idle"] += _block(service, asked)
        ingest = IngestService(settings, embedder, background_embed=True)
        ingest.start()
        try:
            _wait_for_batch(service, GENERATION_KEY, _strong_generation(service, GENERATION_KEY))
            if i:
                walls["background running"] += _block(service, asked)
        finally:
            ingest.stop()
    held_after = _held(service)
    service.close()
    out: dict[str, Any] = {state: _summary(w) for state, w in walls.items()}
    out["p95_running_over_idle"] = round(out["background running"]["p95_s"] / out["idle"]["p95_s"], 2)
    out["strong_chunks"] = [held_before, held_after]
    return out


def _block(service: Any, asked: list[str]) -> list[float]:
    walls = []
    for q in asked:
        began = time.perf_counter()
        service.ask(q)
        walls.append(time.perf_counter() - began)
    return walls


def _strong_generation(service: Any, key: str) -> str:
    return str(service.kb.registry.get_meta(key) or "")


def _held(service: Any) -> int:
    """Chunks the background model's store holds now."""
    return sum(service.kb.strong.covered_by_doc().values()) if service.kb.strong.enabled else 0


def _wait_for_batch(service: Any, key: str, before: str) -> None:
    deadline = time.monotonic() + _START_WAIT_S
    while _strong_generation(service, key) == before and time.monotonic() < deadline:
        time.sleep(0.5)


def _summary(walls: list[float]) -> dict[str, float]:
    ordered = sorted(walls)
    p50 = statistics.median(ordered)
    return {"n": len(ordered), "p50_s": round(p50, 3), "p95_s": round(ordered[round(0.95 * (len(ordered) - 1))], 3),
            "max_s": round(ordered[-1], 3), "max_over_p50": round(ordered[-1] / p50, 1)}
