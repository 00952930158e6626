"""Model downloads against a fake hub on 127.0.0.1 serving tiny release folders.

Covers the catalogue, a full download, resume after a dropped connection and after a cancel,
corruption caught by hashes, a full disk (before and while writing), no network, ModelScope,
verify/remove/list, and the ``models`` command line.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import io
import json
import socket
import sys
import threading
from pathlib import Path

import pytest
import torch

from cosycore import hub as dl
from cosycore.config import load_model_config
from cosycore.errors import (
    ConfigError,
    DownloadBusyError,
    DownloadCancelledError,
    DownloadError,
    HubUnreachableError,
    InsufficientSpaceError,
    IntegrityError,
    RepoNotFoundError,
    SourceUnavailableError,
)
from cosycore.hub import models_cli, plan, transfer
from cosycore.hub.catalog import get_entry, load_catalog, parse_catalog
from cosycore.manifest import recorded_sha256
from cosycore.testing.fake_hub import FakeHub, FakeRepo
from tests.conftest import run_models_cli, serving

pytestmark = pytest.mark.usefixtures("quick_retries")

CV2_REPO = "FunAudioLLM/CosyVoice2-0.5B"
CV3_REPO = "FunAudioLLM/Fun-CosyVoice3-0.5B-2512"
EXTRAS = {  # in the repositories but not needed: must not be downloaded
    "README.md": b"# CosyVoice2\n",
    "flow.decoder.estimator.fp32.onnx": bytes(range(256)) * 64,
    "CosyVoice-BlankEN/model.safetensors": b"\0" * 5000,
    "spk2info.pt": b"\0" * 300,  # the original's built-in speakers; cosycore never loads it
}


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cv2_repo(tiny_cv2_model: Path) -> FakeRepo:
    """The conftest's repository plus files a release holds that must not be downloaded (EXTRAS)."""
    return FakeRepo.from_folder(CV2_REPO, tiny_cv2_model, EXTRAS)


@pytest.fixture(scope="module")
def rl_llm(tiny_cv3_model: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A second valid CV3 language model (the base one, perturbed), served as llm.rl.pt."""
    sd = torch.load(tiny_cv3_model / "llm.pt", weights_only=True)
    sd = {k: (v + 0.01 if v.is_floating_point() else v) for k, v in sd.items()}
    path = tmp_path_factory.mktemp("rl") / "llm.rl.pt"
    torch.save(sd, path)
    return path.read_bytes()


@pytest.fixture(scope="module")
def cv3_repo(tiny_cv3_model: Path, rl_llm: bytes) -> FakeRepo:
    return FakeRepo.from_folder(CV3_REPO, tiny_cv3_model, {"llm.rl.pt": rl_llm, "README.md": b"# CosyVoice3\n"})


@pytest.fixture
def hub(cv2_repo: FakeRepo, cv3_repo: FakeRepo):
    """Both families' repositories on one fake hub."""
    with serving(cv2_repo, cv3_repo, max_requests=500) as server:
        yield server


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def file_gets(hub: FakeHub, path: str) -> list:
    """GETs that carried the bytes of ``path``: its resolve URL for files kept in git, its CDN object for LFS ones."""
    lfs = {hashlib.sha256(r.files[path]).hexdigest() for r in hub.repos.values() if path in r.lfs}
    if lfs:
        return [r for r in hub.log if r.method == "GET" and r.path.startswith("/lfs/") and r.path[5:] in lfs]
    return [r for r in hub.log if r.method == "GET" and "/resolve/" in r.path and r.path.endswith("/" + path)]


# --------------------------------------------------------------------------------------------
# Catalogue
# --------------------------------------------------------------------------------------------


def test_catalogue_lists_the_releases_and_the_rl_variant() -> None:
    entries = {e.id: e for e in load_catalog()}
    assert set(entries) == {"cosyvoice2-0.5b", "fun-cosyvoice3-0.5b-2512", "fun-cosyvoice3-0.5b-2512-rl",
                            "sensevoice-small"}  # the recognizer: tests/test_asr_download.py
    cv2, cv3 = entries["cosyvoice2-0.5b"], entries["fun-cosyvoice3-0.5b-2512"]
    rl = entries["fun-cosyvoice3-0.5b-2512-rl"]
    assert cv2.repo_id("huggingface") == CV2_REPO and cv2.repo_id("modelscope") == "iic/CosyVoice2-0.5B"
    assert cv3.repo_id("huggingface") == CV3_REPO and cv3.repo_id("modelscope") == CV3_REPO
    assert (cv2.family, cv3.family, rl.family) == ("cosyvoice2", "cosyvoice3", "cosyvoice3")
    llm = {f.path: f for f in rl.files}["llm.pt"]
    assert llm.source_path == "llm.rl.pt" and rl.variant_of == cv3.id and rl.repos == cv3.repos
    assert rl.folder != cv3.folder
    assert {"cosyvoice2.yaml", "llm.pt", "speech_tokenizer_v2.onnx", "CosyVoice-BlankEN/vocab.json"} <= \
        {f.path for f in cv2.required_files}
    assert "CosyVoice-BlankEN/model.safetensors" not in {f.path for f in cv2.files}  # llm.pt overwrites it
    assert 2e9 < cv2.approx_bytes < 5e9 and 3e9 < cv3.approx_bytes < 6e9


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["models"][0]["files"].append({"path": "../evil"}), "unsafe path"),
    (lambda d: d["models"][0].update(family="cosyvoice1"), "unknown family"),
    (lambda d: d["models"][2].update(file_sources={"nope.pt": "x"}), "does not install"),
    (lambda d: d["models"].append(dict(d["models"][0])), "appears twice"),
    (lambda d: d.update(schema_version=99), "schema_version"),
])
def test_malformed_catalogue_is_a_config_error(mutate, message: str) -> None:
    import importlib.resources

    data = json.loads(importlib.resources.files("cosycore").joinpath("data/models.json").read_text("utf-8"))
    mutate(data)
    with pytest.raises(ConfigError, match=message):
        parse_catalog(data)


