"""Issue 12 items 1 and 2: ``models remove`` deletes only what Cosy Studio created.

Each test is named after what it was given. A downloaded model comes from the fake hub on
127.0.0.1 (bounded: loopback only, a request and time limit).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cosycore import hub as dl
from cosycore.errors import DownloadError
from cosycore.hub import models_cli
from cosycore.hub.removal import remove_model, safe_member
from cosycore.testing.fake_hub import FakeHub
from tests.conftest import copy_release


@pytest.fixture
def installed(hub: FakeHub, tmp_path: Path) -> Path:
    return dl.download_model("cosyvoice2-0.5b", tmp_path / "models", endpoint=hub.url).folder


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = models_cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _precious(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "thesis.txt").write_text("keep me")
    return folder / "thesis.txt"


# -- item 1: --partial with ids that are not ours ------------------------------------------------

@pytest.mark.parametrize("target", ["~", "/", "..", "../..", "../elsewhere", "/tmp", "a/b", ".", ".staging"])
def test_remove_partial_with_a_path(tmp_path: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    models = tmp_path / "home" / "models"
    (models / dl.STAGING_DIR / "cosyvoice2-0.5b").mkdir(parents=True)
    precious = _precious(tmp_path / "home")
    elsewhere = _precious(tmp_path / "home" / "models" / "elsewhere")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, out, err = cli("remove", target, "--partial", "--dir", str(models))
    assert code == 1 and "Nothing was deleted" in err and out == ""
    assert precious.read_text() == "keep me" and elsewhere.read_text() == "keep me"
    assert (models / dl.STAGING_DIR / "cosyvoice2-0.5b").is_dir()


def test_remove_partial_with_an_unknown_id(tmp_path: Path) -> None:
    code, out, err = cli("remove", "no-such-model", "--partial", "--dir", str(tmp_path))
    assert code == 1 and "not a model id with an unfinished download" in err and "Deleted" not in out


def test_remove_partial_of_a_known_id_without_a_download(tmp_path: Path) -> None:
    code, out, _err = cli("remove", "cosyvoice2-0.5b", "--partial", "--dir", str(tmp_path))
    assert code == 0 and "nothing was deleted" in out  # no false "Deleted …"


def test_remove_partial_whose_staging_folder_is_a_symlink(tmp_path: Path) -> None:
    victim = _precious(tmp_path / "victim")
    staging = tmp_path / "models" / dl.STAGING_DIR
    staging.mkdir(parents=True)
    (staging / "cosyvoice2-0.5b").symlink_to(victim.parent)
    code, _out, err = cli("remove", "cosyvoice2-0.5b", "--partial", "--dir", str(tmp_path / "models"))
    assert code == 1 and "leads outside" in err and victim.read_text() == "keep me"


def test_remove_partial_of_a_real_unfinished_download(tmp_path: Path) -> None:
    staged = tmp_path / "models" / dl.STAGING_DIR / "cosyvoice2-0.5b"
    staged.mkdir(parents=True)
    (staged / "llm.pt.part").write_bytes(b"x" * 100)
    code, out, _ = cli("remove", "cosyvoice2-0.5b", "--partial", "--dir", str(tmp_path / "models"))
    assert code == 0 and "Deleted the unfinished download" in out and not staged.exists()


def test_remove_unknown_id(tmp_path: Path) -> None:
    code, out, err = cli("remove", "cosyvoice9", "--dir", str(tmp_path))
    assert code == 1 and "neither a catalogue id" in err and out == ""


# -- item 2: folders that hold a cosyvoice2.yaml but are not ours -------------------------------------

def test_remove_a_user_folder_with_a_yaml_and_photos(cv2_dir: Path, tmp_path: Path) -> None:
    mine = copy_release(cv2_dir, tmp_path / "Pictures", link_weights=False)
    photo = mine / "holiday.jpg"
    photo.write_bytes(b"\xff\xd8 a photo")
    code, _out, err = cli("remove", str(mine), "--dir", str(tmp_path / "models"))
    assert code == 1 and "did not download it" in err and "only forgotten" in err
    code, _out, err = cli("remove", str(mine), "--delete-user-folder", "--dir", str(tmp_path / "models"))
    assert code == 1 and "holiday.jpg" in err and "Move them out first" in err
    assert photo.read_bytes() == b"\xff\xd8 a photo" and (mine / "cosyvoice2.yaml").exists()


def test_remove_a_user_folder_with_only_release_files_when_confirmed(cv2_dir: Path, tmp_path: Path) -> None:
    mine = copy_release(cv2_dir, tmp_path / "CosyVoice2-0.5B", link_weights=False)
    for extra in mine.rglob("*"):
        if extra.is_file() and not models_removal_release_file(extra.relative_to(mine).as_posix()):
            extra.unlink()
    code, out, err = cli("remove", str(mine), "--delete-user-folder", "--dir", str(tmp_path / "models"))
    assert code == 0, err
    assert "Deleted" in out and not mine.exists()


def models_removal_release_file(rel: str) -> bool:
    from cosycore.hub.removal import _release_file

    return _release_file(rel)


def test_remove_an_installed_model_with_documents_saved_inside(installed: Path) -> None:
    doc = _precious(installed / "notes")
    code, out, err = cli("remove", "cosyvoice2-0.5b", "--dir", str(installed.parent))
    assert code == 0, err
    assert "kept 1 file(s) that Cosy Studio did not install (notes/thesis.txt)" in out
    assert doc.read_text() == "keep me"
    assert not (installed / "cosyvoice2.yaml").exists() and not (installed / dl.MANIFEST_NAME).exists()
    assert sorted(p.relative_to(installed).as_posix() for p in installed.rglob("*")) == ["notes", "notes/thesis.txt"]


def test_remove_an_installed_model(installed: Path) -> None:
    code, out, _ = cli("remove", "cosyvoice2-0.5b", "--dir", str(installed.parent))
    assert code == 0 and f"Deleted {installed}." in out and not installed.exists()


def test_remove_with_a_manifest_that_lists_paths_outside(installed: Path, tmp_path: Path) -> None:
    victim = _precious(tmp_path / "victim")
    manifest = installed / dl.MANIFEST_NAME
    data = json.loads(manifest.read_text())
    data["files"].append({"path": "../../victim/thesis.txt", "size": 7, "sha256": "0" * 64})
    manifest.write_text(json.dumps(data))
    with pytest.raises(DownloadError, match="outside the folder"):
        remove_model(installed)
    assert victim.read_text() == "keep me" and (installed / "llm.pt").exists()


def test_remove_a_symlink_to_an_installed_model(installed: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(installed)
    code, _out, err = cli("remove", str(link), "--dir", str(installed.parent))
    assert code == 1 and "symbolic link" in err and (installed / "llm.pt").exists()


def test_remove_an_installed_model_whose_weights_are_symlinks_to_elsewhere(installed: Path, tmp_path: Path) -> None:
    victim = _precious(tmp_path / "victim")
    (installed / "llm.pt").unlink()
    (installed / "llm.pt").symlink_to(victim)  # the manifest lists llm.pt: the link goes, its target stays
    remove_model(installed)
    assert not installed.exists() and victim.read_text() == "keep me"


@pytest.mark.parametrize("rel", ["../x", "/etc/passwd", "a/../../x", "", ".", "a\\..\\x", "C:/x"])
def test_safe_member_refuses(tmp_path: Path, rel: str) -> None:
    assert safe_member(tmp_path, rel) is None


def test_safe_member_refuses_a_symlinked_parent(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "sub").symlink_to(tmp_path)
    assert safe_member(tmp_path / "m", "sub/file") is None
    assert safe_member(tmp_path / "m", "ok/file") == tmp_path / "m" / "ok" / "file"
