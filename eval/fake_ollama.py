"""A small local HTTP server that speaks the parts of Ollama's API the product uses.

Why a server and not a mock: the real ``ollama`` client (and httpx under it) must do
the talking, so request shapes, NDJSON streaming, timeouts and dropped connections
are exercised exactly as against a real Ollama. Documented endpoints implemented:
POST /api/chat (streaming NDJSON and not), POST /api/show, GET /api/tags,
POST /api/embed (deterministic vectors), GET /api/version.

Two users: the test suite, and ``officeqa eval
--generator fake``, which answers with :func:`eval.fake_model.grounded_reply` so the model
path (assembly, [n] markers, citations) runs deterministically with no model installed.

Every request body is recorded (``server.requests``) for assertions; replies to
/api/chat come from a queue of :class:`Reply` (or ``reply_fn``), each able to delay,
pause after its first piece until an event is set, or drop the connection.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["CREATED_AT", "DEFAULT_MODEL", "FakeOllama", "ModelSpec", "Reply"]

DEFAULT_MODEL = "qwen2.5:7b-instruct"
CREATED_AT = "2026-01-01T00:00:00Z"


@dataclass
class Reply:
    """How the fake answers one /api/chat request.

    ``pieces``: the answer, sent as one NDJSON line each when streaming (joined otherwise).
    ``delay_s``: wait before sending anything (provokes read timeouts).
    ``wait_after_first``: after the first piece, wait until this event is set (max 10 s).
    ``drop``: "before" closes the connection without a response; "after_first" after the first piece.
    ``status``/``error``: an HTTP error answer instead.
    ``prompt_eval_count``: reported count; None = characters of all message contents.
    """

    pieces: list[str] = field(default_factory=lambda: ["好的，", "答案见资料 [1]。"])
    delay_s: float = 0.0
    wait_after_first: threading.Event | None = None
    drop: str | None = None
    status: int = 200
    error: str | None = None
    prompt_eval_count: int | None = None


@dataclass
class ModelSpec:
    architecture: str = "qwen2"
    context_length: int = 32768


class FakeOllama:
    """Start with :meth:`start`, point an ``ollama.Client`` at :attr:`url`, stop with :meth:`stop`."""

    def __init__(
        self,
        models: dict[str, ModelSpec] | None = None,
        embed_dim: int = 16,
        reply_fn: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> None:
        self.models = models if models is not None else {DEFAULT_MODEL: ModelSpec()}
        self.embed_dim = embed_dim
        self.replies: list[Reply] = []
        self.reply_fn = reply_fn
        self.requests: list[tuple[str, str, dict[str, Any]]] = []
        self.finished = threading.Event()  # set when a streamed reply has been sent completely
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeOllama:
        server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def add_reply(self, reply: Reply) -> None:
        self.replies.append(reply)

    def chat_requests(self) -> list[dict[str, Any]]:
        return [body for method, path, body in self.requests if path == "/api/chat"]

    # -- behaviour ----------------------------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.pop(0)
        if self.reply_fn is not None:
            return self.reply_fn(body)
        return Reply()

    def _record(self, method: str, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append((method, path, body))

    def wait(self, seconds: float) -> None:
        """Sleep that ends early when the server stops (so teardown never hangs)."""
        self._stop.wait(seconds)

    def embed(self, text: str) -> list[float]:
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        raw = [(digest[i % len(digest)] - 127.5) / 127.5 for i in range(self.embed_dim)]
        norm = math.sqrt(sum(x * x for x in raw)) or 1.0
        return [x / norm for x in raw]


class _QuietServer(ThreadingHTTPServer):
    """A client that hung up (timeout tests) is expected, not an error worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        # -- plumbing -------------------------------------------------------------------------

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            return json.loads(raw) if raw else {}

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _chunk(self, payload: dict[str, Any]) -> None:
            data = (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8")
            self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _drop(self) -> None:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

        # -- routes ---------------------------------------------------------------------------

        def do_GET(self) -> None:
            fake._record("GET", self.path, {})
            if self.path == "/api/version":
                self._send_json(200, {"version": "0.12.0"})
            elif self.path == "/api/tags":
                models = [
                    {"name": name, "model": name, "modified_at": CREATED_AT, "size": 1, "digest": "0" * 64,
                     "details": {"family": spec.architecture, "format": "gguf"}}
                    for name, spec in fake.models.items()
                ]
                self._send_json(200, {"models": models})
            else:
                self._send_json(404, {"error": f"no route {self.path}"})

        def do_POST(self) -> None:
            try:
                body = self._body()
            except json.JSONDecodeError as exc:
                self._send_json(400, {"error": f"invalid JSON: {exc}"})
                return
            fake._record("POST", self.path, body)
            if self.path == "/api/chat":
                self._chat(body)
            elif self.path == "/api/show":
                self._show(body)
            elif self.path == "/api/embed":
                self._embed(body)
            else:
                self._send_json(404, {"error": f"no route {self.path}"})

        def _show(self, body: dict[str, Any]) -> None:
            spec = fake.models.get(body.get("model", ""))
            if spec is None:
                self._send_json(404, {"error": f"model '{body.get('model')}' not found"})
                return
            arch = spec.architecture
            self._send_json(200, {
                "modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                "details": {"family": arch, "format": "gguf", "parameter_size": "7B"},
                "model_info": {"general.architecture": arch, f"{arch}.context_length": spec.context_length},
                "capabilities": ["completion"],
            })

        def _embed(self, body: dict[str, Any]) -> None:
            if body.get("model") not in fake.models:
                self._send_json(404, {"error": f"model '{body.get('model')}' not found"})
                return
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else texts
            self._send_json(200, {"model": body["model"], "embeddings": [fake.embed(t) for t in texts]})

        def _chat(self, body: dict[str, Any]) -> None:
            model = body.get("model", "")
            if model not in fake.models:
                self._send_json(404, {"error": f"model '{model}' not found, try pulling it first"})
                return
            options = body.get("options") or {}
            temperature = options.get("temperature")
            if temperature is not None and not isinstance(temperature, int | float):
                self._send_json(400, {"error": "temperature must be a number or null"})
                return
            reply = fake._next_reply(body)
            if reply.delay_s:
                fake.wait(reply.delay_s)
            if reply.drop == "before":
                self._drop()
                return
            if reply.status != 200:
                self._send_json(reply.status, {"error": reply.error or "error"})
                return
            prompt_eval = reply.prompt_eval_count
            if prompt_eval is None:
                prompt_eval = sum(len(m.get("content", "")) for m in body.get("messages", []))
            final = {"model": model, "created_at": CREATED_AT, "done": True, "done_reason": "stop",
                     "total_duration": 1, "load_duration": 1, "prompt_eval_count": prompt_eval,
                     "prompt_eval_duration": 1, "eval_count": len(reply.pieces), "eval_duration": 1}
            if not body.get("stream", True):
                message = {"role": "assistant", "content": "".join(reply.pieces)}
                self._send_json(200, {**final, "message": message})
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for index, piece in enumerate(reply.pieces):
                self._chunk({"model": model, "created_at": CREATED_AT, "done": False,
                             "message": {"role": "assistant", "content": piece}})
                if index == 0 and reply.drop == "after_first":
                    self._drop()
                    return
                if index == 0 and reply.wait_after_first is not None:
                    reply.wait_after_first.wait(10)
            self._chunk({**final, "message": {"role": "assistant", "content": ""}})
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            fake.finished.set()

    return Handler
