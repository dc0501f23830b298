"""Watched folders: new, changed and deleted files become jobs as they happen.

Why ``watchfiles``: it wraps the Rust ``notify`` crate (inotify on Linux, FSEvents,
ReadDirectoryChangesW) and batches bursts of events (a copy of 500 files is one batch,
not 500 wake-ups). OS events do not reach everything: on network shares (SMB/NFS mounts)
changes made by other machines raise no inotify event, and the event backend cannot
represent a file name that is not UTF-8 (it stops with an error). So there is a polling
mode (``jobs.watch_poll``: walk and compare sizes and modification times every
``jobs.watch_poll_interval_s``), which is also the fallback when the event watcher fails.

Events only *enqueue*; the worker pool hashes each file, so a
"modified" event on an unchanged file costs one hash, and the queue's one-live-job-per-path
rule folds repeated events into one job.

A folder that appears is walked (its files enqueued); a folder that disappears enqueues
the removal of every registered file under it. Files ``remove``d by the user stay out.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from indexing.backends import open_queue
from indexing.contracts import JobStore
from indexing.jobs import KIND_INDEX, KIND_REMOVE
from indexing.preparation import supported_suffixes
from indexing.registry import REMOVED
from indexing.walking import absolute, is_junk, walk
from officeqa.settings import Settings


class FolderWatcher:
    """Turn file-system changes under ``folders`` into index/remove jobs (run it on its own thread)."""

    def __init__(
        self,
        settings: Settings,
        folders: Iterable[str | Path],
        on_enqueue: Callable[[int], None] | None = None,
        on_message: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.folders = [absolute(f) for f in folders]
        self.on_enqueue = on_enqueue
        self.on_message = on_message
        self.stop_event = threading.Event()

    def suffixes(self) -> frozenset[str]:
        return supported_suffixes()

    def run(self) -> None:
        """Watch until :meth:`stop`; each batch of changes is enqueued in one transaction.

        OS events by default; polling when ``jobs.watch_poll`` is set, and as a fallback when
        the event watcher fails (it cannot represent file names that are not UTF-8, for one).
        """
        queue = open_queue(self.settings)  # the configured backend's, so watch feeds a shared queue too
        try:
            if not self.settings.jobs.watch_poll:
                try:
                    self._run_events(queue)
                    return
                except Exception as exc:  # noqa: BLE001 - any failure of the event backend: say so, keep watching
                    self._say(f"file events stopped ({type(exc).__name__}: {exc}); polling instead")
            self._run_polling(queue)
        finally:
            queue.registry.close()

    def _say(self, message: str) -> None:
        if self.on_message is not None:
            self.on_message(message)

    def _run_events(self, queue: JobStore) -> None:
        import watchfiles

        for changes in watchfiles.watch(
            *self.folders,
            stop_event=self.stop_event,
            debounce=800,
            raise_interrupt=False,
            ignore_permission_denied=True,
        ):
            self.enqueue_changes(queue, [(change.name, path) for change, path in changes])

    def _snapshot(self) -> dict[str, tuple[int, int]]:
        found: dict[str, tuple[int, int]] = {}
        for path in walk(self.folders, self.suffixes()).files:
            try:
                st = os.stat(path)
            except OSError:
                continue
            found[path] = (st.st_mtime_ns, st.st_size)
        return found

    def _run_polling(self, queue: JobStore) -> None:
        """Walk the folders every ``jobs.watch_poll_interval_s`` and enqueue what differs from the last walk.

        The first walk is compared with the registry, so changes made before polling started
        (e.g. the one that stopped the event watcher) are not missed.
        """
        before = self._snapshot()
        changes: list[tuple[str, str]] = []
        for folder in self.folders:
            for record in queue.registry.paths_under(folder):
                if record.status == REMOVED:
                    continue
                key = before.get(record.path)
                if key is None:
                    changes.append(("deleted", record.path))
                elif key[1] != record.size or abs(key[0] / 1e9 - record.mtime) > 1e-3:
                    changes.append(("modified", record.path))
        registered = {r.path for f in self.folders for r in queue.registry.paths_under(f)}
        changes += [("added", p) for p in before if p not in registered]
        if changes:
            self.enqueue_changes(queue, changes)
        while not self.stop_event.wait(self.settings.jobs.watch_poll_interval_s):
            after = self._snapshot()
            changes = [("deleted", p) for p in before.keys() - after.keys()]
            changes += [("modified", p) for p, key in after.items() if before.get(p) != key]
            if changes:
                self.enqueue_changes(queue, changes)
            before = after

    def stop(self) -> None:
        self.stop_event.set()

    def enqueue_changes(self, queue: JobStore, changes: Iterable[tuple[str, str]]) -> int:
        """Queue jobs for ``(change, path)`` pairs (change: added, modified, deleted); returns how many."""
        registry = queue.registry
        exclusions = registry.exclusions()
        items: dict[str, str] = {}
        for change, raw in changes:
            path = os.path.abspath(raw)
            if change == "deleted" or not os.path.lexists(path):
                record = registry.get(path)
                if record is not None and record.status != REMOVED:
                    items[path] = KIND_REMOVE
                for under in registry.paths_under(path):  # a folder went away
                    if under.status != REMOVED:
                        items[under.path] = KIND_REMOVE
                continue
            if os.path.isdir(path):
                for found in walk([path], self.suffixes(), excluded=exclusions.__contains__).files:
                    items[found] = KIND_INDEX
                continue
            name = os.path.basename(path)
            supported = os.path.splitext(name)[1].lower() in self.suffixes()
            if not supported or not os.path.isfile(path) or is_junk(name) or path in exclusions:
                continue
            items[path] = KIND_INDEX
        if items:
            queue.enqueue_many(((p, kind, None, False) for p, kind in sorted(items.items())), source="watch")
            if self.on_enqueue is not None:
                self.on_enqueue(len(items))
        return len(items)


__all__ = ["FolderWatcher"]
