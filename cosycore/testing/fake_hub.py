"""A stand-in for the Hugging Face Hub on 127.0.0.1, for download tests without a network.

:class:`FakeHub` serves repositories held in memory with the HTTP API shapes ``huggingface_hub``
uses, so both cosycore's downloader and ``huggingface_hub``'s own ``hf_hub_download`` /
``snapshot_download`` / ``HfApi.model_info`` work against it through ``HF_ENDPOINT``:

* ``GET /api/models/{repo}`` and ``/api/models/{repo}/revision/{rev}`` (``?blobs=true`` adds sizes,
  git blob ids and LFS sha256): the repository's info and file listing;
* ``GET /api/models/{repo}/tree/{rev}[/{path}]``: the tree listing ``snapshot_download`` reads;
* ``HEAD``/``GET /{repo}/resolve/{rev}/{path}``: a file. Files kept in git are answered directly
  with their blob id as ETag; LFS files (weights and ONNX graphs, as in the releases) redirect to
  ``/lfs/{sha256}`` on a second origin (the "CDN", another port) with ``X-Linked-Etag`` and
  ``X-Linked-Size``. Every answer carries ``X-Repo-Commit``;
  file bodies honour ``Range`` (206 with ``Content-Range``).

Faults for tests, each keyed by ``"{repo}/{path}"``: ``drop_once`` (the first GET stops half way
and closes the connection), ``corrupt`` (one byte of the body is flipped), ``hold`` (the body
pauses after some bytes until :attr:`FakeHub.release` is set), ``drop_always`` (every GET stops
half way), ``oversize`` (that many junk bytes
follow the listed body, with a Content-Length that admits them: a server that lies about sizes) and
``endless`` (the body never ends: junk is streamed without a Content-Length). Listing faults:
``no_hashes`` (no sha256 or blob id in the listing), ``no_sizes`` (no sizes either) and
``html_listing`` (the API answers 200 with an HTML page, as a captive portal or a proxy's login page
does), and ``listing_fault``: ``"endless"`` (a JSON listing that never ends), ``"deep"`` (``[`` nested
100,000 deep), ``"malformed"`` (JSON whose fields have the wrong types). Every request is logged.

The server binds 127.0.0.1 only, handles at most ``max_requests`` requests and stops by itself
after ``max_seconds``; an endless body stops after ``max_body_bytes`` or when the client goes away.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

logger = logging.getLogger(__name__)

LFS_SUFFIXES = (".pt", ".onnx", ".safetensors", ".bin", ".zip")
DEFAULT_BRANCH = "main"


def git_blob_id(data: bytes) -> str:
    """The git object id of a blob with this content (what the hub calls ``blobId``/``oid``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def lfs_pointer(data: bytes) -> bytes:
    """The LFS pointer git stores in place of a large file."""
    sha = hashlib.sha256(data).hexdigest()
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha}\nsize {len(data)}\n".encode()


@dataclass(frozen=True)
class RequestRecord:
    method: str
    path: str  # unquoted URL path, without the query
    range: str | None  # the Range header, if any
    authorization: str | None = None  # the Authorization header, if any


@dataclass
class FakeRepo:
    """One repository: file contents by path, and which of them are LFS files."""

    repo_id: str
    files: dict[str, bytes]
    lfs: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_folder(cls, repo_id: str, folder: Path, extra: Mapping[str, bytes] | None = None) -> FakeRepo:
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        files.update(extra or {})
        return cls(repo_id, files, frozenset(p for p in files if p.endswith(LFS_SUFFIXES)))

    @property
    def commit(self) -> str:
        listing = "".join(f"{p}\0{git_blob_id(d)}\n" for p, d in sorted(self.files.items()))
        return hashlib.sha1(listing.encode(), usedforsecurity=False).hexdigest()

    def bare_sibling(self, path: str, *, sizes: bool) -> dict[str, object]:
        """A listing entry without hashes (and without a size unless ``sizes``)."""
        return {"rfilename": path, **({"size": len(self.files[path])} if sizes else {})}

    def sibling(self, path: str) -> dict[str, object]:
        data = self.files[path]
        entry: dict[str, object] = {"rfilename": path, "size": len(data)}
        if path in self.lfs:
            pointer = lfs_pointer(data)
            entry["blobId"] = git_blob_id(pointer)
            entry["lfs"] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "pointerSize": len(pointer)}
        else:
            entry["blobId"] = git_blob_id(data)
        return entry

    def tree_entry(self, path: str) -> dict[str, object]:
        s = self.sibling(path)
        entry: dict[str, object] = {"type": "file", "oid": s["blobId"], "size": s["size"], "path": path}
        if "lfs" in s:
            lfs = s["lfs"]
            assert isinstance(lfs, dict)
            entry["lfs"] = {"oid": lfs["sha256"], "size": lfs["size"], "pointerSize": lfs["pointerSize"]}
        return entry


