"""The speech server's routes: an OpenAI-compatible ``/v1/audio/speech`` on Starlette (ASGI).

Endpoints:

* ``POST /v1/audio/speech``: OpenAI's fields (see :mod:`.schema`). Without ``stream_format`` the
  whole file comes back with a Content-Length; ``"audio"`` streams the bytes as the engine makes
  them (chunked); ``"sse"`` sends ``speech.audio.delta`` events (base64 audio) and one
  ``speech.audio.done`` event with the usage, as OpenAI does.
* ``POST /v1/audio/conversions`` (our extension, :mod:`.conversions`): a multipart upload (``file``,
  ``voice``, ``response_format``, ``stream_format``, ``speed``, ``seed``) spoken in a saved voice
  (voice conversion); answered as ``/v1/audio/speech`` is.
* ``GET /v1/models``, ``GET /v1/voices`` (our extension: name, family, language, transcript present),
  ``GET /health`` (503 while no model is loaded).

Before any route, :mod:`.guard` refuses other hosts (DNS rebinding), web pages' origins unless
allowed, bodies that are not JSON, slow and surplus connections. A method a route does not take is
a 405 with an ``Allow`` header; every body that is not a valid request is a 400.

A request is checked completely before any audio is sent: the body and the voice here, then the
engine's own checks, whose errors arrive before the first chunk. Until the first chunk, every
problem is an HTTP error in OpenAI's JSON shape. A client that goes away is noticed at once (the
response listens for ``http.disconnect`` while it waits for the engine), and its synthesis is
cancelled inside the engine.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..errors import CosyError, InputError
from ..voices import VoiceLibrary
from .conversions import DEFAULT_MAX_UPLOAD_BYTES, check_source, parse_conversion_request, read_upload
from .encode import MEDIA_TYPES, encode_whole, stream_encoder, writable_formats
from .guard import ConnectionLimits, RequestGuard, response_headers, send_error
from .schema import ApiError, SpeechParams, choose_mode, parse_speech_request
from .worker import (
    Audio,
    Cancelled,
    ConversionJob,
    Done,
    Event,
    Failed,
    NoModelError,
    QueueFullError,
    SpeechJob,
    SpeechWorker,
    Ticket,
)

logger = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_INPUT_CHARS = 4096  # OpenAI's limit for this endpoint


@dataclass(frozen=True)
class ServerOptions:
    """Limits, the key and who may call; the host and port belong to the runner (:mod:`.run`)."""

    api_key: str | None = None  # required as "Authorization: Bearer KEY" on /v1/* when set
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_input_chars: int = DEFAULT_MAX_INPUT_CHARS
    allow_hosts: tuple[str, ...] = ()  # Host names accepted besides the bound address and localhost
    allow_origins: tuple[str, ...] = ()  # web page origins allowed to call (CORS); none by default
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES  # POST /v1/audio/conversions: the uploaded recording
    max_source_seconds: float = 3600.0  # the longest recording a conversion takes


def error_response(err: ApiError) -> JSONResponse:
    return JSONResponse(err.body(), status_code=err.status, headers=dict(err.headers))


def _engine_error(e: BaseException) -> ApiError:
    """An error raised by the engine before the first chunk, as an HTTP error."""
    if isinstance(e, NoModelError):
        return ApiError(503, str(e), "server_error", None, "model_not_loaded")
    if isinstance(e, InputError):
        return ApiError(400, str(e), "invalid_request_error", None, "invalid_value")
    if isinstance(e, CosyError):
        return ApiError(500, str(e), "server_error", None, "synthesis_failed")
    return ApiError(500, f"The synthesis failed ({type(e).__name__}); details are in the server's log.",
                    "server_error", None, "internal_error")


class SpeechResponse(Response):
    """Sends one ticket's audio: whole, as a byte stream or as server-sent events.

    It listens for the client's disconnect from the start, so a client that leaves while its request
    waits or runs cancels it at once, not at the next chunk sent.
    """

    def __init__(self, ticket: Ticket, params: SpeechParams) -> None:
        self.ticket = ticket
        self.params = params
        self.background = None
        self.status_code = 200
        self.disconnected = asyncio.Event()
        self.complete = False  # the stream reached the engine's Done

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def watch() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":  # also sent once the response is complete
                    self.disconnected.set()
                    self.ticket.cancel()  # a no-op once the engine has finished the request
                    return

        watcher = asyncio.create_task(watch())
        try:
            await self._respond(send)
        except OSError:  # the connection broke while sending
            self.ticket.cancel()
        finally:
            watcher.cancel()
            self.ticket.cancel()  # no-op once the request has finished

    async def _next(self) -> Event:
        """The ticket's next event, or Cancelled as soon as the client is gone."""
        if self.disconnected.is_set():
            return Cancelled()
        event_task = asyncio.ensure_future(self.ticket.next_event())
        gone = asyncio.ensure_future(self.disconnected.wait())
        done, _ = await asyncio.wait({event_task, gone}, return_when=asyncio.FIRST_COMPLETED)
        if event_task in done:
            gone.cancel()
            return event_task.result()
        event_task.cancel()
        return Cancelled()

    async def _respond(self, send: Send) -> None:
        first = await self._next()
        if isinstance(first, Cancelled):
            await self._stopping(send)
            return
        if isinstance(first, Failed):
            await send_error(send, _engine_error(first.error))
            return
        if self.params.stream_format is None:
            await self._send_whole(first, send)
        else:
            await self._send_stream(first, send)

    async def _send_whole(self, first: Event, send: Send) -> None:
        import numpy as np

        pieces: list[Any] = []
        rate = 0
        event = first
        while isinstance(event, Audio):
            pieces.append(event.samples)
            rate = event.sample_rate
            event = await self._next()
        if isinstance(event, Cancelled):
            await self._stopping(send)
            return
        if isinstance(event, Failed):
            await send_error(send, _engine_error(event.error))
            return
        assert isinstance(event, Done)
        samples = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
        fmt = self.params.response_format
        body = await run_in_threadpool(encode_whole, fmt, samples, rate or event.sample_rate)
        headers = response_headers(MEDIA_TYPES[fmt], len(body))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _send_stream(self, first: Event, send: Send) -> None:
        fmt = self.params.response_format
        sse = self.params.stream_format == "sse"
        media = "text/event-stream" if sse else MEDIA_TYPES[fmt]
        await send({"type": "http.response.start", "status": 200, "headers": response_headers(media, None)})
        async for data in self._stream_bytes(first, sse):
            if self.disconnected.is_set():
                return
            await send({"type": "http.response.body", "body": data, "more_body": True})
        if self.complete:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        # else: returning with the response unfinished makes uvicorn close the connection, so a client
        # sees a cut stream (an error), never a short one that looks whole.

    async def _stopping(self, send: Send) -> None:
        """Cancelled before any audio: by the client (nobody to answer) or by the server stopping."""
        if not self.disconnected.is_set():
            await send_error(send, ApiError(503, "The server is stopping; send the request again later.",
                                             "server_error", None, "server_stopping"))

    async def _stream_bytes(self, first: Event, sse: bool) -> AsyncIterator[bytes]:
        fmt = self.params.response_format
        encoder = None
        event = first
        while True:
            if isinstance(event, Audio):
                if encoder is None:
                    encoder = stream_encoder(fmt, event.sample_rate)
                # Compressing takes milliseconds per chunk: off the event loop, except for raw PCM.
                data = encoder.encode(event.samples) if fmt in ("pcm", "wav") else (
                    await run_in_threadpool(encoder.encode, event.samples))
                if data:
                    yield _sse_delta(data) if sse else data
            elif isinstance(event, Done):
                if encoder is None:
                    encoder = stream_encoder(fmt, event.sample_rate)
                tail = encoder.finish()
                if tail:
                    yield _sse_delta(tail) if sse else tail
                if sse:
                    usage = {"input_tokens": event.input_tokens, "output_tokens": event.output_tokens,
                             "total_tokens": event.input_tokens + event.output_tokens}
                    yield _sse({"type": "speech.audio.done", "usage": usage})
                self.complete = True
                return
            elif isinstance(event, Failed):
                # Headers are out: an audio stream is cut off; an SSE stream gets an error event and ends.
                logger.warning("speech stream ended early: %s", event.error)
                if sse:
                    yield _sse({"type": "error", **_engine_error(event.error).body()})
                    self.complete = True
                return
            else:  # Cancelled
                return
            event = await self._next()


