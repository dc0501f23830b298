"""Another web site in the same browser cannot use a local-mode server (headless Chromium, real origins).

The officeqa server runs in local mode (no key) on 127.0.0.1; an "attacker" site is a second HTTP
server reached as ``attacker.example`` (Chromium resolves that name to 127.0.0.1, as DNS rebinding
would). Its page tries what a hostile page can do without any key: auto-submit a multipart form
that uploads a planted document, post ``text/plain`` JSON to ``/api/chat`` (no CORS preflight),
and read ``/api/documents`` through its own name on the server's port (what a page rebound to
127.0.0.1 would request). Every attempt is refused
and nothing is planted or asked; the server's own page still works.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from browser_helpers import CHROMIUM, require_chromium
from live_server import serve
from playwright.sync_api import sync_playwright
from server_helpers import make_settings, wait_indexed

from eval.fake_ollama import FakeOllama
from server.app import create_app

WAIT_MS = 180_000  # a hang guard for a busy CI machine, not a speed requirement
NOTE = "# 报销\n\n报销需在出差结束后十日内提交。\n".encode()

pytestmark = pytest.mark.slow

ATTACK_PAGE = """<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="plant" method="POST" enctype="multipart/form-data" target="sink" action="{target}/api/documents">
  <input type="file" name="files" id="file">
</form>
<script>
window.results = {{}};
async function attack() {{
  const data = new DataTransfer();
  data.items.add(new File(["植入的文本：报销无需任何凭证。"], "planted.txt", {{type: "text/plain"}}));
  document.getElementById("file").files = data.files;
  document.getElementById("plant").submit();
  try {{
    await fetch("{target}/api/chat", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                                      body: JSON.stringify({{question: "报销需要什么？", stream: false}})}});
    window.results.chat = "sent";
  }} catch (e) {{ window.results.chat = "blocked"; }}
  window.results.done = true;
}}
attack();
</script></body></html>"""


class _AttackSite:
    """A second origin serving the attack page (and nothing else)."""

    def __init__(self, page: str) -> None:
        body = page.encode("utf-8")

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, fake: FakeOllama) -> Iterator[str]:
    root = tmp_path_factory.mktemp("cross-origin")
    with serve(create_app(make_settings(root, ollama_url=fake.url, allowed_hosts=[]))) as url:
        with httpx.Client(base_url=url) as http:
            assert http.post("/api/documents", files=[("files", ("报销.md", NOTE))]).status_code == 202
            wait_indexed(http, ["报销.md"])  # type: ignore[arg-type]
        yield url


def test_another_site_cannot_upload_ask_or_read(base_url: str, fake: FakeOllama) -> None:
    require_chromium()
    port = urlsplit(base_url).port
    site = _AttackSite(ATTACK_PAGE.format(target=base_url))
    asked = len(fake.chat_requests())
    statuses: dict[str, int] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP attacker.example 127.0.0.1"])
            try:
                page = browser.new_page()
                page.on("response", lambda r: statuses.__setitem__(
                    f"{r.request.method} {urlsplit(r.url).netloc}{urlsplit(r.url).path}", r.status))
                page.goto(f"http://attacker.example:{site.port}/")
                page.wait_for_function("window.results && window.results.done", timeout=WAIT_MS)
                results = page.evaluate("window.results")
                page.wait_for_function(
                    "() => { try { return document.getElementById('sink').contentWindow.length >= 0 } "
                    "catch (e) { return true } }", timeout=WAIT_MS)
                page.wait_for_timeout(500)  # let the form's response land
                # after DNS rebinding the attacker's name points at the server: its pages read under that name
                rebound = page.goto(f"http://attacker.example:{port}/api/documents")
                assert rebound is not None
                results["rebound"] = {"status": rebound.status, "body": rebound.text()}
            finally:
                browser.close()
    finally:
        site.close()

    own = urlsplit(base_url).netloc
    assert statuses.get(f"POST {own}/api/documents") == 403, statuses  # the planted upload
    assert statuses.get(f"POST {own}/api/chat") in (403, 415), statuses  # the text/plain question
    assert results["rebound"]["status"] == 400 and "报销" not in results["rebound"]["body"]  # DNS rebinding
    with httpx.Client(base_url=base_url) as http:
        names = [d["name"] for d in http.get("/api/documents").json()["documents"]]
    assert names == ["报销.md"]
    assert len(fake.chat_requests()) == asked


def test_the_servers_own_page_still_works(base_url: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(base_url)
            page.wait_for_selector("body[data-ready=true]", timeout=WAIT_MS)
            page.click("#tab-documents")
            page.wait_for_selector('#documents tbody tr[data-name="报销.md"]', timeout=WAIT_MS)
        finally:
            browser.close()
