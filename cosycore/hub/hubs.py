"""The hubs models come from (Hugging Face, ModelScope): a repository's file listing at one commit."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from typing import Protocol

from ..errors import (
    DownloadError,
    HubUnreachableError,
    RepoNotFoundError,
    SourceUnavailableError,
)
from ..safety import json_depth_ok
from .catalog import SOURCE_TITLES, Source
from .common import (
    DEFAULT_HF_ENDPOINT,
    DEFAULT_REVISION,
    META_TIMEOUT,
    offline_requested,
    transport_errors,
    unreachable_error,
)

logger = logging.getLogger(__name__)


def hf_endpoint(endpoint: str | None = None) -> str:
    """The Hugging Face endpoint: the argument, else ``$HF_ENDPOINT`` (a mirror), else huggingface.co.

    Read at call time: ``huggingface_hub`` reads ``HF_ENDPOINT`` once at import, which would miss a
    mirror chosen later in the same process.
    """
    return (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_HF_ENDPOINT).rstrip("/")


@dataclass(frozen=True)
class RemoteFile:
    """One file of a repository at one commit, as the hub describes it."""

    path: str  # path in the repository
    size: int | None  # bytes; None when the hub did not say
    sha256: str | None  # content sha256 (Hugging Face LFS files, ModelScope files)
    git_sha1: str | None  # git blob id of the content (Hugging Face files kept in git, not LFS)
    url: str  # where to GET it, pinned to the commit


@dataclass(frozen=True)
class RemoteSnapshot:
    """A repository's listing at one commit."""

    source: Source
    repo_id: str
    revision: str  # commit id when the hub gave one, else the branch that was asked for
    files: tuple[RemoteFile, ...]


MAX_LISTING_BYTES = 8 << 20  # a release's file list with hashes is a few kB
MAX_LISTING_DEPTH = 32  # a model listing nests about 5 deep


def _not_a_hub(endpoint: str, repo_id: str, why: str) -> HubUnreachableError:
    return HubUnreachableError(
        f"{endpoint} did not answer like a model hub: the file list of {repo_id} is not usable, {why}. A proxy "
        "or a Wi-Fi login page may be in the way (open a web page first), or HF_ENDPOINT / --endpoint "
        "points at something that is not a Hugging Face mirror."
    )


