"""What the speech server checks before a request reaches a route: the browser and the slow client.

A web page the user visits can send requests to ``http://127.0.0.1:8000`` (a cross-site "simple"
request needs no permission), and with DNS rebinding it can even read the answers. So
:class:`RequestGuard` (an ASGI middleware, outermost) refuses, before anything else runs:

* a ``Host`` that does not name the address the connection came in on, ``localhost``, a loopback
  address or a name given with ``--allow-host`` (421): a rebinding page's requests carry its own name;
* an ``Origin`` (sent by browsers on cross-origin requests) that ``--allow-origin`` does not name
  (403); an allowed origin gets CORS headers (Starlette's ``CORSMiddleware``);
* a POST whose ``Content-Type`` is not ``application/json`` (415): a page can send ``text/plain``
  or a form without asking, but not JSON.

:class:`GuardedH11Protocol` (uvicorn's h11 protocol, extended) works below HTTP, before the key is
checked: a connection past :attr:`ConnectionLimits.max_connections` is closed at once, and one that
has not sent its request's headers within :attr:`ConnectionLimits.header_seconds` (a client that
dribbles a byte every 2 s) is closed, with one log line each. The body read timeout is the route's
(``SpeechServer._read_body``).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .schema import ApiError

MULTIPART = "multipart/form-data"
MULTIPART_PATHS = frozenset({"/v1/audio/conversions"})  # the endpoints that take an uploaded file

logger = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class ConnectionLimits:
    """Limits applied to every connection before any request is read."""

    max_connections: int = 64  # open connections at once; more are closed as they come
    header_seconds: float = 10.0  # from the first byte (or the connection) to the end of the headers
    body_seconds: float = 30.0  # to read a whole request body


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8000`` -> ``::1``), lower case."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value


def _is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class RequestGuard:
    """ASGI middleware: Host, Origin and Content-Type checks (module docstring)."""

    def __init__(self, app: ASGIApp, *, allow_hosts: Iterable[str] = (), allow_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allow_hosts = frozenset(h.strip().lower().rstrip(".") for h in allow_hosts if h.strip())
        self.allow_origins = frozenset(o.strip().rstrip("/") for o in allow_origins if o.strip())

    def _host_ok(self, scope: Scope, name: str) -> bool:
        if not name:
            return False
        if _is_loopback(name) or name.rstrip(".") in self.allow_hosts:
            return True
        server = scope.get("server")
        return server is not None and name == str(server[0]).lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        name = host_name(headers.get("host", ""))
        if not self._host_ok(scope, name):
            await _refuse(send, ApiError(
                421, f"This server does not answer to the host name {name[:80]!r}: it answers to the address it "
                     "listens on and localhost. Start it with --allow-host NAME to use another name.",
                "invalid_request_error", None, "host_not_allowed"))
            return
        origin = headers.get("origin")
        if origin is not None and origin.rstrip("/") not in self.allow_origins and "*" not in self.allow_origins:
            await _refuse(send, ApiError(
                403, "Requests from web pages are refused (the request came from the page "
                     f"{origin[:80]!r}). To let a page of yours use this server, start it with --allow-origin "
                     "ORIGIN.", "invalid_request_error", None, "origin_not_allowed"))
            return
        if scope.get("method") == "POST":
            media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            wanted = MULTIPART if scope.get("path", "") in MULTIPART_PATHS else "application/json"
            if media != wanted:
                how = ("as a multipart form with 'Content-Type: multipart/form-data'" if wanted == MULTIPART
                       else "as JSON with 'Content-Type: application/json'")
                await _refuse(send, ApiError(
                    415, f"Send the request body {how} (this request's Content-Type is "
                         f"{media[:60] or 'missing'!r}).", "invalid_request_error", None,
                    "unsupported_media_type"))
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send, err: ApiError) -> None:
    await send_error(send, err)


def response_headers(media_type: str, length: int | None) -> list[tuple[bytes, bytes]]:
    """The headers of every answer of ours: its type, no caching, and its length when known."""
    headers = [(b"content-type", media_type.encode()), (b"cache-control", b"no-store")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return headers


async def send_error(send: Send, err: ApiError) -> None:
    """Answer with ``err`` as OpenAI's JSON error body (also the routes' error answer, :mod:`.app`)."""
    body = json.dumps(err.body()).encode()
    headers = response_headers("application/json", len(body)) + [(k.encode(), v.encode()) for k, v in err.headers]
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a connection limit and a header read timeout (module docstring)."""

    limits = ConnectionLimits()  # replaced by a subclass per server (:func:`guarded_protocol`)
    _last_log = 0.0

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._header_timer: Any = None
        if len(self.connections) > self.limits.max_connections:
            self._log_once(f"closed a connection: {self.limits.max_connections} are open already")
            transport.abort()
            return
        self._arm()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.limits.header_seconds, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _waiting_for_headers(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def data_received(self, data: bytes) -> None:
        if self._waiting_for_headers():
            self._arm()  # also after a response: the next request's headers get the same time
        super().data_received(data)
        if not self._waiting_for_headers():
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._waiting_for_headers() and not self.transport.is_closing():
            self._log_once(f"closed a connection that sent no complete request headers within "
                           f"{self.limits.header_seconds:g} s")
            self.transport.abort()

    @classmethod
    def _log_once(cls, message: str) -> None:
        now = time.monotonic()
        if now - GuardedH11Protocol._last_log >= 1.0:  # one line a second at most, whatever the flood
            GuardedH11Protocol._last_log = now
            logger.warning(message)


def guarded_protocol(limits: ConnectionLimits) -> type[GuardedH11Protocol]:
    """A :class:`GuardedH11Protocol` class with these limits (uvicorn takes a class)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"limits": limits})