def test_unknown_model_id_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"cosyvoice2-0\.5b"):
        get_entry("cosyvoice9")


# --------------------------------------------------------------------------------------------
# Full download
# --------------------------------------------------------------------------------------------


def test_full_download_installs_a_verified_folder(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    seen: list[dl.DownloadProgress] = []
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url, progress=seen.append)

    entry = get_entry("cosyvoice2-0.5b")
    folder = tmp_path / "CosyVoice2-0.5B"
    assert model.folder == folder and model.family == "cosyvoice2" and model.managed
    assert model.revision == cv2_repo.commit and model.source == "huggingface"
    installed = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert installed == sorted([f.path for f in entry.files if f.path in cv2_repo.files] + [dl.MANIFEST_NAME])
    for rel in installed[1:]:
        assert (folder / rel).read_bytes() == cv2_repo.files[rel], rel
    assert not (tmp_path / dl.STAGING_DIR).exists()  # nothing half-done is left behind
    assert load_model_config(folder).family == "cosyvoice2"
    assert [m.folder for m in dl.list_installed(tmp_path)] == [folder]
    assert model.size_bytes == sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

    manifest = dl.read_manifest(folder)
    assert manifest is not None and manifest.repo_id == CV2_REPO
    assert {f.path: f.sha256 for f in manifest.files} == {
        f.path: hashlib.sha256(cv2_repo.files[f.path]).hexdigest() for f in manifest.files}
    # each file's mtime is recorded, so the loader can take its sha256 from here (cosycore.manifest)
    assert all(f.mtime_ns == (folder / f.path).stat().st_mtime_ns for f in manifest.files)
    assert all(recorded_sha256(folder / f.path) == f.sha256 for f in manifest.files if "/" not in f.path)

    done = [p.done_bytes for p in seen]
    assert done == sorted(done) and seen[0].phase == "planning" and seen[-1].phase == "done"
    assert seen[-1].done_bytes == seen[-1].total_bytes == sum(len(cv2_repo.files[f.path]) for f in manifest.files)
    assert {p.file for p in seen if p.phase == "downloading"} >= {"llm.pt", "flow.pt", "cosyvoice2.yaml"}
    assert any(p.speed_bps > 0 and p.eta_seconds is not None for p in seen)
    # only what the catalogue asks for was fetched
    assert not [r for r in hub.log if "README.md" in r.path or "safetensors" in r.path or "estimator" in r.path
                or "spk2info" in r.path or "generation_config" in r.path]


