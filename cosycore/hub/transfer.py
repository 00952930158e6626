"""Fetching the bytes: HTTP GET with ``Range`` resume, retries on dropped connections, hashing on the fly."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import logging
import os
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import IO, Any

from ..errors import (
    DownloadCancelledError,
    DownloadError,
    HubUnreachableError,
    IntegrityError,
    RepoNotFoundError,
)
from .common import CHUNK_BYTES, HASH_BLOCK, READ_TIMEOUT, RETRY_DELAYS, error_reason, storage_error, transport_errors
from .hubs import RemoteFile
from .plan import DownloadPlan, PlannedFile, byte_cap
from .progress import Reporter, format_bytes

logger = logging.getLogger(__name__)


class _StripAuthOnHostChange(urllib.request.HTTPRedirectHandler):
    """Follow redirects, but never send the hub token on to another host (the hubs redirect to CDNs)."""

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage, newurl: str) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            old_host = urllib.parse.urlsplit(req.full_url).netloc
            new_host = urllib.parse.urlsplit(new.full_url).netloc
            if old_host != new_host:
                new.remove_header("Authorization")
        return new


def _ssl_context() -> ssl.SSLContext:
    # A frozen app may not find the system's CA store; certifi's bundle (a huggingface_hub
    # dependency) works the same everywhere.
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.HTTPSHandler(context=_ssl_context()), _StripAuthOnHostChange())


def _open_part(path: Path) -> IO[bytes]:
    """Open a staged ``.part`` file for appending (a seam the tests use to fill the disk)."""
    return open(path, "ab")


class _Digests:
    """sha256 of a file's content, and its git blob id when the hub gave one to compare with."""

    def __init__(self, remote: RemoteFile) -> None:
        self.remote = remote
        self.reset()

    def reset(self) -> None:
        self.count = 0  # bytes hashed so far
        self.sha256 = hashlib.sha256()
        self.git: Any = None
        if self.remote.git_sha1 is not None and self.remote.size is not None:
            self.git = hashlib.sha1(f"blob {self.remote.size}\0".encode(), usedforsecurity=False)

    def update(self, data: bytes) -> None:
        self.count += len(data)
        self.sha256.update(data)
        if self.git is not None:
            self.git.update(data)

    def update_from_file(self, path: Path, nbytes: int) -> None:
        with open(path, "rb") as fh:
            left = nbytes
            while left > 0:
                block = fh.read(min(HASH_BLOCK, left))
                if not block:
                    break
                self.update(block)
                left -= len(block)