class FakeHub:
    """The fake hub server. Use as a context manager; :attr:`url` is the value for ``HF_ENDPOINT``."""

    def __init__(self, *, max_requests: int = 2000, max_seconds: float = 120.0, hold_seconds: float = 20.0,
                 max_body_bytes: int = 256 << 20) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.drop_once: set[str] = set()
        self.corrupt: set[str] = set()
        self.oversize: dict[str, int] = {}
        self.drop_always: set[str] = set()  # every GET stops half way (a connection that keeps failing)
        self.endless: set[str] = set()
        self.no_hashes = False
        self.no_sizes = False
        self.html_listing = False
        self.listing_fault: str | None = None  # "endless", "deep" or "malformed"
        self.max_body_bytes = max_body_bytes
        self.body_bytes_sent: dict[str, int] = {}  # per key, over all requests (for the tests' bounds)
        self.hold: dict[str, int] = {}
        self.release = threading.Event()  # lets held bodies continue
        self.holding = threading.Event()  # set while a body is held
        self.log: list[RequestRecord] = []
        self.max_requests = max_requests
        self.max_seconds = max_seconds
        self.hold_seconds = hold_seconds
        self._lock = threading.Lock()
        self._dropped: set[str] = set()
        self._stop = threading.Event()
        self._servers: list[ThreadingHTTPServer] = []  # [hub, cdn]
        self._threads: list[threading.Thread] = []

    # -- set-up -------------------------------------------------------------------------------
    def add_repo(self, repo: FakeRepo) -> FakeRepo:
        self.repos[repo.repo_id] = repo
        return repo

    def _origin(self, index: int) -> str:
        if len(self._servers) <= index:
            raise RuntimeError("the fake hub is not running")
        host, port = self._servers[index].server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The hub's origin (for ``HF_ENDPOINT``)."""
        return self._origin(0)

    @property
    def cdn_url(self) -> str:
        """A second origin on another port that serves LFS objects, as the real hub's CDN does."""
        return self._origin(1)

    def start(self) -> FakeHub:
        deadline = time.monotonic() + self.max_seconds
        for name in ("fake-hub", "fake-hub-cdn"):
            server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
            server.daemon_threads = True
            server.timeout = 0.1
            thread = threading.Thread(target=self._serve, args=(server, deadline), name=name, daemon=True)
            self._servers.append(server)
            self._threads.append(thread)
        for thread in self._threads:
            thread.start()
        return self

    def _serve(self, server: ThreadingHTTPServer, deadline: float) -> None:
        while not self._stop.is_set() and len(self.log) < self.max_requests and time.monotonic() < deadline:
            server.handle_request()

    def stop(self) -> None:
        self._stop.set()
        self.release.set()
        for thread in self._threads:
            thread.join(timeout=5)
        for server in self._servers:
            server.server_close()

    def __enter__(self) -> FakeHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- inspection ---------------------------------------------------------------------------
    def requests_for(self, suffix: str) -> list[RequestRecord]:
        with self._lock:
            return [r for r in self.log if r.path.endswith(suffix)]

    def record(self, rec: RequestRecord) -> None:
        with self._lock:
            self.log.append(rec)

    def take_drop(self, key: str) -> bool:
        with self._lock:
            if key in self.drop_once and key not in self._dropped:
                self._dropped.add(key)
                return True
            return False


