"""A real HTTP server (uvicorn, loopback, a free port) around an app, for clients that need a socket:
the official ``openai`` client and the browser tests. The app's lifespan runs as in production."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from litestar import Litestar

START_TIMEOUT_S = 120.0  # a guard against a hung start-up, not a speed requirement


@contextmanager
def serve(app: Litestar) -> Iterator[str]:
    """Run ``app`` on 127.0.0.1 in a thread; yields its base URL and stops it (lifespan shutdown) after."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="live-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)
