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


def _release_sized_folder(cv2_dir: Path, folder: Path) -> Path:
    """A user folder holding a CosyVoice2 release's files by name, at the catalogue's sizes (sparse)."""
    from cosycore.hub.catalog import get_entry

    folder.mkdir(parents=True)
    (folder / "cosyvoice2.yaml").write_bytes((cv2_dir / "cosyvoice2.yaml").read_bytes())
    for f in get_entry("cosyvoice2-0.5b").files:
        path = folder / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            with open(path, "wb") as fh:
                fh.truncate(f.approx_bytes)
    return folder


def test_remove_a_user_folder_with_only_release_files_when_confirmed(cv2_dir: Path, tmp_path: Path) -> None:
    mine = _release_sized_folder(cv2_dir, tmp_path / "CosyVoice2-0.5B")
    code, out, err = cli("remove", str(mine), "--delete-user-folder", "--dir", str(tmp_path / "models"))
    assert code == 0, err
    assert "Deleted" in out and not mine.exists()


def test_remove_my_finetune_with_epoch_10_pt_and_best_model_pt(cv2_dir: Path, tmp_path: Path) -> None:
    """A fine-tune folder: the release's yaml beside the user's own checkpoints and training config.
    Not a release's file list, so it is only forgotten, whatever --delete-user-folder says."""
    mine = _release_sized_folder(cv2_dir, tmp_path / "my-finetune")
    for name, data in (("epoch_10.pt", b"ckpt"), ("best_model.pt", b"best"), ("train_config.yaml", b"lr: 1")):
        (mine / name).write_bytes(data)
    code, _out, err = cli("remove", str(mine), "--delete-user-folder", "--dir", str(tmp_path / "models"))
    assert code == 1 and "only forgotten" in err and "epoch_10.pt" in err
    assert (mine / "best_model.pt").read_bytes() == b"best" and (mine / "llm.pt").exists()


def test_remove_a_user_folder_whose_llm_pt_is_not_the_release_size(cv2_dir: Path, tmp_path: Path) -> None:
    mine = copy_release(cv2_dir, tmp_path / "tiny", link_weights=False)  # names of a release, other sizes
    code, _out, err = cli("remove", str(mine), "--delete-user-folder", "--dir", str(tmp_path / "models"))
    assert code == 1 and "only forgotten" in err and (mine / "llm.pt").exists()


def test_remove_with_a_planted_manifest_that_lists_thesis_docx(installed: Path) -> None:
    thesis = installed / "thesis.docx"
    thesis.write_bytes(b"my thesis")
    manifest = installed / dl.MANIFEST_NAME
    data = json.loads(manifest.read_text())
    data["files"].append({"path": "thesis.docx", "size": 9, "sha256": "0" * 64})
    manifest.write_text(json.dumps(data))
    code, _out, err = cli("remove", "cosyvoice2-0.5b", "--dir", str(installed.parent))
    assert code == 1 and "thesis.docx" in err and "does not match the catalogue" in err
    assert thesis.read_bytes() == b"my thesis" and (installed / "llm.pt").exists()


def test_remove_with_a_manifest_whose_sizes_do_not_match_the_disk(installed: Path) -> None:
    (installed / "hift.pt").write_bytes(b"my own vocoder, saved over the release's")
    code, _out, err = cli("remove", "cosyvoice2-0.5b", "--dir", str(installed.parent))
    assert code == 1 and "hift.pt is" in err and (installed / "hift.pt").read_bytes().startswith(b"my own")


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


@pytest.mark.parametrize("manifest", ["[" * 100_000 + "]" * 100_000, "[]", '{"schema": 1, "files": 7}'])
def test_models_list_with_a_damaged_manifest(installed: Path, manifest: str) -> None:
    """A 100k-deep (or otherwise damaged) manifest is that folder's problem, not the listing's."""
    (installed / dl.MANIFEST_NAME).write_text(manifest, encoding="utf-8")
    code, out, err = cli("list", "--dir", str(installed.parent))
    assert "unexpected failure" not in err and "Traceback" not in err
    assert "unreadable" in out + err
    code, _out, err = cli("remove", "cosyvoice2-0.5b", "--dir", str(installed.parent))
    assert code == 1 and "unreadable" in err and (installed / "llm.pt").exists()


def _read_only(monkeypatch: pytest.MonkeyPatch, *calls: str) -> None:
    """``os.<call>`` fails as on a disk mounted read-only."""
    import errno
    import os

    def refuse(*args, **_kw):
        raise OSError(errno.EROFS, "Read-only file system", str(args[0]))

    for call in calls:
        monkeypatch.setattr(os, call, refuse)


def test_download_into_a_read_only_folder(hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: a read-only models folder is named as such, not "check the folder's permissions"."""
    _read_only(monkeypatch, "mkdir")
    code, _out, err = cli("download", "cosyvoice2-0.5b", "--dir", str(tmp_path / "models"), "--endpoint", hub.url)
    assert code == 1 and "read-only disk" in err and "choose a models folder on a writable one (--dir)" in err
    assert "permissions" not in err


def test_remove_an_installed_model_on_a_read_only_disk(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _read_only(monkeypatch, "rename", "unlink")
    code, _out, err = cli("remove", "cosyvoice2-0.5b", "--dir", str(installed.parent))
    assert code == 1 and "the folder is on a read-only disk" in err and "mount the disk writable" in err
    assert "permission" not in err and (installed / "llm.pt").exists()
