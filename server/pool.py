"""Where the synchronous question service runs inside the asynchronous server: a pool of threads,
each with its OWN service (knowledge-base handles) per knowledge base.

Why this shape:

* The service and the knowledge base are synchronous and hold per-connection state: a SQLite
  connection belongs to the thread that opened it (``check_same_thread``), the service caches
  its catalog and quote locators, and the BM25 index and document cache live on the knowledge
  base. Sharing one of each across threads would need a lock held for a whole answer —
  including the seconds a model takes to write it — which serialises every question.
* So each of ``server.answer_threads`` threads opens, on first use, its own
  :class:`~retrieval.service.QuestionService` per knowledge base, and a question runs start to
  finish on one thread: no lock on the question path. What is safe to share is shared: the
  embedder (behind a lock: it loads lazily and is quick per query), the generator client
  (httpx is thread-safe) and the compiled rules.
* A streamed answer is iterated on its thread and handed to the event loop event by event
  (``call_soon_threadsafe``); a client that goes away stops the iteration at the next event,
  which closes the model stream.
* Writes happen elsewhere (the ingestion worker); after one, the knowledge base's generation
  moves and each thread reopens its handle before the next question, so it sees the new
  documents (and the new BM25 index).

Costs: memory grows with threads x knowledge bases (each handle loads its BM25 index), and a
question waits for a free thread when all are busy; ``bench/bench_server.py`` measures both.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from retrieval.service import QuestionService

log = logging.getLogger(__name__)

T = TypeVar("T")
#: opens a service for a knowledge base name (called on the pool thread that will use it)
Opener = Callable[[str], "QuestionService"]
#: closes a service (and the handles it holds), on the thread that opened it
Closer = Callable[["QuestionService"], None]
#: the current write generation of a knowledge base
Generation = Callable[[str], int]

_END = object()


class _Task:
    __slots__ = ("fn", "future", "kb")

    def __init__(self, kb: str, fn: Callable[[QuestionService], Any]) -> None:
        self.kb = kb
        self.fn = fn
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()


class ServicePool:
    """``threads`` worker threads, each with its own service per knowledge base."""

    def __init__(self, opener: Opener, closer: Closer, generation: Generation, threads: int) -> None:
        self._opener = opener
        self._closer = closer
        self._generation = generation
        self._queue: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"officeqa-answer-{i}", daemon=True) for i in range(threads)
        ]
        self._busy = 0
        self._busy_lock = threading.Lock()
        for thread in self._threads:
            thread.start()

    @property
    def size(self) -> int:
        return len(self._threads)

    @property
    def busy(self) -> int:
        return self._busy

    # -- the worker threads ----------------------------------------------------------------------
    def _work(self) -> None:
        services: dict[str, tuple[int, QuestionService]] = {}
        try:
            while (task := self._queue.get()) is not None:
                if not task.future.set_running_or_notify_cancel():
                    continue
                with self._busy_lock:
                    self._busy += 1
                try:
                    task.future.set_result(task.fn(self._service(services, task.kb)))
                except BaseException as exc:  # noqa: BLE001 - handed to the awaiting request, which maps it
                    task.future.set_exception(exc)
                finally:
                    with self._busy_lock:
                        self._busy -= 1
        finally:
            for _, service in services.values():
                self._closer(service)

    def _service(self, services: dict[str, tuple[int, QuestionService]], kb: str) -> QuestionService:
        generation = self._generation(kb)
        held = services.get(kb)
        if held is not None and held[0] == generation:
            return held[1]
        if held is not None:
            del services[kb]
            self._closer(held[1])
        service = self._opener(kb)
        services[kb] = (generation, service)
        return service

    # -- the event-loop side ---------------------------------------------------------------------
    def submit(self, kb: str, fn: Callable[[QuestionService], T]) -> concurrent.futures.Future[T]:
        task = _Task(kb, fn)
        self._queue.put(task)
        return task.future

    async def call(self, kb: str, fn: Callable[[QuestionService], T]) -> T:
        """Run ``fn(service)`` on a pool thread with that thread's service for ``kb``."""
        return await asyncio.wrap_future(self.submit(kb, fn))

    async def stream(self, kb: str, fn: Callable[[QuestionService], Iterator[T]]) -> AsyncIterator[T]:
        """Iterate ``fn(service)`` on a pool thread, yielding its items here as they come.

        An exception in the iteration is raised here after the items before it. Closing this
        async iterator early (a client that disconnected) stops the iteration at its next item.
        """
        loop = asyncio.get_running_loop()
        items: asyncio.Queue[tuple[object, Any]] = asyncio.Queue()
        stop = threading.Event()

        def put(kind: object, value: Any) -> None:
            try:
                loop.call_soon_threadsafe(items.put_nowait, (kind, value))
            except RuntimeError:  # the loop is closed (server shutting down): nobody is listening
                stop.set()

        def run(service: QuestionService) -> None:
            iterator = fn(service)
            try:
                for item in iterator:
                    if stop.is_set():
                        break
                    put(None, item)
            finally:
                close = getattr(iterator, "close", None)
                if close is not None:
                    close()

        future = self.submit(kb, run)
        future.add_done_callback(lambda done: put(_END, done))
        try:
            while True:
                kind, value = await items.get()
                if kind is _END:
                    value.result()  # raises what the iteration raised
                    return
                yield value
        finally:
            stop.set()
            future.cancel()  # still queued: never runs

    def close(self, timeout: float = 30.0) -> None:
        """Let running questions finish, then close every thread's services (on their own threads)."""
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("answer thread %s still busy after %.0fs; leaving it", thread.name, timeout)


__all__ = ["ServicePool"]