def _make_handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "FakeHub/1"

        def log_message(self, format: str, *args: object) -> None:
            logger.debug("fake hub: " + format, *args)

        # -- plumbing -------------------------------------------------------------------------
        def _json(self, data: object, status: int = 200, headers: Mapping[str, str] | None = None) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _html(self) -> None:
            body = b"<!DOCTYPE html><html><body><h1>Welcome to Hotel Wi-Fi</h1>Please log in.</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _bad_listing(self, fault: str, key: str) -> None:
            if fault == "deep":
                body = b"[" * 100_000 + b"]" * 100_000  # valid JSON that a recursive parser cannot read
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                return
            if fault == "malformed":
                self._json({"sha": ["not", "a", "commit"], "siblings": "llm.pt"})
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":
                return
            self.wfile.write(b'{"sha": "0", "siblings": [')
            block = b'{"rfilename": "llm.pt", "size": 1},' * 2048
            sent = 0
            while sent < hub.max_body_bytes and not hub._stop.is_set():
                self.wfile.write(block)  # BrokenPipeError when the client gives up: handled by do_GET
                sent += len(block)
                self._count(key, len(block))

        def _count(self, key: str, n: int) -> None:
            with hub._lock:
                hub.body_bytes_sent[key] = hub.body_bytes_sent.get(key, 0) + n

        def _endless(self, key: str, headers: Mapping[str, str]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":
                return
            block = b"\xa5" * (64 << 10)
            sent = 0
            while sent < hub.max_body_bytes and not hub._stop.is_set():
                self.wfile.write(block)  # BrokenPipeError when the client gives up: handled by do_GET
                sent += len(block)
                self._count(key, len(block))

        def _error(self, status: int, code: str, message: str) -> None:
            self._json({"error": message}, status, {"X-Error-Code": code, "X-Error-Message": message})

        def _split(self) -> tuple[str, dict[str, list[str]]]:
            parsed = urllib.parse.urlsplit(self.path)
            return urllib.parse.unquote(parsed.path), urllib.parse.parse_qs(parsed.query)

        def _repo(self, org: str, name: str) -> FakeRepo | None:
            repo = hub.repos.get(f"{org}/{name}")
            if repo is None:
                self._error(404, "RepoNotFound", "Repository not found")
            return repo

        def _revision_ok(self, repo: FakeRepo, rev: str) -> bool:
            if rev in (DEFAULT_BRANCH, repo.commit):
                return True
            self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return False

        # -- routes ---------------------------------------------------------------------------
        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            path, query = self._split()
            hub.record(RequestRecord(self.command, path, self.headers.get("Range"), self.headers.get("Authorization")))
            parts = [p for p in path.split("/") if p]
            try:
                if parts[:2] == ["api", "models"] and len(parts) >= 4:
                    self._api(parts[2], parts[3], parts[4:], query)
                elif parts[:1] == ["lfs"] and len(parts) == 2:
                    self._lfs(parts[1])
                elif len(parts) >= 5 and parts[2] == "resolve":
                    self._resolve(parts[0], parts[1], parts[3], "/".join(parts[4:]))
                else:
                    self._error(404, "EntryNotFound", f"no route for {path}")
            except (BrokenPipeError, ConnectionResetError):
                logger.debug("fake hub: client went away during %s", path)

        def _api(self, org: str, name: str, rest: list[str], query: dict[str, list[str]]) -> None:
            repo = self._repo(org, name)
            if repo is None:
                return
            if not rest or rest[0] == "revision":
                rev = rest[1] if len(rest) > 1 else DEFAULT_BRANCH
                if not self._revision_ok(repo, rev):
                    return
                if hub.html_listing:
                    self._html()
                    return
                if hub.listing_fault is not None:
                    self._bad_listing(hub.listing_fault, f"{repo.repo_id}/api")
                    return
                blobs = query.get("blobs", ["false"])[0].lower() == "true"
                siblings = [repo.sibling(p) if blobs and not hub.no_hashes else
                            repo.bare_sibling(p, sizes=blobs and not hub.no_sizes) for p in sorted(repo.files)]
                self._json({"_id": repo.commit[:24], "id": repo.repo_id, "modelId": repo.repo_id,
                            "sha": repo.commit, "private": False, "disabled": False, "gated": False,
                            "lastModified": "2025-12-01T00:00:00.000Z", "tags": [], "siblings": siblings})
            elif rest[0] == "tree" and len(rest) >= 2:
                if not self._revision_ok(repo, rest[1]):
                    return
                prefix = "/".join(rest[2:])
                recursive = query.get("recursive", ["false"])[0].lower() == "true"
                self._json(_tree(repo, prefix, recursive))
            else:
                self._error(404, "EntryNotFound", "unknown api route")

        def _resolve(self, org: str, name: str, rev: str, file: str) -> None:
            repo = self._repo(org, name)
            if repo is None or not self._revision_ok(repo, rev):
                return
            data = repo.files.get(file)
            if data is None:
                self._error(404, "EntryNotFound", f"{file} does not exist on {rev}")
                return
            common = {"X-Repo-Commit": repo.commit, "Accept-Ranges": "bytes"}
            if file in repo.lfs:
                sha = hashlib.sha256(data).hexdigest()
                self.send_response(302)
                self.send_header("Location", f"{hub.cdn_url}/lfs/{sha}?repo={urllib.parse.quote(repo.repo_id)}&file="
                                             f"{urllib.parse.quote(file)}")
                self.send_header("ETag", f'"{git_blob_id(lfs_pointer(data))}"')
                self.send_header("X-Linked-Etag", f'"{sha}"')
                self.send_header("X-Linked-Size", str(len(data)))
                for k, v in common.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._body(f"{repo.repo_id}/{file}", data, {"ETag": f'"{git_blob_id(data)}"', **common})

        def _lfs(self, sha: str) -> None:
            _path, query = self._split()
            repo = hub.repos.get(query.get("repo", [""])[0])
            file = query.get("file", [""])[0]
            data = repo.files.get(file) if repo is not None else None
            if repo is None or data is None or hashlib.sha256(data).hexdigest() != sha:
                self._error(404, "EntryNotFound", "no such LFS object")
                return
            self._body(f"{repo.repo_id}/{file}", data, {"ETag": f'"{sha}"', "Accept-Ranges": "bytes"})

        def _body(self, key: str, data: bytes, headers: Mapping[str, str]) -> None:
            if key in hub.endless:
                self._endless(key, headers)
                return
            if key in hub.oversize:
                data = data + b"\x5a" * hub.oversize[key]
            if key in hub.corrupt and data:
                flipped = bytearray(data)
                flipped[len(flipped) // 2] ^= 0xFF
                data = bytes(flipped)
            start, end = 0, len(data) - 1
            rng = self.headers.get("Range")
            status = 200
            if rng and rng.startswith("bytes="):
                first, _, last = rng[6:].partition("-")
                start = int(first) if first else 0
                end = min(int(last), len(data) - 1) if last else len(data) - 1
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status = 206
            body = data[start:end + 1]
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            if self.command == "HEAD":
                return
            if self.command == "GET" and (key in hub.drop_always or hub.take_drop(key)):
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            held = hub.hold.get(key)
            if held is not None and 0 < held - start < len(body):
                self.wfile.write(body[: held - start])
                self.wfile.flush()
                hub.holding.set()
                hub.release.wait(timeout=hub.hold_seconds)
                body = body[held - start:]
            self.wfile.write(body)
            self._count(key, len(body))

    return Handler


def _tree(repo: FakeRepo, prefix: str, recursive: bool) -> list[dict[str, object]]:
    base = f"{prefix}/" if prefix else ""
    entries: list[dict[str, object]] = []
    folders: set[str] = set()
    for path in sorted(repo.files):
        if not path.startswith(base):
            continue
        rest = path[len(base):]
        if "/" in rest:
            top = base + rest.split("/", 1)[0]
            if top not in folders:
                folders.add(top)
                entries.append({"type": "directory", "oid": git_blob_id(top.encode()), "size": 0, "path": top})
            if not recursive:
                continue
            # every intermediate folder of a nested path is listed once
            parts = rest.split("/")[:-1]
            for depth in range(2, len(parts) + 1):
                sub = base + "/".join(parts[:depth])
                if sub not in folders:
                    folders.add(sub)
                    entries.append({"type": "directory", "oid": git_blob_id(sub.encode()), "size": 0, "path": sub})
        entries.append(repo.tree_entry(path))
    return entries