def test_fake_hub_speaks_the_huggingface_hub_api(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    """huggingface_hub's own client accepts the fake hub, so the shapes it serves are the real ones."""
    from huggingface_hub import HfApi, hf_hub_download, snapshot_download

    info = HfApi(endpoint=hub.url).model_info(CV2_REPO, files_metadata=True)
    sizes = {s.rfilename: (s.lfs.size if s.lfs else s.size) for s in info.siblings or ()}
    assert sizes == {p: len(d) for p, d in cv2_repo.files.items()}
    one = hf_hub_download(CV2_REPO, "llm.pt", endpoint=hub.url, cache_dir=tmp_path / "cache")
    assert Path(one).read_bytes() == cv2_repo.files["llm.pt"]
    snap = Path(snapshot_download(CV2_REPO, endpoint=hub.url, local_dir=tmp_path / "snap",
                                  allow_patterns=["*.yaml", "CosyVoice-BlankEN/*.json"]))
    assert (snap / "cosyvoice2.yaml").read_bytes() == cv2_repo.files["cosyvoice2.yaml"]


def test_rl_variant_installs_llm_rl_as_llm_pt(hub: FakeHub, cv3_repo: FakeRepo, tmp_path: Path) -> None:
    base = dl.download_model("fun-cosyvoice3-0.5b-2512", tmp_path, endpoint=hub.url)
    rl = dl.download_model("fun-cosyvoice3-0.5b-2512-rl", tmp_path, endpoint=hub.url)
    assert (base.folder / "llm.pt").read_bytes() == cv3_repo.files["llm.pt"]
    assert (rl.folder / "llm.pt").read_bytes() == cv3_repo.files["llm.rl.pt"] != cv3_repo.files["llm.pt"]
    assert not (rl.folder / "llm.rl.pt").exists()
    assert rl.family == "cosyvoice3" and rl.folder.name == "Fun-CosyVoice3-0.5B-2512-RL"
    assert {m.model_id for m in dl.list_installed(tmp_path)} == {"fun-cosyvoice3-0.5b-2512",
                                                                 "fun-cosyvoice3-0.5b-2512-rl"}
    assert dl.verify(rl.folder).ok


def test_hf_endpoint_from_the_environment(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", hub.url + "/")
    model = dl.download_model("cosyvoice2-0.5b", tmp_path)
    assert model.managed and hub.requests_for(f"/api/models/{CV2_REPO}/revision/main")


def test_token_goes_to_the_hub_but_not_to_the_cdn(hub: FakeHub, tmp_path: Path) -> None:
    dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url, token="hf_secret")
    api = [r for r in hub.log if r.path.startswith("/api/")]
    cdn = [r for r in hub.log if r.path.startswith("/lfs/")]
    assert api and all(r.authorization == "Bearer hf_secret" for r in api)
    assert cdn and all(r.authorization is None for r in cdn)


def test_installed_model_is_not_downloaded_again(hub: FakeHub, tmp_path: Path) -> None:
    first = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    count = len(hub.log)
    again = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert again == first and len(hub.log) == count
    forced = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url, force=True)
    assert forced.folder == first.folder and len(hub.log) > count and dl.verify(forced.folder).ok