def _sse(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def _sse_delta(data: bytes) -> bytes:
    return _sse({"type": "speech.audio.delta", "audio": base64.b64encode(data).decode("ascii")})


# --------------------------------------------------------------------------------------------
# Routes
# --------------------------------------------------------------------------------------------


class SpeechServer:
    """The route handlers, bound to one worker, one voice library and the options."""

    def __init__(self, worker: SpeechWorker, library: VoiceLibrary, options: ServerOptions) -> None:
        self.worker = worker
        self.library = library
        self.options = options

    def _authorize(self, request: Request) -> None:
        key = self.options.api_key
        if not key:
            return
        given = request.headers.get("authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), key.encode()):
            raise ApiError(401, "Incorrect or missing API key: send 'Authorization: Bearer KEY' with the key the "
                           "server was started with.", "invalid_request_error", None, "invalid_api_key")

    async def _read_body(self, request: Request) -> bytes:
        limit = self.options.max_body_bytes
        too_big = ApiError(413, f"The request body is larger than {limit:,} bytes.", "invalid_request_error",
                           None, "request_too_large")
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise too_big
        body = bytearray()
        seconds = self.options.limits.body_seconds

        async def read() -> None:
            async for piece in request.stream():
                body.extend(piece)
                if len(body) > limit:
                    raise too_big

        try:
            await asyncio.wait_for(read(), seconds)
        except asyncio.TimeoutError:
            raise ApiError(408, f"The request body did not arrive within {seconds:g} s.", "invalid_request_error",
                           None, "request_timeout") from None
        except ClientDisconnect:
            logger.info("a client left during its upload (%s bytes of the body had arrived)", f"{len(body):,}")
            raise ApiError(400, "The client left during its upload.", "invalid_request_error", None,
                           "client_disconnected") from None
        return bytes(body)

    async def speech(self, request: Request) -> Response:
        self._authorize(request)
        raw = await self._read_body(request)
        params = parse_speech_request(raw, max_input_chars=self.options.max_input_chars,
                                      writable=writable_formats())
        if self.worker.host.model_facts() is None:
            raise ApiError(503, "No model is loaded; load one in the app, then try again.", "server_error", None,
                           "model_not_loaded")
        voice = await run_in_threadpool(self._voice, params.voice)
        job = SpeechJob(text=params.input, voice=voice, mode=choose_mode(params.instructions, voice.transcript),
                        instructions=params.instructions, speed=params.speed, seed=params.seed,
                        stream=params.stream_format is not None)
        return self._submit(job, params)

    async def conversions(self, request: Request) -> Response:
        """Voice conversion (:mod:`.conversions`): an uploaded recording, spoken in a saved voice."""
        self._authorize(request)
        body = await read_upload(request, self.options.max_upload_bytes)
        params, source = await parse_conversion_request(request, body, writable=writable_formats())
        if self.worker.host.model_facts() is None:
            raise ApiError(503, "No model is loaded; load one in the app, then try again.", "server_error", None,
                           "model_not_loaded")
        voice = await run_in_threadpool(self._voice, params.voice)
        await run_in_threadpool(check_source, source, self.options.max_source_seconds)
        job = ConversionJob(source, voice, speed=params.speed, seed=params.seed,
                            stream=params.stream_format is not None,
                            max_source_seconds=self.options.max_source_seconds)
        return self._submit(job, params)

    def _submit(self, job: SpeechJob | ConversionJob, params: SpeechParams) -> Response:
        try:
            ticket = self.worker.submit(job)
        except QueueFullError as e:
            raise ApiError(429, str(e), "rate_limit_error", None, "queue_full",
                           (("retry-after", str(e.retry_after)),)) from e
        return SpeechResponse(ticket, params)

    def _voice(self, name: str) -> Any:
        try:
            return self.library.get(name)
        except InputError as e:
            known = ", ".join(self.library.names()[:20]) or "none yet"
            raise ApiError(400, f"{e} Saved voices: {known}. GET /v1/voices lists them.", "invalid_request_error",
                           "voice", "voice_not_found") from e

    async def models(self, request: Request) -> Response:
        self._authorize(request)
        facts = self.worker.host.model_facts()
        data = [] if facts is None else [{"id": facts.id, "object": "model", "created": 0,
                                          "owned_by": "cosy-studio", "family": facts.family,
                                          "sample_rate": facts.sample_rate}]
        return JSONResponse({"object": "list", "data": data})

    async def voices(self, request: Request) -> Response:
        self._authorize(request)
        infos = await run_in_threadpool(self.library.list)
        data = [{"id": i.name, "object": "voice", "name": i.name, "family": i.family, "language": i.language,
                 "has_transcript": bool(i.transcript.strip()), "duration": round(i.duration, 3)} for i in infos]
        return JSONResponse({"object": "list", "data": data})

    async def health(self, request: Request) -> Response:
        facts = self.worker.host.model_facts()
        s = self.worker.stats()
        return JSONResponse(status_code=200 if facts is not None else 503, content={
            "status": "ok" if facts is not None else "no_model",
            "model": facts.id if facts is not None else None,
            "queue": {"running": s.running, "waiting": s.waiting, "capacity": s.capacity},
            "requests": {"served": s.served, "cancelled": s.cancelled, "failed": s.failed},
        })


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    logger.exception("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(_engine_error(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    kind = "invalid_request_error" if exc.status_code < 500 else "server_error"
    err = ApiError(exc.status_code, f"{request.method} {request.url.path}: {exc.detail}", kind, None,
                   "not_found" if exc.status_code == 404 else None, tuple((exc.headers or {}).items()))
    return error_response(err)  # a 405 keeps Starlette's Allow header


def create_app(worker: SpeechWorker, library: VoiceLibrary, options: ServerOptions | None = None) -> Starlette:
    """The ASGI application. Serve it with uvicorn (:mod:`.run`)."""
    server = SpeechServer(worker, library, options or ServerOptions())
    routes = [
        Route("/v1/audio/speech", server.speech, methods=["POST"]),
        Route("/v1/audio/conversions", server.conversions, methods=["POST"]),
        Route("/v1/models", server.models, methods=["GET"]),
        Route("/v1/voices", server.voices, methods=["GET"]),
        Route("/health", server.health, methods=["GET"]),
    ]
    handlers = {ApiError: _api_error, HTTPException: _http_error, Exception: _unexpected_error}
    opts = server.options
    middleware = [Middleware(RequestGuard, allow_hosts=opts.allow_hosts, allow_origins=opts.allow_origins)]
    if opts.allow_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(opts.allow_origins),
                                     allow_methods=["GET", "POST"], allow_headers=["authorization", "content-type"]))
    app = Starlette(routes=routes, exception_handlers=handlers, middleware=middleware)
    app.state.server = server
    return app
