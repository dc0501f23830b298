"""Questions first: a process-wide count of questions being answered, which background work waits on.

Why: the server answers questions and runs the background model (``embed`` jobs, :mod:`indexing.background_embed`)
in one process. The model's thread already runs 10 nice levels lower, but its slices still take a core's caches and
memory bandwidth, and each stored batch changes what a reader must catch up with. So the question service raises
this count while it answers (:func:`answering`), and the model thread waits before each slice while the count is
above zero (:func:`wait_for_quiet`), at most ``max_wait_s`` a slice, so a steady stream of questions slows the
background pass down but cannot stop it. Another process (``officeqa worker``) does not see the count: the nice
level is what orders the two there.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_quiet = threading.Event()
_quiet.set()
_in_flight = 0
_waits = 0  # slices that waited for a question (tests and benchmarks read it)


@contextmanager
def answering() -> Iterator[None]:
    """Count one question in flight for the duration of the block."""
    global _in_flight
    with _lock:
        _in_flight += 1
        _quiet.clear()
    try:
        yield
    finally:
        with _lock:
            _in_flight -= 1
            if _in_flight == 0:
                _quiet.set()


def in_flight() -> int:
    """Questions being answered in this process now."""
    return _in_flight


def wait_for_quiet(max_wait_s: float) -> bool:
    """Block while a question is in flight, at most ``max_wait_s``; True when no question is in flight now."""
    global _waits
    if _quiet.is_set():
        return True
    _waits += 1
    return _quiet.wait(max_wait_s)


def waits() -> int:
    """How many times background work has waited for questions in this process."""
    return _waits


__all__ = ["answering", "in_flight", "wait_for_quiet", "waits"]
