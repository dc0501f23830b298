"""Host names, origins and content types as the browser guard reads them (the HTTP half is in tests/api)."""

from __future__ import annotations

import pytest
from litestar.datastructures import Headers

from server.browser_guard import BrowserPolicy, content_type_refusal, host_name


@pytest.mark.parametrize(("header", "name"), [("localhost:8000", "localhost"), ("[::1]:8000", "::1"), ("[::1]", "::1"),
                                              ("QA.Corp", "qa.corp"), ("127.0.0.1", "127.0.0.1"), ("", ""),
                                              ("[broken", "")])
def test_host_names_lose_their_port_and_case(header: str, name: str) -> None:
    assert host_name(header) == name


def test_local_mode_answers_loopback_and_configured_names_only() -> None:
    policy = BrowserPolicy.create(["qa.corp"], [], local_mode=lambda: True)
    assert policy.host_refusal("localhost:1") is None and policy.host_refusal("qa.corp:443") is None
    assert "allowed_hosts" in policy.host_refusal("attacker.example")
    keyed = BrowserPolicy.create([], [], local_mode=lambda: False)
    assert keyed.host_refusal("anything.corp") is None
    assert BrowserPolicy.create(["*"], [], local_mode=lambda: True).host_refusal("x.example") is None


def test_origins_must_be_the_servers_own_or_listed() -> None:
    policy = BrowserPolicy.create([], ["https://portal.corp"], local_mode=lambda: True)

    def refused(**headers: str) -> bool:
        return policy.origin_refusal(Headers(headers)) is not None

    assert not refused(host="127.0.0.1:8000", origin="http://127.0.0.1:8000")
    assert not refused(host="127.0.0.1:8000", origin="https://portal.corp")
    assert not refused(host="127.0.0.1:8000")  # curl, SDKs: no browser headers
    assert not refused(host="127.0.0.1:8000", **{"sec-fetch-site": "same-origin"})
    assert refused(host="127.0.0.1:8000", origin="http://127.0.0.1:9999")
    assert refused(host="127.0.0.1:8000", origin="null")
    assert refused(host="127.0.0.1:8000", **{"sec-fetch-site": "cross-site"})


def test_json_endpoints_take_json_and_uploads_multipart() -> None:
    def check(method: str, path: str, content_type: str | None, length: str = "10") -> str | None:
        headers = {"content-length": length, **({"content-type": content_type} if content_type else {})}
        return content_type_refusal(method, path, Headers(headers))

    assert check("POST", "/api/chat", "application/json; charset=utf-8") is None
    assert check("POST", "/api/chat", "text/plain") is not None
    assert check("POST", "/v1/completions", "application/x-www-form-urlencoded") is not None
    assert check("POST", "/api/documents", "multipart/form-data; boundary=x") is None
    assert check("POST", "/api/documents", "text/plain") is not None
    assert check("POST", "/api/chat", None, length="0") is None  # no body: the route says what is missing
    assert check("GET", "/api/documents", "text/plain") is None