def test_a_foreign_folder_in_the_way_is_not_overwritten(hub: FakeHub, tmp_path: Path) -> None:
    mine = tmp_path / "CosyVoice2-0.5B"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(DownloadError, match="Use a folder I already have"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert (mine / "notes.txt").read_text() == "mine" and not hub.log


# --------------------------------------------------------------------------------------------
# Interruptions
# --------------------------------------------------------------------------------------------


def test_dropped_connection_resumes_with_a_range_request(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    hub.drop_once = {f"{CV2_REPO}/llm.pt", f"{CV2_REPO}/CosyVoice-BlankEN/vocab.json"}
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert (model.folder / "llm.pt").read_bytes() == cv2_repo.files["llm.pt"]
    for name in ("llm.pt", "CosyVoice-BlankEN/vocab.json"):
        gets = file_gets(hub, name)
        half = len(cv2_repo.files[name]) // 2
        assert [r.range for r in gets] == [None, f"bytes={half}-"], name


def _cancel_mid_file(hub: FakeHub, tmp_path: Path, name: str, size: int) -> threading.Thread:
    """Start a download that the hub holds half way through ``name``; cancel it there."""
    hub.hold = {f"{CV2_REPO}/{name}": size // 2}
    cancel = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url, cancel=cancel)
        except BaseException as e:
            errors.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    assert hub.holding.wait(20), "the download never reached the held file"
    cancel.set()
    hub.release.set()
    worker.join(20)
    assert not worker.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], DownloadCancelledError), errors
    assert "resumes" in str(errors[0])
    hub.hold = {}
    return worker


def test_cancel_keeps_the_bytes_and_the_next_download_resumes(hub: FakeHub, cv2_repo: FakeRepo,
                                                              tmp_path: Path) -> None:
    size = len(cv2_repo.files["llm.pt"])
    _cancel_mid_file(hub, tmp_path, "llm.pt", size)
    staging = tmp_path / dl.STAGING_DIR / "cosyvoice2-0.5b"
    part = staging / "llm.pt.part"
    assert 0 < part.stat().st_size < size
    assert (staging / "cosyvoice2.yaml").is_file()  # finished before llm.pt
    assert not (tmp_path / "CosyVoice2-0.5B").exists() and dl.list_installed(tmp_path) == ()
    assert [p.model_id for p in dl.list_partial(tmp_path)] == ["cosyvoice2-0.5b"]

    # a fresh call (as after a restart of the app) picks up the staged bytes
    kept = part.stat().st_size
    before = len(hub.log)
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    later = hub.log[before:]
    assert (model.folder / "llm.pt").read_bytes() == cv2_repo.files["llm.pt"]
    llm_gets = [r for r in file_gets(hub, "llm.pt") if r in later]
    assert [r.range for r in llm_gets] == [f"bytes={kept}-"]
    assert not [r for r in later if r.path.endswith("cosyvoice2.yaml")]  # not fetched twice
    assert dl.list_partial(tmp_path) == () and dl.verify(model.folder).ok


