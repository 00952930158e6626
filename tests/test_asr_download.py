"""The speech recognizer in the Models manager: catalogue, download, list, verify, remove, CLI.

A fake Hugging Face hub on 127.0.0.1 serves the tiny SenseVoice folder under the release's
repository id, next to the files of the real repository that Cosy Studio does not download.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from cosycore import hub as dl
from cosycore.asr import CATALOG_ID, SenseVoice
from cosycore.errors import DownloadError, IntegrityError
from cosycore.hub.catalog import ASR_MODEL_ID, entries_of_kind, get_entry, parse_catalog
from cosycore.testing.fake_hub import FakeHub, FakeRepo
from tests.conftest import run_models_cli, serving

pytestmark = pytest.mark.usefixtures("quick_retries")

SV_REPO = "csukuangfj/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17"
EXTRAS = {  # in the release repository, never downloaded: the float model, the export script, test clips
    "model.onnx": b"\x08\x07" * 4000,
    "export-onnx.py": b"# export\n",
    "README.md": b"# SenseVoice\n",
    "LICENSE": b"https://github.com/FunAudioLLM/SenseVoice/blob/main/LICENSE\n",
    "test_wavs/en.wav": b"RIFF" + b"\0" * 100,
}


@pytest.fixture(scope="module")
def sv_repo(tiny_sensevoice: Path) -> FakeRepo:
    return FakeRepo.from_folder(SV_REPO, tiny_sensevoice, EXTRAS)


@pytest.fixture
def hub(sv_repo: FakeRepo):
    """The fake hub serving the SenseVoice repository instead of the conftest's CosyVoice2 one."""
    with serving(sv_repo) as server:
        yield server


def test_catalogue_lists_the_sensevoice_release() -> None:
    entry = get_entry(ASR_MODEL_ID)
    assert ASR_MODEL_ID == CATALOG_ID == "sensevoice-small"
    assert entry.kind == "asr" and entry.family == "sensevoice"
    assert entry.repo_id("huggingface") == SV_REPO
    assert entry.repo_id("modelscope").endswith("sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17")
    files = {f.path: f for f in entry.files}
    assert [f.path for f in entry.required_files] == ["model.int8.onnx", "tokens.txt"]
    assert "model.onnx" not in files  # the float model is four times larger for the same words
    assert files["model.int8.onnx"].approx_bytes == 239_233_841 and files["tokens.txt"].approx_bytes == 315_894
    assert all(f.sha256 and len(f.sha256) == 64 for f in entry.required_files)
    assert entry.revision is not None and len(entry.revision) == 40
    assert [e.id for e in entries_of_kind("asr")] == [ASR_MODEL_ID]
    assert ASR_MODEL_ID not in {e.id for e in entries_of_kind("tts")}


@pytest.mark.parametrize("mutate, message", [
    (lambda m: m.update(kind="stt"), "unknown kind"),
    (lambda m: m.update(family="cosyvoice2"), "unknown family"),
    (lambda m: m["files"][0].update(sha256="abc"), "malformed sha256"),
    (lambda m: m.update(revision="main"), "malformed revision"),
])
def test_malformed_asr_entries_are_refused(mutate, message: str) -> None:
    import importlib.resources
    import json

    from cosycore.errors import ConfigError

    data = json.loads(importlib.resources.files("cosycore").joinpath("data/models.json").read_text("utf-8"))
    mutate(next(m for m in data["models"] if m["id"] == ASR_MODEL_ID))
    with pytest.raises(ConfigError, match=message):
        parse_catalog(data)


def test_download_installs_a_working_recognizer(hub: FakeHub, sv_repo: FakeRepo, tmp_path: Path) -> None:
    seen: list[dl.DownloadProgress] = []
    model = dl.download_model(ASR_MODEL_ID, tmp_path, endpoint=hub.url, progress=seen.append)
    folder = dl.asr_model_folder(tmp_path)
    assert model.folder == folder == tmp_path / "SenseVoice-Small"
    assert (model.kind, model.family, model.managed) == ("asr", "sensevoice", True)
    installed = sorted(p.name for p in folder.iterdir())
    assert installed == sorted(["model.int8.onnx", "tokens.txt", "LICENSE", dl.MANIFEST_NAME])
    assert (folder / "model.int8.onnx").read_bytes() == sv_repo.files["model.int8.onnx"]
    assert not [r for r in hub.log if r.path.endswith(("model.onnx", ".wav", ".py", "README.md"))
                and "int8" not in r.path]  # only what the catalogue asks for
    assert seen[0].phase == "planning" and seen[-1].phase == "done"
    assert {p.file for p in seen if p.phase == "downloading"} >= {"model.int8.onnx", "tokens.txt"}
    text = SenseVoice.load(folder, threads=1).transcribe([0.1, -0.2, 0.3] * 8000, 16000).text
    assert isinstance(text, str)


