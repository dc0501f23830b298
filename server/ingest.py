"""Uploads go through the durable job queue: one :class:`indexing.service.IngestService` per knowledge base.

Why the queue (and not a thread of the server's own): a job is a row in the knowledge base's
registry, so what was uploaded and not yet indexed survives a restart or a crash (the next
start finds the rows and finishes them), every state the documents page shows (PENDING,
RUNNING, DONE, FAILED, RETRY, with attempts, error kind and message) is the table's, and the
server, ``officeqa worker`` and ``officeqa index`` share one queue and one commit protocol.

Each knowledge base's workers run in the server process, in the background (``jobs.*``: parse
processes per knowledge base, retries, time limits); they build summary trees too
(``summary.on_index``), after index work. After every index or remove job the knowledge
base's write generation moves, so the answer threads reopen their handles before the next
question and see the new documents.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.jobs import KIND_EMBED, KIND_INDEX, KIND_REMOVE, KIND_SUMMARISE, PENDING, RETRY, RUNNING, Job
from indexing.service import IngestService

if TYPE_CHECKING:
    from officeqa.embeddings import Embedder
    from officeqa.generation import OllamaGenerator
    from officeqa.settings import Settings
    from server.uploads import StoredUpload

log = logging.getLogger(__name__)

#: how long DELETE waits for its removal job before it answers "queued" (202) instead of "removed"
REMOVE_WAIT_S = 60.0
_POLL_S = 0.05


class Ingestion:
    """The ingestion services of a server's knowledge bases (started in the lifespan, stopped on shutdown)."""

    def __init__(
        self,
        settings_for: dict[str, Settings],
        embedder: Embedder,
        generator: OllamaGenerator | None,
        on_written: Callable[[str], None],
    ) -> None:
        self._on_written = on_written
        self.services = {
            name: IngestService(settings, embedder, on_event=self._events_of(name), summarise=True, generator=generator,
                                background_embed=True)
            for name, settings in settings_for.items()
        }

    def _events_of(self, name: str) -> Callable[[dict[str, Any]], None]:
        def on_event(event: dict[str, Any]) -> None:
            if event.get("event") == "job" and event.get("kind") in (KIND_INDEX, KIND_REMOVE):
                self._on_written(name)  # after the commit: answer threads reopen their handles of ``name``

        return on_event

    # -- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> None:
        """Start every knowledge base's workers (each requeues the jobs a killed server left RUNNING)."""
        try:
            for service in self.services.values():
                service.start()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the workers: jobs in flight go back to the queue, and the next start finishes them."""
        for name, service in self.services.items():
            try:
                service.stop()
            except Exception:  # one knowledge base's failure must not keep the others' workers running
                log.exception("stopping the workers of knowledge base %s failed", name)

    # -- requests ----------------------------------------------------------------------------------
    def enqueue(self, kb: str, uploads: Sequence[StoredUpload]) -> list[Job]:
        """Queue stored uploads for indexing; their live jobs, in order (a file already queued keeps its job)."""
        service = self.services[kb]
        ids = service.enqueue([u.path for u in uploads], source="upload", doc_hashes=[u.sha256 for u in uploads])
        found = {j.id: j for j in service.jobs(paths=[u.path for u in uploads], limit=None)}
        return [found[i] for i in ids]

    async def remove(self, kb: str, paths: Sequence[str], uploads: Path) -> tuple[bool, list[Job]]:
        """Remove documents by path through the queue; (finished?, the paths' latest jobs).

        Uploaded copies are deleted first (a file indexed in place stays, excluded from later
        ``officeqa index`` runs as ``officeqa remove`` does), then a remove job is queued per path
        and awaited for up to ``REMOVE_WAIT_S`` (the workers run it between two documents).
        """
        service = self.services[kb]
        root = uploads.resolve()

        def queue_removal() -> None:
            in_place = [p for p in paths if Path(p).parent != root]
            for path in paths:
                stored = Path(path)
                if stored.parent == root and stored.is_file() and not stored.is_symlink():
                    stored.unlink()  # an uploaded copy goes with its document
            if in_place:
                service.enqueue_removal(in_place, exclude=True)
            uploaded = [p for p in paths if p not in in_place]
            if uploaded:
                service.enqueue_removal(uploaded)

        await asyncio.to_thread(queue_removal)
        deadline = time.monotonic() + REMOVE_WAIT_S
        while True:
            jobs = await asyncio.to_thread(self.latest, kb, paths)
            if not any(j.live for j in jobs):
                return True, jobs
            if time.monotonic() > deadline:
                return False, jobs
            await asyncio.sleep(_POLL_S)

    def latest(self, kb: str, paths: Sequence[str]) -> list[Job]:
        """The newest job of each of ``paths``."""
        newest: dict[str, Job] = {}
        for job in self.services[kb].jobs(paths=paths, limit=None):
            newest.setdefault(job.path, job)
        return list(newest.values())

    def depth(self, names: Sequence[str] | None = None) -> dict[str, dict[str, int]]:
        """The queue per knowledge base: ``depth`` (every live job), documents ``queued`` (PENDING or RETRY),
        ``running`` and ``retry`` (index and remove jobs), ``summaries`` (live summarise jobs) and
        ``background_embeds`` (live ``embed`` jobs of the background model)."""
        out = {}
        for name in names if names is not None else list(self.services):
            by_kind = self.services[name].depth()
            docs = [by_kind.get(KIND_INDEX, {}), by_kind.get(KIND_REMOVE, {})]
            out[name] = {
                "depth": sum(sum(states.values()) for states in by_kind.values()),
                "queued": sum(s.get(PENDING, 0) + s.get(RETRY, 0) for s in docs),
                "running": sum(s.get(RUNNING, 0) for s in docs),
                "retry": sum(s.get(RETRY, 0) for s in docs),
                "summaries": sum(by_kind.get(KIND_SUMMARISE, {}).values()),
                "background_embeds": sum(by_kind.get(KIND_EMBED, {}).values()),
            }
        return out


__all__ = ["REMOVE_WAIT_S", "Ingestion"]
