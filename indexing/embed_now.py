"""The background model's work done now, in the foreground: ``officeqa embed`` and ``officeqa index --embed-now``.

Why: every commit queues an ``embed`` job for the stronger background model
(:mod:`indexing.background_embed`), and only a pool that runs background work (the server, ``officeqa
worker``/``watch``) takes them. A user of the command line alone would see them PENDING for ever; this runs
such a pool in the calling process until no ``embed`` (or index/remove) job is live, and stops there.

Resuming: it is the same pool and the same durable jobs. Ctrl-C gives the held jobs back (PENDING); a killed
run leaves them RUNNING for a process that no longer exists, and the next run (or any pool) requeues them and
embeds only the chunks not yet stored (every batch is stored the moment it is done).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from indexing.jobs import FAILED, KIND_EMBED, KIND_INDEX, KIND_REMOVE
from indexing.stores import Stores
from indexing.workers import Event, WorkerPool
from officeqa.errors import ConfigurationError

__all__ = ["EmbedReport", "awaiting", "embed_now"]

#: the kinds a foreground run waits for: embed jobs, and index/remove work queued meanwhile (it comes first)
_WAITED_KINDS = (KIND_EMBED, KIND_INDEX, KIND_REMOVE)


@dataclass(slots=True)
class EmbedReport:
    """What a foreground run did, and the coverage it left."""

    model: str
    embedded_chunks: int = 0
    documents: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    covered_chunks: int = 0
    total_chunks: int = 0
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The report as ``officeqa embed --json`` prints it (failures as path/message objects)."""
        return {
            "model": self.model, "embedded_chunks": self.embedded_chunks, "documents": self.documents,
            "failed": [{"path": path, "message": message} for path, message in self.failed],
            "covered_chunks": self.covered_chunks, "total_chunks": self.total_chunks,
            "elapsed_s": round(self.elapsed_s, 2),
        }

    def summary(self) -> str:
        """The report as one line for the terminal."""
        if not self.embedded_chunks and not self.failed:
            return (f"background model {self.model}: nothing to embed; "
                    f"{self.covered_chunks}/{self.total_chunks} chunks covered")
        failed = f", {len(self.failed)} failed" if self.failed else ""
        documents = f"{self.documents} document{'' if self.documents == 1 else 's'}"
        return (f"background model {self.model}: embedded {self.embedded_chunks} chunks of {documents} "
                f"in {self.elapsed_s:.1f} s{failed}; "
                f"{self.covered_chunks}/{self.total_chunks} chunks covered")


def _coverage(kb: Stores) -> tuple[int, int]:
    """(chunks the background model covers, indexed chunks), from the coverage summary row."""
    summary = kb.background_coverage()[0]
    return int(str(summary["covered_chunks"])), int(str(summary["total_chunks"]))


def awaiting(kb: Stores) -> int:
    """Indexed chunks the background model has not embedded yet (0 when the model is off)."""
    if not kb.strong.enabled:
        return 0
    covered, total = _coverage(kb)
    return total - covered


def embed_now(
    kb: Stores,
    on_event: Callable[[Event], None] | None = None,
    on_stored: Callable[[int], None] | None = None,
    stop: Callable[[Callable[[], None]], Any] | None = None,
) -> EmbedReport:
    """Run the background model over every chunk it has not covered, here and now; the report.

    ``on_event`` hears each finished job (as the pool reports them), ``on_stored`` the chunks of each stored
    batch; ``stop`` is handed the pool's stop function (a signal handler) and must return a context manager.
    Raises ConfigurationError when the background model is off."""
    model = kb.strong.embedder
    if model is None:
        raise ConfigurationError(
            "the background embedding model is off (embedding.background_backend): nothing to embed"
        )
    report = EmbedReport(model=model.name)
    started = time.monotonic()

    def heard(event: Event) -> None:
        if event.get("kind") == KIND_EMBED and event.get("outcome") is not None:
            report.embedded_chunks += int(event.get("chunks") or 0)
            report.documents += event.get("outcome") == "embedded"
            if event.get("state") == FAILED:
                report.failed.append((str(event.get("path")), str(event.get("message", ""))))
        if on_event is not None:
            on_event(event)

    def finished() -> bool:
        live = kb.jobs.live_counts()
        return not any(live.get(kind) for kind in _WAITED_KINDS)

    pool = WorkerPool(kb, workers=1, on_event=heard, background_embed=True, on_background_stored=on_stored)
    if stop is None:
        pool.run(until=finished)
    else:
        with stop(pool.stop):
            pool.run(until=finished)
    report.covered_chunks, report.total_chunks = _coverage(kb)
    report.elapsed_s = time.monotonic() - started
    return report