class Fetcher:
    """Downloads one planned file into its ``.part`` file, resuming and retrying; checks size and hash."""

    def __init__(self, plan: DownloadPlan, reporter: Reporter, cancel: threading.Event) -> None:
        self.plan = plan
        self.reporter = reporter
        self.cancel = cancel
        self.headers = dict(plan.headers)
        self.opener = _opener()

    def cancelled_error(self, f: PlannedFile) -> DownloadCancelledError:
        return DownloadCancelledError(
            f"Download of {self.plan.entry.name} cancelled during {f.path}. "
            f"{format_bytes(self.reporter.done)} are kept in {self.plan.staging_dir}; downloading it again resumes "
            "from there."
        )

    def _request(self, url: str, offset: int) -> Any:
        headers = dict(self.headers)
        if offset > 0:
            headers["Range"] = f"bytes={offset}-"
        return self.opener.open(urllib.request.Request(url, headers=headers), timeout=READ_TIMEOUT)

    def _sync(self, f: PlannedFile, part: Path, digests: _Digests) -> int:
        """Bytes of ``part`` on disk; brings the running hashes and the progress in line with them."""
        size = part.stat().st_size if part.exists() else 0
        if f.remote.size is not None and size > f.remote.size:
            part.unlink()
            size = 0
        if digests.count != size:
            digests.reset()
            if size:
                logger.info("resuming %s at byte %d of %s", f.path, size, f.remote.size)
                digests.update_from_file(part, size)
        self.reporter.set_file_done(size)
        return size

    def fetch(self, f: PlannedFile, part: Path) -> str:
        """Fill ``part`` with the file's bytes and return their sha256 (raises on any mismatch).

        Bytes already in ``part`` are kept and the rest is requested with ``Range``. A dropped
        connection or a 5xx answer is retried after a pause, from wherever the file got to.
        """
        expected = f.remote.size
        digests = _Digests(f.remote)
        self.reporter.start_file(self.reporter.index, f.path, expected)
        failures = 0
        while True:
            offset = self._sync(f, part, digests)
            if expected is not None and offset == expected:
                break
            if self.cancel.is_set():
                raise self.cancelled_error(f)
            try:
                self._transfer(f, part, offset, digests)
                if expected is None:
                    break
                got = part.stat().st_size if part.exists() else 0
                if got < expected:  # the response ended early without an error
                    raise http.client.IncompleteRead(b"", expected - got)
            except urllib.error.HTTPError as e:
                e.close()
                if e.code == 416 and offset > 0:  # our offset is past the end: the part is stale
                    logger.warning("%s: the server refused to resume at byte %d; starting over", f.path, offset)
                    part.unlink(missing_ok=True)
                    failures += 1
                    self._wait_before_retry(f, failures, e)
                elif e.code in (401, 403, 404):
                    raise RepoNotFoundError(
                        f"{f.remote.url} answered HTTP {e.code} ({e.reason}). The repository may have changed or "
                        "need a login; try again later, try the other download source, or use a folder you "
                        "already have."
                    ) from e
                elif e.code < 500 and e.code != 429:
                    raise DownloadError(f"Downloading {f.path} failed: HTTP {e.code} {e.reason}.") from e
                else:
                    failures += 1
                    self._wait_before_retry(f, failures, e)
            except DownloadError:
                raise
            except transport_errors() as e:
                failures += 1
                self._wait_before_retry(f, failures, e)
        self._check(f, part, self._sync(f, part, digests), digests)
        return digests.sha256.hexdigest()

    def _wait_before_retry(self, f: PlannedFile, failures: int, e: BaseException) -> None:
        if failures > len(RETRY_DELAYS):
            host = urllib.parse.urlsplit(f.remote.url).netloc
            raise HubUnreachableError(
                f"Lost the connection to {host} while downloading {f.path} ({error_reason(e)}), {failures} times in a "
                f"row. What was downloaded so far is kept in {self.plan.staging_dir}; resume when the connection is "
                "back, try the other download source, or use a folder you already have."
            ) from e
        delay = RETRY_DELAYS[failures - 1]
        logger.warning("%s: %s; retrying in %.1f s", f.path, error_reason(e), delay)
        if self.cancel.wait(delay):
            raise self.cancelled_error(f)

    def _too_long(self, f: PlannedFile, part: Path, cap: int, resp: Any) -> IntegrityError:
        part.unlink(missing_ok=True)  # junk: it cannot be resumed
        host = urllib.parse.urlsplit(getattr(resp, "url", None) or f.remote.url).netloc
        return IntegrityError(
            f"{f.path}: the server {host} sent more than the {cap:,} bytes listed for it (a mirror or proxy that "
            "lies about sizes, or a body that never ends). The partial file was deleted. Try again later, try the "
            "other download source, or use a folder you already have."
        )

    def _transfer(self, f: PlannedFile, part: Path, offset: int, digests: _Digests) -> None:
        """One GET from ``offset`` to the end of the response, appended to ``part`` (never past :func:`byte_cap`)."""
        cap = byte_cap(f)
        with contextlib.closing(self._request(f.remote.url, offset)) as resp:
            status = getattr(resp, "status", 200)
            if offset > 0 and status == 200:
                logger.warning("%s: the server ignored the Range request; starting over", f.path)
                part.unlink(missing_ok=True)
                digests.reset()
                self.reporter.set_file_done(0)
                offset = 0
            elif status == 206:
                start = _content_range_start(resp.headers.get("Content-Range"))
                if start != offset:
                    raise DownloadError(
                        f"{f.path}: asked to resume at byte {offset}, the server answered from byte {start}. "
                        "Try again; if it repeats, try the other download source."
                    )
            try:
                fh = _open_part(part)
            except OSError as e:
                raise storage_error(part, e, self.plan.staging_dir) from e
            with fh:
                while True:
                    if self.cancel.is_set():
                        raise self.cancelled_error(f)
                    chunk = resp.read1(CHUNK_BYTES)  # whatever has arrived, so progress never waits for a full chunk
                    if not chunk:
                        break
                    offset += len(chunk)
                    if offset > cap:
                        fh.close()
                        raise self._too_long(f, part, cap, resp)
                    try:
                        fh.write(chunk)
                    except OSError as e:
                        raise storage_error(part, e, self.plan.staging_dir) from e
                    digests.update(chunk)
                    self.reporter.moved_bytes(len(chunk))
                try:
                    fh.flush()
                    os.fsync(fh.fileno())
                except OSError as e:
                    raise storage_error(part, e, self.plan.staging_dir) from e

    def _check(self, f: PlannedFile, part: Path, offset: int, digests: _Digests) -> None:
        r = f.remote
        problem = None
        if r.size is not None and offset != r.size:
            problem = f"it has {offset} bytes, the hub says {r.size}"
        elif r.sha256 is not None and digests.sha256.hexdigest() != r.sha256:
            problem = f"its sha256 is {digests.sha256.hexdigest()}, the hub published {r.sha256}"
        elif digests.git is not None and r.git_sha1 is not None and digests.git.hexdigest() != r.git_sha1:
            problem = f"its git blob id is {digests.git.hexdigest()}, the hub published {r.git_sha1}"
        if problem is not None:
            part.unlink(missing_ok=True)
            raise IntegrityError(
                f"{f.path} arrived corrupted: {problem}. The bad copy was deleted; download again to fetch it anew. "
                "If it keeps happening, a proxy or mirror is altering the file: try the other download source."
            )


def _content_range_start(value: str | None) -> int | None:
    # "bytes 100-999/1000" -> 100
    if not value or not value.startswith("bytes "):
        return None
    try:
        return int(value[6:].split("-", 1)[0])
    except ValueError:
        return None
