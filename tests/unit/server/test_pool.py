"""The answer-thread pool: a service per thread and knowledge base, opened and closed on its own thread,
reopened after a write, questions in parallel, streams that stop when their reader goes away.

The "services" here are small recording objects: the pool only opens, hands over and closes them.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from server.pool import ServicePool


class Recorded:
    """Stands in for a QuestionService: remembers the thread and generation it was opened with."""

    def __init__(self, kb: str, generation: int) -> None:
        self.kb = kb
        self.generation = generation
        self.opened_on = threading.get_ident()
        self.closed_on: int | None = None


class Harness:
    def __init__(self, threads: int) -> None:
        self.generations: dict[str, int] = {"a": 0, "b": 0}
        self.opened: list[Recorded] = []
        self.lock = threading.Lock()
        self.pool = ServicePool(self.open, self.close, self.generations.__getitem__, threads)

    def open(self, kb: str) -> Recorded:
        service = Recorded(kb, self.generations[kb])
        with self.lock:
            self.opened.append(service)
        return service

    @staticmethod
    def close(service: Recorded) -> None:
        service.closed_on = threading.get_ident()


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness(threads=3)
    try:
        yield h
    finally:
        h.pool.close()


def test_a_thread_reuses_its_service_and_reopens_it_after_a_write(harness: Harness) -> None:
    async def scenario() -> list[Recorded]:
        first = await harness.pool.call("a", lambda s: s)
        again = [await harness.pool.call("a", lambda s: s) for _ in range(6)]
        harness.generations["a"] += 1  # a write: the next question must see a fresh handle
        after = [await harness.pool.call("a", lambda s: s) for _ in range(6)]
        return [first, *again, *after]

    seen = asyncio.run(scenario())
    assert {s.generation for s in seen[-6:]} == {1}
    assert all(s.opened_on != 0 for s in seen)
    per_thread = {(s.opened_on, s.generation) for s in seen}
    assert len(per_thread) == len({id(s) for s in seen})  # one service per (thread, generation)
    stale = [s for s in harness.opened if s.generation == 0]
    assert all(s.closed_on == s.opened_on for s in stale if s.closed_on is not None)


def test_services_are_per_knowledge_base_and_closed_on_their_own_thread() -> None:
    h = Harness(threads=2)

    async def scenario() -> tuple[Recorded, Recorded]:
        return await h.pool.call("a", lambda s: s), await h.pool.call("b", lambda s: s)

    a, b = asyncio.run(scenario())
    assert (a.kb, b.kb) == ("a", "b")
    h.pool.close()
    assert h.opened and all(s.closed_on == s.opened_on for s in h.opened)


def test_questions_run_in_parallel_up_to_the_thread_count(harness: Harness) -> None:
    barrier = threading.Barrier(3, timeout=30)

    async def scenario() -> list[int]:
        return await asyncio.gather(*(harness.pool.call("a", lambda s: barrier.wait()) for _ in range(3)))

    assert sorted(asyncio.run(scenario())) == [0, 1, 2]  # all three met: none waited for another to finish


def test_a_stream_yields_in_order_then_raises_what_the_iteration_raised(harness: Harness) -> None:
    def events(service: Recorded) -> Iterator[str]:
        yield "one"
        yield "two"
        raise ValueError("broken after two")

    async def scenario() -> list[str]:
        got = []
        with pytest.raises(ValueError, match="broken after two"):
            async for item in harness.pool.stream("a", events):
                got.append(item)
        return got

    assert asyncio.run(scenario()) == ["one", "two"]


def test_a_stream_closed_early_stops_the_iteration_on_its_thread(harness: Harness) -> None:
    closed = threading.Event()
    produced: list[int] = []

    def events(service: Recorded) -> Iterator[int]:
        try:
            for n in range(1000):
                produced.append(n)
                yield n
                if n >= 2:
                    closed.wait(0.05)  # a model writing slowly
        finally:
            closed.set()

    async def scenario() -> None:
        stream = harness.pool.stream("a", events)
        assert await anext(stream) == 0
        await stream.aclose()  # the client went away

    asyncio.run(scenario())
    assert closed.wait(30)
    assert len(produced) < 1000


def test_errors_in_a_call_reach_the_caller_and_the_thread_survives(harness: Harness) -> None:
    async def scenario() -> str:
        with pytest.raises(KeyError):
            await harness.pool.call("a", lambda s: {}["missing"])
        return await harness.pool.call("a", lambda s: s.kb)

    assert asyncio.run(scenario()) == "a"
