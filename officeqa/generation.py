"""Text generation through a local Ollama server, with the guards a small local model needs.

Why each guard:
- ``num_ctx`` is sent with EVERY request: Ollama otherwise uses its default (2048) and
  silently drops the start of a longer prompt, so the model answers from half the evidence.
  It is checked once against the model's context length from ``/api/show`` and clamped.
- Connection errors are retried with backoff (a server restarting, a model loading);
  a read timeout or a connection dropped mid-answer is not retried (that would double
  the wait) but reported as :class:`GenerationError`, so callers can degrade.
- An empty or whitespace-only answer is retried once, then reported.
- ``prompt_eval_count`` is compared with the assembler's estimate and logged when they
  differ by more than 15%: a sign the token counter no longer matches the model.
- :meth:`OllamaGenerator.check_available` answers "can a model answer at all?" with a
  short timeout and no retries, so the degraded answer comes within seconds.

Every failure is a :class:`GenerationError` (a ``ModelUnavailable``) with a
:class:`FailureKind` that the answer pipeline turns into a notice.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import ollama

from officeqa.errors import FailureKind, GenerationError
from officeqa.settings import OllamaSettings

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Relative difference between the server's prompt_eval_count and our estimate that gets logged.
ESTIMATE_TOLERANCE = 0.15
#: The availability check never waits longer than this, whatever connect_timeout_s says.
PROBE_TIMEOUT_S = 1.5
BACKOFF_BASE_S = 0.25


@dataclass(slots=True)
class GenerationResult:
    """A finished generation and what the server reported about it."""

    text: str
    model: str
    num_ctx: int
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    estimated_prompt_tokens: int | None = None
    done_reason: str | None = None
    attempts: int = 1
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        """JSON-ready metadata."""
        return {
            "model": self.model,
            "num_ctx": self.num_ctx,
            "prompt_eval_count": self.prompt_eval_count,
            "eval_count": self.eval_count,
            "estimated_prompt_tokens": self.estimated_prompt_tokens,
            "done_reason": self.done_reason,
            "attempts": self.attempts,
            "seconds": round(self.seconds, 3),
            "warnings": list(self.warnings),
        }


Messages = Sequence[dict[str, str]]


class OllamaGenerator:
    """Chat generation against one Ollama model; create once, reuse for many questions."""

    def __init__(self, settings: OllamaSettings, client: ollama.Client | None = None) -> None:
        self.settings = settings
        self._client = client or ollama.Client(
            host=settings.host,
            timeout=httpx.Timeout(settings.read_timeout_s, connect=settings.connect_timeout_s),
        )
        self._num_ctx: int | None = None
        self.context_length: int | None = None

    def close(self) -> None:
        self._client.close()

    # -- availability -------------------------------------------------------------------------

    def check_available(self) -> None:
        """Raise GenerationError unless the server answers quickly and has the model.

        One GET /api/version with a short timeout and no retries: when Ollama is down this
        costs at most PROBE_TIMEOUT_S, then /api/show (cached) confirms the model exists.
        """
        timeout = httpx.Timeout(min(self.settings.connect_timeout_s, PROBE_TIMEOUT_S))
        try:
            response = httpx.get(f"{self.settings.host.rstrip('/')}/api/version", timeout=timeout)
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            raise GenerationError(FailureKind.SERVER_ERROR, f"{self.settings.host} answered {status}") from exc
        except httpx.TimeoutException as exc:
            raise GenerationError(FailureKind.UNREACHABLE, f"{self.settings.host} did not answer in time") from exc
        except httpx.HTTPError as exc:
            raise GenerationError(FailureKind.UNREACHABLE, f"{self.settings.host} cannot be reached: {exc}") from exc
        self.num_ctx()

    def num_ctx(self) -> int:
        """The window to send: settings.num_ctx, clamped to the model's context length (checked once)."""
        if self._num_ctx is not None:
            return self._num_ctx
        wanted = self.settings.num_ctx
        info = self._call(lambda: self._client.show(self.settings.model))
        self.context_length = _context_length(info.modelinfo or {})
        if self.context_length is not None and wanted > self.context_length:
            log.warning(
                "num_ctx %d exceeds %s's context length %d; clamped", wanted, self.settings.model, self.context_length
            )
            wanted = self.context_length
        self._num_ctx = wanted
        return wanted

    # -- generation ---------------------------------------------------------------------------

    def options(self, **extra: Any) -> dict[str, Any]:
        """Request options: num_ctx always; temperature only when set (None keeps the model default)."""
        options: dict[str, Any] = {"num_ctx": self.num_ctx()}
        if self.settings.temperature is not None:
            options["temperature"] = self.settings.temperature
        options.update(extra)
        return options

    def chat(
        self, messages: Messages, *, estimated_prompt_tokens: int | None = None, **options: Any
    ) -> GenerationResult:
        """One non-streaming answer; an empty answer is retried once, then raised as EMPTY_ANSWER."""
        started = time.monotonic()
        opts = self.options(**options)
        model = self.settings.model
        for attempt in (1, 2):
            response = self._call(lambda: self._client.chat(model=model, messages=list(messages), options=opts))
            text = response.message.content or ""
            if text.strip():
                result = self._result(text, response, opts, estimated_prompt_tokens, attempt, started)
                return result
            log.warning("model %s returned an empty answer (attempt %d)", self.settings.model, attempt)
        raise GenerationError(FailureKind.EMPTY_ANSWER, f"{self.settings.model} returned an empty answer twice")

    def stream_chat(
        self, messages: Messages, *, estimated_prompt_tokens: int | None = None, **options: Any
    ) -> GenerationStream:
        """A streaming answer: iterate for text pieces as they arrive; ``.result`` when done."""
        return GenerationStream(self, list(messages), self.options(**options), estimated_prompt_tokens)

    # -- internals ----------------------------------------------------------------------------

    def _call(self, request: Callable[[], _T]) -> _T:
        """Run ``request`` with retries on connection errors; map every failure to GenerationError."""
        attempts = self.settings.retries + 1
        for attempt in range(attempts):
            try:
                return request()
            except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if attempt + 1 >= attempts:
                    raise GenerationError(
                        FailureKind.UNREACHABLE, f"{self.settings.host} cannot be reached after {attempts} attempts"
                    ) from exc
                delay = BACKOFF_BASE_S * 2**attempt
                log.info("connection to %s failed (%s); retrying in %.2fs", self.settings.host, exc, delay)
                time.sleep(delay)
            except httpx.HTTPError as exc:
                raise _map_transport_error(exc, self.settings.host) from exc
            except ollama.ResponseError as exc:
                raise _map_response_error(exc, self.settings.model) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _result(
        self, text: str, final: Any, options: dict[str, Any], estimate: int | None, attempts: int, started: float
    ) -> GenerationResult:
        result = GenerationResult(
            text=text,
            model=self.settings.model,
            num_ctx=int(options["num_ctx"]),
            prompt_eval_count=getattr(final, "prompt_eval_count", None),
            eval_count=getattr(final, "eval_count", None),
            estimated_prompt_tokens=estimate,
            done_reason=getattr(final, "done_reason", None),
            attempts=attempts,
            seconds=time.monotonic() - started,
        )
        _compare_estimate(result)
        return result


