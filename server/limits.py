"""One size policy and the rate limits, for every endpoint that answers or authenticates.

Sizes (``settings.server``): the JSON body (``max_body_kb``, refused 413 by Litestar from its
``Content-Length`` before a byte is read), the question or completion prompt
(``max_question_chars``), each earlier message (``max_message_chars``) and how many messages
(``max_messages``). Every question path (``/api/chat``, ``/v1/chat/completions``,
``/v1/completions``, ``/api/route``) calls :meth:`SizePolicy.question` before any work, so an
empty, whitespace-only or oversized question is a 400 with one clear line.

Rates: ``answers_per_minute`` per key and per client address (sliding window of 60 s);
``failed_auth_limit`` failed key attempts in a row from one address, or aimed at one key id,
after which that address (whatever key it sends) or that key id (from any address) is refused
429 for ``failed_auth_window_s``, so keys cannot be guessed at network speed. Counters live in
this process's memory: several server processes each count their own, and behind a reverse
proxy every client shares the proxy's address.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from officeqa.settings import ServerSettings
from server.errors import RateLimited, RequestRefused

#: Forget idle counters past this many keys (a scan of addresses must not grow memory without bound).
MAX_TRACKED = 10_000


@dataclass(frozen=True, slots=True)
class SizePolicy:
    """The size limits of ``settings.server`` (see the module docstring)."""

    body_bytes: int = 512 << 10
    question_chars: int = 8000
    message_chars: int = 32000
    messages: int = 200

    @classmethod
    def from_settings(cls, server: ServerSettings) -> SizePolicy:
        return cls(server.max_body_kb << 10, server.max_question_chars, server.max_message_chars,
                   server.max_messages)

    def question(self, text: str | None, param: str = "question") -> str:
        """The question, stripped; 400 when it is empty, whitespace or longer than the policy allows."""
        stripped = (text or "").strip()
        if not stripped:
            raise RequestRefused(f"{param}: the question is empty; write a question",
                                 kind="empty_question", param=param)
        if len(stripped) > self.question_chars:
            raise RequestRefused(
                f"{param}: the question has {len(stripped):,} characters; at most {self.question_chars:,} "
                "are accepted (server.max_question_chars)", kind="too_large", param=param)
        return stripped

    def history(self, contents: Sequence[str], param: str = "messages") -> None:
        """400 when the conversation carries too many messages or one longer than the policy allows."""
        if len(contents) + 1 > self.messages:
            raise RequestRefused(f"{param}: {len(contents) + 1} messages; at most {self.messages} are accepted "
                                 "(server.max_messages)", kind="too_large", param=param)
        for n, content in enumerate(contents):
            if len(content) > self.message_chars:
                raise RequestRefused(
                    f"{param}[{n}]: {len(content):,} characters; at most {self.message_chars:,} per earlier "
                    "message (server.max_message_chars)", kind="too_large", param=param)


@dataclass
class SlidingWindow:
    """At most ``limit`` events per ``window_s`` for each key; ``limit`` 0 turns it off."""

    limit: int
    window_s: float = 60.0
    clock: Callable[[], float] = time.monotonic
    _events: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def hit(self, key: str) -> float | None:
        """Count one event for ``key``; None when it is allowed, else the seconds until one would be."""
        if self.limit <= 0:
            return None
        now = self.clock()
        with self._lock:
            events = self._events.setdefault(key, deque())
            while events and now - events[0] >= self.window_s:
                events.popleft()
            if len(events) >= self.limit:
                return self.window_s - (now - events[0])
            events.append(now)
            if len(self._events) > MAX_TRACKED:
                self._forget(now)
            return None

    def _forget(self, now: float) -> None:
        for key in [k for k, ev in self._events.items() if not ev or now - ev[-1] >= self.window_s]:
            del self._events[key]


@dataclass
class FailureCounter:
    """Failed key attempts in a row per address; ``limit`` of them block it for ``block_s`` (0: off)."""

    limit: int
    block_s: float = 300.0
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, tuple[int, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def blocked(self, address: str) -> float | None:
        """Seconds ``address`` stays blocked, or None."""
        if self.limit <= 0:
            return None
        with self._lock:
            count, last = self._failures.get(address, (0, 0.0))
            if count < self.limit:
                return None
            remaining = self.block_s - (self.clock() - last)
            if remaining <= 0:
                del self._failures[address]
                return None
            return remaining

    def failed(self, address: str) -> None:
        if self.limit <= 0:
            return
        now = self.clock()
        with self._lock:
            count, last = self._failures.get(address, (0, 0.0))
            if now - last >= self.block_s:
                count = 0
            self._failures[address] = (count + 1, now)
            if len(self._failures) > MAX_TRACKED:
                for key in [k for k, (_, t) in self._failures.items() if now - t >= self.block_s]:
                    del self._failures[key]

    def succeeded(self, address: str) -> None:
        with self._lock:
            self._failures.pop(address, None)


@dataclass
class RequestPolicy:
    """Everything a guard needs to size and pace requests; one per app (``app.state.policy``)."""

    sizes: SizePolicy
    answers: SlidingWindow
    failed_auth: FailureCounter

    @classmethod
    def from_settings(cls, server: ServerSettings, clock: Callable[[], float] = time.monotonic) -> RequestPolicy:
        return cls(SizePolicy.from_settings(server), SlidingWindow(server.answers_per_minute, 60.0, clock),
                   FailureCounter(server.failed_auth_limit, server.failed_auth_window_s, clock))

    def check_auth_allowed(self, who: str) -> None:
        """429 while ``who`` (``addr:<address>`` or ``key:<id>``) is blocked after failed key attempts."""
        wait = self.failed_auth.blocked(who)
        if wait is not None:
            target = "this address" if who.startswith("addr:") else "this API key"
            raise RateLimited(f"too many failed API key attempts for {target}; retry in {int(wait) + 1} s", wait)

    def count_answer(self, key_id: str | None, address: str) -> None:
        """One question by ``key_id`` (None in local mode) from ``address``; 429 over either limit."""
        for who, label in ((f"key:{key_id}", "this API key") if key_id else (None, None),
                           (f"addr:{address}", "this address")):
            if who is None:
                continue
            wait = self.answers.hit(who)
            if wait is not None:
                raise RateLimited(f"{label} asked more than {self.answers.limit} questions in a minute; "
                                  f"retry in {int(wait) + 1} s (server.answers_per_minute)", wait)


__all__ = ["FailureCounter", "RequestPolicy", "SizePolicy", "SlidingWindow"]