def _hf_listing(endpoint: str, repo_id: str, revision: str, token: str | None) -> dict[str, object]:
    """The hub's JSON listing of ``repo_id`` at ``revision`` with file metadata, as ``HfApi.model_info``
    asks for it, read at most :data:`MAX_LISTING_BYTES` and :data:`MAX_LISTING_DEPTH` deep.

    ``model_info`` reads the whole answer into memory and parses it recursively: an endless answer
    took 3.5 GB, a 100k-deep one raised RecursionError. Errors keep huggingface_hub's types
    (``hf_raise_for_status``); an answer that is too long, too deep or not a JSON object is a
    :class:`HubUnreachableError`, and one that is not JSON a ``ValueError``.
    """
    from urllib.parse import quote

    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    url = f"{endpoint}/api/models/{repo_id}/revision/{quote(revision, safe='')}"
    headers = build_hf_headers(token=token, library_name="cosy-studio")
    with get_session().stream("GET", url, headers=headers, params={"blobs": True}, timeout=META_TIMEOUT) as r:
        body = bytearray()
        for block in r.iter_bytes():
            body += block
            if len(body) > MAX_LISTING_BYTES:
                raise _not_a_hub(endpoint, repo_id, f"it is longer than {MAX_LISTING_BYTES >> 20} MiB")
        # the body is already decoded: its encoding headers must not make httpx decode it again
        kept = [(k, v) for k, v in r.headers.items()
                if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        # the session's own Response class (httpx or httpx2, whichever huggingface_hub uses)
        answer = type(r)(r.status_code, headers=kept, content=bytes(body), request=r.request)
    hf_raise_for_status(answer)
    if not json_depth_ok(bytes(body), MAX_LISTING_DEPTH):
        raise _not_a_hub(endpoint, repo_id, f"it nests deeper than {MAX_LISTING_DEPTH} levels")
    data = json.loads(bytes(body))
    if not isinstance(data, dict):
        raise _not_a_hub(endpoint, repo_id, f"it is a JSON {type(data).__name__}, not an object")
    return data


class Hub(Protocol):
    """A place models can be downloaded from."""

    @property
    def source(self) -> Source: ...

    @property
    def title(self) -> str: ...

    def snapshot(self, repo_id: str, revision: str | None = None) -> RemoteSnapshot:
        """The repository's files at ``revision`` (the default branch when None). Network I/O."""
        ...

    def headers(self) -> dict[str, str]:
        """Headers to send with every file request."""
        ...


@dataclass(frozen=True)
class HuggingFaceHub:
    """The Hugging Face Hub or a mirror of it (``endpoint`` or ``$HF_ENDPOINT``), via ``huggingface_hub``."""

    endpoint: str | None = None  # None: $HF_ENDPOINT, else https://huggingface.co
    token: str | None = None  # None: huggingface_hub's own (HF_TOKEN or a stored login), if any

    @property
    def source(self) -> Source:
        return "huggingface"

    @property
    def title(self) -> str:
        url = hf_endpoint(self.endpoint)
        return "Hugging Face" if url == DEFAULT_HF_ENDPOINT else f"the Hugging Face mirror {url}"

    def snapshot(self, repo_id: str, revision: str | None = None) -> RemoteSnapshot:
        if offline_requested():
            raise HubUnreachableError(
                "HF_HUB_OFFLINE is set, so nothing can be downloaded. Unset it to download, or use a folder "
                "you already have (\"Use a folder I already have…\" in the Models dialog, or --model PATH)."
            )
        from huggingface_hub import hf_hub_url
        from huggingface_hub.hf_api import ModelInfo
        from huggingface_hub.utils import (
            GatedRepoError,
            HfHubHTTPError,
            OfflineModeIsEnabled,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )

        endpoint = hf_endpoint(self.endpoint)
        rev = revision or DEFAULT_REVISION["huggingface"]
        try:
            data = _hf_listing(endpoint, repo_id, rev, self.token)
        except GatedRepoError as e:
            raise RepoNotFoundError(
                f"{repo_id} on {self.title} needs you to accept its terms and log in "
                "(`hf auth login`, or set HF_TOKEN). Or use a folder you already have."
            ) from e
        except RevisionNotFoundError as e:
            raise RepoNotFoundError(
                f"{repo_id} on {self.title} has no revision {rev!r}; check the revision name.") from e
        except RepositoryNotFoundError as e:
            raise RepoNotFoundError(
                f"{self.title} has no model {repo_id} (or it is private). Check the name, log in if it is "
                "private, or choose the other download source."
            ) from e
        except OfflineModeIsEnabled as e:
            raise unreachable_error(self.title, e) from e
        except HfHubHTTPError as e:
            status = getattr(getattr(e, "response", None), "status_code", None)
            if status is not None and int(status) >= 500:
                raise unreachable_error(f"{self.title} (it answered HTTP {status})", e) from e
            raise RepoNotFoundError(f"{self.title} refused the file list of {repo_id}: {e}") from e
        except transport_errors() as e:
            raise unreachable_error(self.title, e) from e
        except ValueError as e:  # JSONDecodeError: an HTML page (captive portal, proxy login), not the hub's API
            raise _not_a_hub(endpoint, repo_id, f"it is not JSON ({e})") from e
        try:
            info = ModelInfo(**data)
            commit = str(info.sha or rev)
            files: list[RemoteFile] = []
            for s in info.siblings or ():
                lfs = s.lfs
                files.append(RemoteFile(
                    path=str(s.rfilename),
                    size=int(lfs.size) if lfs is not None else (int(s.size) if s.size is not None else None),
                    sha256=str(lfs.sha256).lower() if lfs is not None else None,
                    git_sha1=None if lfs is not None or not s.blob_id else str(s.blob_id).lower(),
                    url=hf_hub_url(repo_id, str(s.rfilename), revision=commit, endpoint=endpoint),
                ))
        except (TypeError, KeyError, AttributeError, ValueError, OverflowError) as e:  # fields of the wrong kind
            why = f"its fields are not a model listing's ({type(e).__name__}: {e})"
            raise _not_a_hub(endpoint, repo_id, why) from e
        logger.info("%s %s@%s: %d files", self.title, repo_id, commit, len(files))
        return RemoteSnapshot("huggingface", repo_id, commit, tuple(files))

    def headers(self) -> dict[str, str]:
        from huggingface_hub.utils import build_hf_headers

        headers = dict(build_hf_headers(token=self.token, library_name="cosy-studio"))
        headers["Accept-Encoding"] = "identity"  # sizes and Range offsets refer to the raw bytes
        return headers


@dataclass(frozen=True)
class ModelScopeHub:
    """ModelScope, through the optional ``modelscope`` package (``pip install 'cosy-studio[modelscope]'``).

    Its endpoint comes from the package's own settings (``MODELSCOPE_DOMAIN``).
    """

    @property
    def source(self) -> Source:
        return "modelscope"

    @property
    def title(self) -> str:
        return "ModelScope"

    def snapshot(self, repo_id: str, revision: str | None = None) -> RemoteSnapshot:
        try:
            from modelscope.hub import errors as ms_errors
            from modelscope.hub.api import HubApi
            from modelscope.hub.file_download import get_file_download_url
        except ImportError as e:
            raise SourceUnavailableError(
                "Downloading from ModelScope needs the modelscope package: pip install 'cosy-studio[modelscope]'. "
                "Or choose Hugging Face (HF_ENDPOINT can point at a mirror)."
            ) from e
        not_found: type[BaseException] = getattr(ms_errors, "NotExistError", LookupError)
        rev = revision or DEFAULT_REVISION["modelscope"]
        try:
            listing = HubApi().get_model_files(model_id=repo_id, revision=rev, recursive=True)
        except not_found as e:
            raise RepoNotFoundError(f"ModelScope has no model {repo_id} at {rev!r}: {e}") from e
        except transport_errors() as e:
            raise unreachable_error("ModelScope", e) from e
        files = tuple(
            RemoteFile(
                path=str(f["Path"]),
                size=int(f["Size"]) if f.get("Size") is not None else None,
                sha256=str(f["Sha256"]).lower() if f.get("Sha256") else None,
                git_sha1=None,
                url=get_file_download_url(repo_id, str(f["Path"]), rev),
            )
            for f in listing if f.get("Type", "blob") != "tree"
        )
        return RemoteSnapshot("modelscope", repo_id, rev, files)

    def headers(self) -> dict[str, str]:
        return {"User-Agent": "cosy-studio", "Accept-Encoding": "identity"}


def make_hub(source: Source = "huggingface", *, endpoint: str | None = None, token: str | None = None) -> Hub:
    """The hub for ``source``. Builds an object only; no network."""
    if source == "huggingface":
        return HuggingFaceHub(endpoint=endpoint, token=token)
    if source == "modelscope":
        if endpoint:
            raise DownloadError("A custom endpoint applies to Hugging Face only; for ModelScope set MODELSCOPE_DOMAIN.")
        return ModelScopeHub()
    raise DownloadError(f"Unknown download source {source!r}; choose one of: {', '.join(SOURCE_TITLES)}.")