class GenerationStream:
    """Iterate for the answer's text pieces as the server sends them.

    Leading whitespace is held back until real text arrives, so an empty answer can be
    retried once without the caller having seen anything. After iteration ``result``
    holds the whole text and the server's counters.
    """

    def __init__(
        self, generator: OllamaGenerator, messages: list[dict[str, str]], options: dict[str, Any], estimate: int | None
    ) -> None:
        self._generator = generator
        self._messages = messages
        self._options = options
        self._estimate = estimate
        self.result: GenerationResult | None = None

    def __iter__(self) -> Iterator[str]:
        gen = self._generator
        started = time.monotonic()
        for attempt in (1, 2):
            parts: list[str] = []
            final = None
            held: str | None = ""  # leading whitespace, released with the first real text
            try:
                for chunk in gen._call(self._open):
                    if chunk.done:
                        final = chunk
                    piece = chunk.message.content or ""
                    if not piece:
                        continue
                    parts.append(piece)
                    if held is None:
                        yield piece
                    elif (held := held + piece).strip():
                        yield held
                        held = None
            except httpx.HTTPError as exc:
                raise _map_transport_error(exc, gen.settings.host) from exc
            except ollama.ResponseError as exc:
                raise _map_response_error(exc, gen.settings.model) from exc
            text = "".join(parts)
            if text.strip():
                self.result = gen._result(text, final, self._options, self._estimate, attempt, started)
                return
            log.warning("model %s streamed an empty answer (attempt %d)", gen.settings.model, attempt)
        raise GenerationError(FailureKind.EMPTY_ANSWER, f"{gen.settings.model} returned an empty answer twice")

    def _open(self) -> Iterator[Any]:
        """Start the request and read its first chunk, so connection errors surface inside the retry loop."""
        gen = self._generator
        model, messages, options = gen.settings.model, self._messages, self._options
        chunks = iter(gen._client.chat(model=model, messages=messages, options=options, stream=True))
        first = next(chunks, None)
        return itertools.chain([] if first is None else [first], chunks)


def _context_length(model_info: Mapping[str, Any]) -> int | None:
    """``<arch>.context_length`` from /api/show's model_info (any key with that suffix as a fallback)."""
    arch = model_info.get("general.architecture")
    if arch and isinstance(model_info.get(f"{arch}.context_length"), int):
        return int(model_info[f"{arch}.context_length"])
    for key, value in model_info.items():
        if key.endswith(".context_length") and isinstance(value, int):
            return int(value)
    return None


def _compare_estimate(result: GenerationResult) -> None:
    actual, estimate = result.prompt_eval_count, result.estimated_prompt_tokens
    if not actual or not estimate:
        return
    off = abs(actual - estimate) / estimate
    if off > ESTIMATE_TOLERANCE:
        message = f"prompt_eval_count {actual} differs from the estimate {estimate} by {off:.0%}"
        result.warnings.append(message)
        log.warning("%s (model %s)", message, result.model)


def _map_transport_error(exc: httpx.HTTPError, host: str) -> GenerationError:
    if isinstance(exc, httpx.TimeoutException):
        return GenerationError(FailureKind.TIMEOUT, f"{host} did not answer within the timeout ({type(exc).__name__})")
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return GenerationError(FailureKind.DROPPED, f"{host} dropped the connection: {exc}")
    return GenerationError(FailureKind.UNREACHABLE, f"{host}: {exc}")


def _map_response_error(exc: ollama.ResponseError, model: str) -> GenerationError:
    if exc.status_code == 404:
        return GenerationError(FailureKind.MODEL_MISSING, f"model {model} is not available: {exc.error}")
    return GenerationError(FailureKind.SERVER_ERROR, f"the server answered {exc.status_code}: {exc.error}")