def test_staged_bytes_of_a_changed_file_are_discarded(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    size = len(cv2_repo.files["llm.pt"])
    _cancel_mid_file(hub, tmp_path, "llm.pt", size)
    changed = FakeRepo(CV2_REPO, {**cv2_repo.files, "llm.pt": cv2_repo.files["llm.pt"][::-1]}, cv2_repo.lfs)
    hub.add_repo(changed)  # the repository moved on to a new commit meanwhile
    before = len(hub.log)
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert (model.folder / "llm.pt").read_bytes() == changed.files["llm.pt"]
    assert [r.range for r in file_gets(hub, "llm.pt") if r in hub.log[before:]] == [None]
    assert model.revision == changed.commit != cv2_repo.commit


def test_a_second_download_of_the_same_model_is_refused(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    hub.hold = {f"{CV2_REPO}/llm.pt": len(cv2_repo.files["llm.pt"]) // 2}
    first = threading.Thread(target=dl.download_model, args=("cosyvoice2-0.5b", tmp_path),
                             kwargs={"endpoint": hub.url})
    first.start()
    try:
        assert hub.holding.wait(20)
        with pytest.raises(DownloadBusyError, match="already being downloaded"):
            dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    finally:
        hub.release.set()
        first.join(20)
    assert dl.verify(tmp_path / "CosyVoice2-0.5B").ok


# --------------------------------------------------------------------------------------------
# Integrity, disk space, no network
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, what", [("flow.pt", "sha256"), ("CosyVoice-BlankEN/vocab.json", "git blob id")])
def test_corrupted_file_is_caught_and_refetched(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path,
                                                name: str, what: str) -> None:
    hub.corrupt = {f"{CV2_REPO}/{name}"}
    with pytest.raises(IntegrityError, match=f"{name} arrived corrupted: its {what}"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    staging = tmp_path / dl.STAGING_DIR / "cosyvoice2-0.5b"
    assert not (tmp_path / "CosyVoice2-0.5B").exists()
    assert not (staging / (name + ".part")).exists() and not (staging / name).exists()
    assert (staging / "llm.pt").is_file()  # good files before it stay staged

    hub.corrupt = set()
    before = len(hub.log)
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert (model.folder / name).read_bytes() == cv2_repo.files[name]
    assert not [r for r in file_gets(hub, "llm.pt") if r in hub.log[before:]]


def test_disk_space_is_checked_before_the_first_byte(hub: FakeHub, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    real = plan.shutil.disk_usage
    monkeypatch.setattr(plan.shutil, "disk_usage", lambda p: real(p)._replace(free=10_000_000))
    with pytest.raises(InsufficientSpaceError) as info:
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    message = str(info.value)
    assert "needs 8" in message and "only 10.0 MB is free" in message and "choose a models folder" in message
    assert not [r for r in hub.log if "/resolve/" in r.path or r.path.startswith("/lfs/")]


def test_disk_full_while_writing_keeps_what_arrived(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    limit = 1 << 20

    class FillingFile:
        def __init__(self, path: Path) -> None:
            self.fh = open(path, "ab")  # noqa: SIM115 - closed in __exit__
            self.full = path.name == "llm.pt.part"

        def write(self, data: bytes) -> int:
            room = limit - self.fh.tell()
            if self.full and len(data) > room:  # what fits is written, then the disk is full
                self.fh.write(data[:room])
                self.fh.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.fh.write(data)

        def __getattr__(self, name: str):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

    monkeypatch.setattr(transfer, "_open_part", FillingFile)
    with pytest.raises(InsufficientSpaceError, match=r"disk filled up while writing llm\.pt\.part"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    part = tmp_path / dl.STAGING_DIR / "cosyvoice2-0.5b" / "llm.pt.part"
    assert part.stat().st_size == limit  # exactly what fitted
    monkeypatch.undo()
    dl.RETRY_DELAYS = (0.01,)  # undo() restored the module's own value; keep retries quick anyway
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert (model.folder / "llm.pt").read_bytes() == cv2_repo.files["llm.pt"]


def test_no_network_says_to_use_a_folder_you_have(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = closed_port_url()
    with pytest.raises(HubUnreachableError) as info:
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=url)
    message = str(info.value)
    assert url in message and "use a folder you already have" in message and "HF_ENDPOINT" in message
    assert not (tmp_path / dl.STAGING_DIR).exists()

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnreachableError, match="HF_HUB_OFFLINE"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=url)


def test_connection_lost_for_good_mid_download(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transfer, "RETRY_DELAYS", ())  # no retry: the first drop is final
    hub.drop_once = {f"{CV2_REPO}/llm.pt"}
    with pytest.raises(HubUnreachableError, match=r"Lost the connection .* llm\.pt .* kept in"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    assert (tmp_path / dl.STAGING_DIR / "cosyvoice2-0.5b" / "llm.pt.part").stat().st_size > 0


def test_missing_repository_and_missing_file(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    del hub.repos[CV3_REPO]
    with pytest.raises(RepoNotFoundError, match=r"has no model FunAudioLLM/Fun-CosyVoice3-0\.5B-2512"):
        dl.download_model("fun-cosyvoice3-0.5b-2512", tmp_path, endpoint=hub.url)
    hub.add_repo(FakeRepo(CV2_REPO, {k: v for k, v in cv2_repo.files.items() if k != "flow.pt"}, cv2_repo.lfs))
    with pytest.raises(RepoNotFoundError, match=r"does not have flow\.pt"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)


# --------------------------------------------------------------------------------------------
# ModelScope
# --------------------------------------------------------------------------------------------


def test_modelscope_without_its_package_says_how_to_install_it(tmp_path: Path) -> None:
    if importlib.util.find_spec("modelscope") is not None:
        pytest.skip("modelscope is installed here")
    with pytest.raises(SourceUnavailableError, match=r"pip install 'cosy-studio\[modelscope\]'"):
        dl.download_model("cosyvoice2-0.5b", tmp_path, source="modelscope")


FAKE_MODELSCOPE = {
    "modelscope/__init__.py": "",
    "modelscope/hub/__init__.py": "",
    "modelscope/hub/errors.py": "class NotExistError(Exception):\n    pass\n",
    "modelscope/hub/api.py": (
        "import json, os\n"
        "from .errors import NotExistError\n"
        "class HubApi:\n"
        "    def get_model_files(self, model_id, revision='master', recursive=False):\n"
        "        listing = json.loads(open(os.environ['FAKE_MS_LISTING']).read())\n"
        "        if model_id not in listing or revision != 'master':\n"
        "            raise NotExistError(model_id)\n"
        "        return listing[model_id]\n"
    ),
    "modelscope/hub/file_download.py": (
        "import os, urllib.parse\n"
        "def get_file_download_url(model_id, file_path, revision):\n"
        "    return os.environ['FAKE_MS_HUB'] + '/' + model_id + '/resolve/main/' + urllib.parse.quote(file_path)\n"
    ),
}


@pytest.fixture
def fake_modelscope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hub: FakeHub, cv2_repo: FakeRepo):
    """A stand-in ``modelscope`` package answering with the file listing shape of the real one."""
    for rel, text in FAKE_MODELSCOPE.items():
        (tmp_path / "pkgs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkgs" / rel).write_text(text)
    hub.add_repo(FakeRepo("iic/CosyVoice2-0.5B", cv2_repo.files, cv2_repo.lfs))
    listing = [{"Type": "tree", "Path": "CosyVoice-BlankEN", "Name": "CosyVoice-BlankEN", "Size": 0}] + [
        {"Type": "blob", "Path": p, "Name": p.rsplit("/", 1)[-1], "Size": len(d),
         "Sha256": hashlib.sha256(d).hexdigest()} for p, d in cv2_repo.files.items()]
    (tmp_path / "listing.json").write_text(json.dumps({"iic/CosyVoice2-0.5B": listing}))
    monkeypatch.setenv("FAKE_MS_LISTING", str(tmp_path / "listing.json"))
    monkeypatch.setenv("FAKE_MS_HUB", hub.url)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    yield
    for name in [m for m in sys.modules if m == "modelscope" or m.startswith("modelscope.")]:
        del sys.modules[name]


def test_modelscope_source(fake_modelscope, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    model = dl.download_model("cosyvoice2-0.5b", tmp_path / "models", source="modelscope")
    assert model.source == "modelscope" and model.revision == "master"
    assert (model.folder / "flow.pt").read_bytes() == cv2_repo.files["flow.pt"]
    assert dl.verify(model.folder).ok
    with pytest.raises(DownloadError, match="MODELSCOPE_DOMAIN"):
        dl.download_model("cosyvoice2-0.5b", tmp_path / "other", source="modelscope", endpoint="http://x")


# --------------------------------------------------------------------------------------------
# Verify, remove, list
# --------------------------------------------------------------------------------------------


def test_verify_catches_changed_files(hub: FakeHub, tmp_path: Path) -> None:
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    seen: list[dl.DownloadProgress] = []
    report = dl.verify(model.folder, progress=seen.append)
    assert report.ok and report.managed and report.hashed and report.files_checked == 10, report.summary()
    assert seen[-1].phase == "done" and seen[-1].done_bytes == report.bytes_checked

    hift = model.folder / "hift.pt"
    data = bytearray(hift.read_bytes())
    data[100] ^= 1
    hift.write_bytes(bytes(data))
    assert dl.verify(model.folder, hashes=False).ok  # same size: only the hash sees it
    report = dl.verify(model.folder)
    assert not report.ok and "hift.pt has changed since it was installed" in report.summary()
    hift.write_bytes(bytes(data[:-10]))
    assert "hift.pt has 1" in dl.verify(model.folder, hashes=False).problems[0]


def test_verify_runs_a_pluggable_smoke_test(hub: FakeHub, tmp_path: Path) -> None:
    model = dl.download_model("cosyvoice2-0.5b", tmp_path, endpoint=hub.url)
    calls: list[Path] = []
    assert dl.verify(model.folder, smoke_test=calls.append).smoke_seconds is not None and calls == [model.folder]

    def broken(folder: Path) -> None:
        raise RuntimeError("the engine refused")

    report = dl.verify(model.folder, smoke_test=broken)
    assert not report.ok and "test synthesis failed: the engine refused" in report.problems[0]


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_default_smoke_test_synthesises_with_cosymodel(family: str, tiny_cv2_model: Path, tiny_cv3_model: Path,
                                                       single_thread) -> None:
    folder = tiny_cv2_model if family == "cosyvoice2" else tiny_cv3_model
    seconds: list[float] = []
    report = dl.verify(folder, smoke_test=lambda f: seconds.append(dl.synthesis_smoke_test(f, tokens=4)))
    assert report.ok and not report.managed and report.smoke_seconds is not None, report.problems
    assert seconds and seconds[0] > 0  # 4 speech tokens of audio


def test_folder_of_ones_own_is_checked_for_required_files(tiny_cv2_model: Path, tmp_path: Path) -> None:
    mine = tmp_path / "my-cv2"
    mine.mkdir()
    for p in tiny_cv2_model.rglob("*"):
        if p.is_file():
            (mine / p.relative_to(tiny_cv2_model)).parent.mkdir(parents=True, exist_ok=True)
            (mine / p.relative_to(tiny_cv2_model)).write_bytes(p.read_bytes())
    report = dl.verify(mine)
    assert report.ok and not report.managed and "no install manifest" in report.summary()
    listed = dl.list_installed(tmp_path / "nothing-here", extra_folders=[mine])
    assert [(m.name, m.family, m.managed) for m in listed] == [("my-cv2", "cosyvoice2", False)]
    (mine / "CosyVoice-BlankEN" / "merges.txt").unlink()
    assert "CosyVoice-BlankEN/merges.txt is missing" in dl.verify(mine).summary()


def test_remove_deletes_model_folders_only(hub: FakeHub, tmp_path: Path) -> None:
    model = dl.download_model("cosyvoice2-0.5b", tmp_path / "models", endpoint=hub.url)
    dl.remove(model.folder)
    assert not model.folder.exists() and dl.list_installed(tmp_path / "models") == ()
    assert [p.name for p in (tmp_path / "models").iterdir()] == []
    precious = tmp_path / "documents"
    precious.mkdir()
    (precious / "thesis.txt").write_text("keep me")
    with pytest.raises(DownloadError, match="not a model folder"):
        dl.remove(precious)
    assert (precious / "thesis.txt").read_text() == "keep me"


def test_partial_download_can_be_discarded(hub: FakeHub, cv2_repo: FakeRepo, tmp_path: Path) -> None:
    _cancel_mid_file(hub, tmp_path, "llm.pt", len(cv2_repo.files["llm.pt"]))
    assert dl.list_partial(tmp_path)
    dl.discard_partial("cosyvoice2-0.5b", tmp_path)
    assert dl.list_partial(tmp_path) == () and not (tmp_path / dl.STAGING_DIR).exists()


def test_default_models_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(dl.MODELS_ENV, str(tmp_path / "m"))
    assert dl.default_models_dir() == tmp_path / "m"
    monkeypatch.delenv(dl.MODELS_ENV)
    monkeypatch.setenv(dl.HOME_ENV, str(tmp_path / "home"))
    assert dl.default_models_dir() == tmp_path / "home" / "data" / "models"
    monkeypatch.delenv(dl.HOME_ENV)
    assert dl.default_models_dir().name == "models" and "Cosy" in str(dl.default_models_dir())


def test_progress_text() -> None:
    p = dl.DownloadProgress("m", "downloading", "llm.pt", 2, 9, 500, 1000, 1_200_000_000, 3_100_000_000,
                            11_500_000.0, 165.0)
    assert p.describe() == "Downloading llm.pt (3/9) · 1.2 GB of 3.1 GB · 11.5 MB/s · 2:45 left"
    assert p.fraction == pytest.approx(1.2 / 3.1) and p.file_fraction == 0.5
    assert (dl.format_bytes(999), dl.format_bytes(1536), dl.format_duration(3725), dl.format_duration(None)) == \
        ("999 B", "1.5 KB", "1:02:05", "--:--")


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def test_cli_download_list_verify_remove(hub: FakeHub, tmp_path: Path) -> None:
    d = str(tmp_path)
    code, out, err = run_models_cli("download", "cosyvoice2-0.5b", "--dir", d, "--endpoint", hub.url)
    assert code == 0, err
    assert "CosyVoice2-0.5B (cosyvoice2, 17" in out and "is installed in" in out
    assert "downloading llm.pt (2/10)" in err  # not a terminal: one line per file

    code, out, _ = run_models_cli("list", "--dir", d)
    assert code == 0 and "CosyVoice2-0.5B" in out and "Hugging Face" in out
    assert "fun-cosyvoice3-0.5b-2512-rl" in out and "installed" in out

    code, out, _ = run_models_cli("verify", "cosyvoice2-0.5b", "--dir", d)
    assert code == 0 and out.startswith("OK: 10 files")
    (tmp_path / "CosyVoice2-0.5B" / "flow.pt").write_bytes(b"oops")
    code, _, err = run_models_cli("verify", "cosyvoice2-0.5b", "--dir", d, "--quick")
    assert code == 1 and "flow.pt has 4 bytes" in err

    # flow.pt no longer matches the manifest's size: it may be the user's own file now, so nothing is deleted
    code, out, err = run_models_cli("remove", "cosyvoice2-0.5b", "--dir", d)
    assert code == 1 and "does not match the catalogue and the files on disk" in err
    assert (tmp_path / "CosyVoice2-0.5B" / "flow.pt").read_bytes() == b"oops"
    (tmp_path / "CosyVoice2-0.5B" / "flow.pt").unlink()  # gone (a listed file may be missing)
    code, out, _ = run_models_cli("remove", "cosyvoice2-0.5b", "--dir", d)
    assert code == 0 and not (tmp_path / "CosyVoice2-0.5B").exists()


def test_cli_failures_are_messages_with_exit_codes(tmp_path: Path) -> None:
    code, _, err = run_models_cli("download", "cosyvoice2-0.5b", "--dir", str(tmp_path), "--endpoint",
                                  closed_port_url())
    assert code == 1 and "use a folder you already have" in err and "Traceback" not in err
    code, _, err = run_models_cli("download", "no-such-model", "--dir", str(tmp_path))
    assert code == 2 and "choose one of" in err
    code, _, _ = run_models_cli("frobnicate")
    assert code == 2


def test_cli_progress_line_on_a_terminal() -> None:
    stream = io.StringIO()
    bar = models_cli.ProgressLine(stream, tty=True, rate=1e9)
    bar(dl.DownloadProgress("m", "downloading", "llm.pt", 1, 3, 10, 100, 250_000_000, 1_000_000_000, 5e6, 150.0))
    bar(dl.DownloadProgress("m", "downloading", "llm.pt", 1, 3, 20, 100, 500_000_000, 1_000_000_000, 5e6, 100.0))
    bar(dl.DownloadProgress("m", "done", "", 2, 3, 0, None, 1_000_000_000, 1_000_000_000, 5e6, 0.0))
    text = stream.getvalue()
    lines = text.split("\r")[1:]
    assert len(lines) == 3 and text.count("\n") == 1  # one line, redrawn in place
    assert "[######..................]  25.0%  250.0 MB/1.0 GB  5.0 MB/s  ETA 2:30  llm.pt" in lines[0]
    assert " 50.0%" in lines[1] and "100.0%" in lines[2]