def test_the_recognizer_is_listed_apart_from_the_voice_models(hub: FakeHub, tmp_path: Path) -> None:
    dl.download_model(ASR_MODEL_ID, tmp_path, endpoint=hub.url)
    assert dl.list_installed(tmp_path) == ()  # model pickers list CosyVoice releases only
    (asr,) = dl.list_installed(tmp_path, kind="asr")
    assert asr.model_id == ASR_MODEL_ID and asr.kind == "asr"
    assert [m.model_id for m in dl.list_installed(tmp_path, kind=None)] == [ASR_MODEL_ID]
    assert dl.folder_kind(asr.folder) == ("asr", "sensevoice")
    again = dl.download_model(ASR_MODEL_ID, tmp_path, endpoint=hub.url)  # installed: nothing is fetched
    assert again.folder == asr.folder


def test_dropped_connection_resumes(hub: FakeHub, sv_repo: FakeRepo, tmp_path: Path) -> None:
    hub.drop_once = {f"{SV_REPO}/model.int8.onnx"}
    model = dl.download_model(ASR_MODEL_ID, tmp_path, endpoint=hub.url)
    assert (model.folder / "model.int8.onnx").read_bytes() == sv_repo.files["model.int8.onnx"]
    lfs = hashlib.sha256(sv_repo.files["model.int8.onnx"]).hexdigest()
    gets = [r for r in hub.log if r.method == "GET" and r.path == f"/lfs/{lfs}"]
    assert len(gets) == 2 and gets[1].range is not None and gets[1].range.startswith("bytes=")


def test_verify_transcribes_a_test_clip_and_finds_damage(hub: FakeHub, tmp_path: Path) -> None:
    model = dl.download_model(ASR_MODEL_ID, tmp_path, endpoint=hub.url)
    report = dl.verify(model.folder, smoke_test=dl.smoke_test_for(model.folder))
    assert report.ok, report.problems
    assert report.kind == "asr" and report.family == "sensevoice" and report.smoke_seconds is not None
    assert "test transcription ran" in report.summary() and "3 files" in report.summary()
    (model.folder / "tokens.txt").write_text("<unk> 0\n", encoding="utf-8")
    report = dl.verify(model.folder, hashes=False)
    assert not report.ok and any("tokens.txt has" in p for p in report.problems)
    assert any("vocab_size" in p for p in report.problems)  # the recognizer's own check says what is wrong


def test_a_pinned_hash_guards_files_the_hub_lists_without_one(hub: FakeHub, sv_repo: FakeRepo,
                                                              tmp_path: Path) -> None:
    entry = get_entry(ASR_MODEL_ID)
    good = hashlib.sha256(sv_repo.files["tokens.txt"]).hexdigest()

    def pinned(tokens_sha: str, model_sha: str | None = None):
        files = tuple(replace(f, sha256={"tokens.txt": tokens_sha, "model.int8.onnx": model_sha}.get(f.path))
                      for f in entry.files)
        return replace(entry, revision=sv_repo.commit, files=files)

    with pytest.raises(IntegrityError, match=r"tokens\.txt arrived corrupted: its sha256"):  # a git file: no hub sha
        dl.download_model(pinned("0" * 64), tmp_path, endpoint=hub.url)
    with pytest.raises(IntegrityError, match="knows that file as"):  # an LFS file: the hub's sha disagrees
        dl.download_model(pinned(good, "1" * 64), tmp_path / "other", endpoint=hub.url)
    model = dl.download_model(pinned(good), tmp_path, endpoint=hub.url)
    assert (model.folder / "tokens.txt").read_bytes() == sv_repo.files["tokens.txt"]
    # at another commit than the pinned one, the hub's own hashes decide
    assert dl.download_model(replace(pinned("0" * 64), revision="f" * 40, folder="elsewhere"), tmp_path,
                             endpoint=hub.url).folder.name == "elsewhere"


def test_a_download_that_is_not_a_recognizer_is_not_installed(tmp_path: Path, tiny_sensevoice: Path) -> None:
    files = {"model.int8.onnx": b"garbage" * 100, "tokens.txt": (tiny_sensevoice / "tokens.txt").read_bytes()}
    bad = FakeRepo(SV_REPO, files, frozenset({"model.int8.onnx"}))
    with FakeHub(max_requests=100, max_seconds=60) as server:
        server.add_repo(bad)
        with pytest.raises(DownloadError, match="do not form a usable SenseVoice-Small folder"):
            dl.download_model(ASR_MODEL_ID, tmp_path, endpoint=server.url)
    assert not (tmp_path / "SenseVoice-Small").exists()


def test_cli_download_list_verify_remove(hub: FakeHub, tmp_path: Path) -> None:
    d = str(tmp_path)
    code, out, _ = run_models_cli("list", "--dir", d)
    assert code == 0 and "sensevoice-small" in out and "speech recognition" in out
    code, out, err = run_models_cli("download", ASR_MODEL_ID, "--dir", d, "--endpoint", hub.url)
    assert code == 0, err
    assert "SenseVoice-Small (sensevoice," in out and "is installed in" in out
    code, out, _ = run_models_cli("list", "--dir", d)
    assert code == 0 and "SenseVoice-Small" in out and "speech recognition (voice transcripts)" in out
    code, out, err = run_models_cli("verify", ASR_MODEL_ID, "--dir", d, "--smoke")
    assert code == 0, err
    assert out.startswith("OK: 3 files") and "test transcription ran" in out
    code, out, _ = run_models_cli("remove", ASR_MODEL_ID, "--dir", d)
    assert code == 0 and not (tmp_path / "SenseVoice-Small").exists()
