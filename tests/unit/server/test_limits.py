"""The size policy, the rate counters (with a clock the test moves) and the error mapping they feed."""

from __future__ import annotations

import pytest
from litestar import Litestar, get
from litestar.testing import TestClient

from officeqa.errors import StoreUnavailable
from server.errors import RateLimited, RequestRefused, exception_to_response, status_and_body
from server.limits import FailureCounter, SizePolicy, SlidingWindow


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_questions_are_stripped_and_checked() -> None:
    sizes = SizePolicy(question_chars=10, message_chars=5, messages=3)
    assert sizes.question("  问题？ \n") == "问题？"
    for empty in ("", "  ", "\u3000\n"):
        with pytest.raises(RequestRefused, match="empty") as caught:
            sizes.question(empty)
        assert caught.value.kind == "empty_question"
    with pytest.raises(RequestRefused, match="max_question_chars"):
        sizes.question("x" * 11, param="prompt")
    with pytest.raises(RequestRefused, match="max_messages"):
        sizes.history(["a", "b", "c"])
    with pytest.raises(RequestRefused, match=r"messages\[1\].*max_message_chars"):
        sizes.history(["a", "b" * 6])


def test_a_sliding_window_allows_its_limit_then_says_when() -> None:
    clock = Clock()
    window = SlidingWindow(limit=2, window_s=60, clock=clock)
    assert window.hit("k") is None and window.hit("k") is None
    assert window.hit("k") == pytest.approx(60)
    assert window.hit("other") is None
    clock.now += 30
    assert window.hit("k") == pytest.approx(30)
    clock.now += 30
    assert window.hit("k") is None
    assert SlidingWindow(limit=0).hit("k") is None  # off


def test_failures_in_a_row_block_an_address_until_the_window_passes() -> None:
    clock = Clock()
    counter = FailureCounter(limit=3, block_s=300, clock=clock)
    for _ in range(2):
        counter.failed("a")
    assert counter.blocked("a") is None
    counter.succeeded("a")  # a success resets the run
    for _ in range(3):
        counter.failed("a")
    assert counter.blocked("a") == pytest.approx(300) and counter.blocked("b") is None
    clock.now += 301
    assert counter.blocked("a") is None


def test_store_outages_are_503_with_retry_after_and_no_address() -> None:
    exc = StoreUnavailable("cannot connect to PostgreSQL at db.internal:5432/officeqa: connection refused")
    status, body = status_and_body(exc)
    assert status == 503 and body["error"]["code"] == "store_unavailable"
    assert "db.internal" not in body["error"]["message"] and body["error"]["type"] == "server_error"

    @get("/down")
    async def down() -> None:
        raise exc

    @get("/busy")
    async def busy() -> None:
        raise RateLimited("slow down", 12.2)

    app = Litestar([down, busy], exception_handlers={Exception: exception_to_response})
    with TestClient(app) as client:
        response = client.get("/down")
        assert response.status_code == 503 and response.headers["Retry-After"] == "5"
        response = client.get("/busy")
        assert response.status_code == 429 and response.headers["Retry-After"] == "13"
