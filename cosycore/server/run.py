"""Running the speech server with uvicorn: in the foreground (``cosycore serve``) or on a thread (the app, tests).

The listening socket is bound here, before uvicorn starts, so that a port in use or a refused address
is a :class:`~cosycore.errors.ServerError` with a message instead of a log line from a thread, and so
that port 0 (any free port) works for tests.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
import threading
import time
from dataclasses import dataclass, field

from starlette.applications import Starlette

from ..errors import ServerError

logger = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
GRACEFUL_SECONDS = 3  # open responses get this long to finish when the server stops


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach: 127.0.0.0/8, ::1 and "localhost"."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, api_key: str | None) -> None:
    """Refuse to serve beyond this machine without an API key."""
    if not is_loopback(host) and not (api_key and api_key.strip()):
        raise ServerError(
            f"Serving on {host} would let other machines use this computer's speech engine; give an API key "
            "(--api-key KEY, clients then send 'Authorization: Bearer KEY'), or use --host 127.0.0.1 "
            "(this machine only, the default)."
        )


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: any free port)."""
    if not 0 <= port <= 65535:
        raise ServerError(f"Port {port} is not a TCP port; use 1-65535 (or 0 for any free port).")
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise ServerError(f"The address {host!r} cannot be used: {e.strerror}.") from e
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise ServerError(f"Port {port} on {host} is in use by another program; choose another port.") from e
        raise ServerError(f"Cannot listen on {host}:{port}: {e.strerror or e}.") from e
    sock.setblocking(False)
    return sock


def server_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _config(app: Starlette, log_level: str):  # -> uvicorn.Config
    """uvicorn's settings; the connection limits come from the app's options (:mod:`.guard`)."""
    import uvicorn

    from .guard import ConnectionLimits, guarded_protocol

    server = getattr(app.state, "server", None)
    limits = server.options.limits if server is not None else ConnectionLimits()
    return uvicorn.Config(app, log_level=log_level, lifespan="off", access_log=False,
                          timeout_graceful_shutdown=GRACEFUL_SECONDS, server_header=False,
                          http=guarded_protocol(limits), timeout_keep_alive=5)


def serve_forever(app: Starlette, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve on ``sock`` in this (main) thread until Ctrl-C or SIGTERM."""
    import uvicorn

    uvicorn.Server(_config(app, log_level)).run(sockets=[sock])


@dataclass
class ServerThread:
    """uvicorn on a background thread; :meth:`start` returns once it accepts connections."""

    app: Starlette
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    log_level: str = "warning"
    url: str = ""
    _server: object | None = None
    _thread: threading.Thread | None = None
    _error: list[BaseException] = field(default_factory=list)

    def start(self, timeout: float = 15.0) -> str:
        import uvicorn

        sock = bind_socket(self.host, self.port)
        self.url = server_url(sock)
        server = uvicorn.Server(_config(self.app, self.log_level))
        self._server = server

        def run() -> None:
            try:
                server.run(sockets=[sock])
            except BaseException as e:  # reported by start() or logged
                self._error.append(e)
                logger.exception("the speech server stopped with an error")
            finally:
                sock.close()

        self._thread = threading.Thread(target=run, name="speech-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ServerError(f"The speech server did not start on {self.url}"
                                  + (f": {self._error[0]}" if self._error else "."))
            time.sleep(0.02)
        logger.info("speech server listening on %s", self.url)
        return self.url

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = GRACEFUL_SECONDS + 10.0) -> bool:
        """Ask uvicorn to stop and wait for its thread. True if it has ended."""
        server = self._server
        if server is not None:
            server.should_exit = True  # type: ignore[attr-defined]
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True
