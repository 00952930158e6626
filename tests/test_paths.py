"""One user data folder for the app and the command line, and the one-time move of the old CLI folder.

platformdirs is replaced by fakes that lay folders out as Linux and Windows do (on Windows the old
``CosyStudio`` folder holds the new ``Cosy Studio`` one), inside a temporary folder.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import platformdirs
import pytest
from test_voices import make_voice

from cosycore.cli.common import CliIO
from cosycore.hub import default_models_dir
from cosycore.paths import legacy, legacy_data_dir, move_legacy_data, platform_data_dir
from cosycore.studio.lexicon import app_lexicon_path
from cosycore.voices import VoiceLibrary, default_voices_dir

REPO = Path(__file__).resolve().parents[1]
ENV_NAMES = ("COSY_STUDIO_HOME", "COSY_VOICES_DIR", "COSY_LEXICON", "COSY_STUDIO_MODELS")


def _fake(root: Path, kind: str, layout: str):
    def where(appname: str, appauthor: str | bool | None = None, *args: object, **kwargs: object) -> Path:
        base = root / kind
        if layout == "windows" and appauthor is not False:
            base = base / (appauthor or appname)  # %LOCALAPPDATA%\<author>\<app>
        return base / appname

    return where


@pytest.fixture(params=["linux", "windows"])
def folders(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Platform folders under tmp_path, no overrides, and a fresh once-per-process move."""
    for kind, name in (("data", "user_data_path"), ("cache", "user_cache_path"), ("logs", "user_log_path")):
        monkeypatch.setattr(platformdirs, name, _fake(tmp_path, kind, request.param))
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(legacy, "_done", False)  # this "process" has not moved anything yet
    return tmp_path


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _cli(*argv: str) -> tuple[int, str, str]:
    from cosycore.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), CliIO(io.StringIO(), out, io.BytesIO(), err))
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------------------------
# one folder


def test_app_and_command_line_resolve_the_same_folders(folders: Path) -> None:
    from app.config.settings import AppPaths

    paths = AppPaths.default()
    data = platform_data_dir()
    assert data.name == "Cosy Studio"
    assert paths.data == data
    assert paths.voices == default_voices_dir() == data / "voices"
    assert paths.lexicon == app_lexicon_path() == data / "lexicon.csv"
    assert paths.models == default_models_dir() == data / "models"
    from cosycore.checksums import cache_path

    assert cache_path().parent == paths.cache
    assert legacy_data_dir().name == "CosyStudio"
    assert legacy_data_dir() != data


def test_a_voice_the_app_saves_is_listed_and_used_by_the_command_line(folders: Path) -> None:
    from app.config.settings import AppPaths

    VoiceLibrary(AppPaths.default().voices).add(make_voice("Anna"))
    code, out, err = _cli("voice", "list")
    assert code == 0, err
    assert out.startswith("Anna\t")
    code, out, err = _cli("voice", "show", "anna")
    assert code == 0, err
    assert "Anna" in out


def test_the_portable_home_and_the_overrides_still_win(folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.config.settings import AppPaths

    home = folders / "portable"
    monkeypatch.setenv("COSY_STUDIO_HOME", str(home))
    paths = AppPaths.default()
    assert (paths.data, paths.cache, paths.logs) == (home / "data", home / "cache", home / "logs")
    assert paths.voices == default_voices_dir() == home / "data" / "voices"
    assert paths.lexicon == app_lexicon_path() == home / "data" / "lexicon.csv"
    assert default_models_dir() == home / "data" / "models"

    monkeypatch.setenv("COSY_VOICES_DIR", str(folders / "my voices"))
    monkeypatch.setenv("COSY_LEXICON", str(folders / "words.csv"))
    paths = AppPaths.default()
    assert paths.voices == default_voices_dir() == folders / "my voices"
    assert paths.lexicon == app_lexicon_path() == folders / "words.csv"
    monkeypatch.setenv("COSY_STUDIO_MODELS", str(folders / "my models"))
    paths = AppPaths.default()
    assert paths.voices == default_voices_dir() == folders / "my voices"
    assert paths.lexicon == app_lexicon_path() == folders / "words.csv"
    assert paths.models == default_models_dir() == folders / "my models"
    assert paths.data == home / "data"  # takes stay in the home

    monkeypatch.delenv("COSY_STUDIO_HOME")
    assert AppPaths.default().voices == default_voices_dir() == folders / "my voices"
    assert AppPaths.default().lexicon == folders / "words.csv"


def test_the_vllm_export_cache_lives_in_the_one_cache_folder(folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cosycore.lm.vllm_backend import default_cache_dir
    from cosycore.paths import user_cache_dir

    assert default_cache_dir() == user_cache_dir() / "vllm"
    monkeypatch.setenv("COSY_STUDIO_HOME", str(folders / "portable"))
    assert default_cache_dir() == folders / "portable" / "cache" / "vllm"


def test_no_move_under_a_portable_home(folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _write(legacy_data_dir() / "voices" / "anna.cosyvoice", b"old anna")
    monkeypatch.setenv("COSY_STUDIO_HOME", str(folders / "portable"))
    default_voices_dir()
    app_lexicon_path()
    assert old.read_bytes() == b"old anna"
    assert not (folders / "portable").exists()


# --------------------------------------------------------------------------------------------
# the one-time move


def _old_folder() -> dict[str, Path]:
    old = legacy_data_dir()
    return {
        "anna": _write(old / "voices" / "anna.cosyvoice", b"old anna"),
        "bob": _write(old / "voices" / "bob.cosyvoice", b"old bob"),
        "lexicon": _write(old / "lexicon.csv", b"term,replacement\nNguyen,Win\n"),
        "note": _write(old / "voices" / "readme.txt", b"mine"),
        "other": _write(old / "models" / "x.bin", b"not ours to move"),
    }


def test_first_use_moves_voices_and_the_dictionary(folders: Path, caplog: pytest.LogCaptureFixture) -> None:
    files = _old_folder()
    new = platform_data_dir()
    with caplog.at_level("INFO", logger="cosycore.paths.legacy"):
        assert default_voices_dir() == new / "voices"
    assert (new / "voices" / "anna.cosyvoice").read_bytes() == b"old anna"
    assert (new / "voices" / "bob.cosyvoice").read_bytes() == b"old bob"
    assert (new / "lexicon.csv").read_bytes() == b"term,replacement\nNguyen,Win\n"
    assert not files["anna"].exists() and not files["bob"].exists() and not files["lexicon"].exists()
    # everything else is left where it was, so the old folders stay
    assert files["note"].read_bytes() == b"mine" and files["other"].read_bytes() == b"not ours to move"
    assert sorted(p.name for p in (new / "voices").iterdir()) == ["anna.cosyvoice", "bob.cosyvoice"]
    assert f"moved {files['anna']} to {new / 'voices' / 'anna.cosyvoice'}" in caplog.text
    assert "moved 3 file(s)" in caplog.text


def test_a_clash_keeps_both_and_says_how_to_bring_it_over(folders: Path) -> None:
    files = _old_folder()
    new = platform_data_dir()
    _write(new / "voices" / "anna.cosyvoice", b"new anna")
    _write(new / "voices" / "anna-2.cosyvoice", b"another")
    _write(new / "lexicon.csv", b"term,replacement\nMine,Mine\n")
    report = move_legacy_data(legacy_data_dir(), new)
    assert [o for o, _ in report.moved] == [files["bob"]]
    assert [(i.old, i.taken) for i in report.left_behind] == [
        (files["anna"], new / "voices" / "anna.cosyvoice"), (files["lexicon"], new / "lexicon.csv")]
    assert files["anna"].read_bytes() == b"old anna" and (new / "voices" / "anna.cosyvoice").read_bytes() == b"new anna"
    assert (new / "lexicon.csv").read_bytes() == b"term,replacement\nMine,Mine\n"
    assert files["lexicon"].read_bytes() == b"term,replacement\nNguyen,Win\n"
    advice = report.left_behind[0].advice
    assert str(files["anna"]) in advice and str(new / "voices" / "anna-3.cosyvoice") in advice
    assert str(files["lexicon"]) in report.left_behind[1].advice

    again = move_legacy_data(legacy_data_dir(), new)  # the second time: nothing more happens
    assert again.moved == () and [i.old for i in again.left_behind] == [files["anna"], files["lexicon"]]
    assert files["anna"].read_bytes() == b"old anna" and files["note"].exists() and files["other"].exists()


def test_the_command_line_says_what_it_moved_and_what_it_kept(folders: Path) -> None:
    old = legacy_data_dir() / "voices"
    from cosycore.voices import save_voice

    save_voice(old / "anna.cosyvoice", make_voice("Anna"))
    save_voice(old / "bob.cosyvoice", make_voice("Bob", seed=1))
    new_voices = platform_data_dir() / "voices"
    save_voice(new_voices / "bob.cosyvoice", make_voice("Bob", seed=2))
    code, out, err = _cli("voice", "list")
    assert code == 0, err
    assert [line.split("\t")[0] for line in out.splitlines()] == ["Anna", "Bob"]
    assert f"note: moved {old / 'anna.cosyvoice'} to {new_voices / 'anna.cosyvoice'}" in err
    assert f"warning: {old / 'bob.cosyvoice'} was not moved" in err
    assert f"move it to {new_voices / 'bob-2.cosyvoice'}" in err
    assert (old / "bob.cosyvoice").is_file()


def test_an_emptied_old_folder_is_removed_and_an_identical_copy_is_not_a_clash(folders: Path) -> None:
    old = legacy_data_dir()
    _write(old / "voices" / "anna.cosyvoice", b"same")
    new = platform_data_dir()
    _write(new / "voices" / "anna.cosyvoice", b"same")
    report = move_legacy_data(old, new)
    assert report.left_behind == () and len(report.moved) == 1
    assert (new / "voices" / "anna.cosyvoice").read_bytes() == b"same"
    if new.is_relative_to(old):  # Windows: the new folder is inside the old one, which therefore stays
        assert sorted(p.name for p in old.iterdir()) == ["Cosy Studio"]
    else:
        assert not old.exists()
    assert move_legacy_data(old, new).empty


def test_an_interrupted_move_is_finished(folders: Path) -> None:
    old = _write(legacy_data_dir() / "voices" / "anna.cosyvoice", b"anna")
    new = platform_data_dir() / "voices" / "anna.cosyvoice"
    new.parent.mkdir(parents=True)
    os.link(old, new)  # the state a crash between placing the new name and removing the old leaves
    report = move_legacy_data(legacy_data_dir(), platform_data_dir())
    assert report.moved == ((old, new),) and not old.exists() and new.read_bytes() == b"anna"


@pytest.mark.parametrize("links", ["across disks", "never"])
def test_without_hard_links_the_file_is_copied_checked_and_then_removed(
        folders: Path, monkeypatch: pytest.MonkeyPatch, links: str) -> None:
    files = _old_folder()
    new = platform_data_dir()
    _write(new / "voices" / "bob.cosyvoice", b"new bob")
    real_link = os.link
    calls: list[tuple[str, str]] = []

    def link(src: str | os.PathLike[str], dst: str | os.PathLike[str], **kwargs: object) -> None:
        calls.append((str(src), str(dst)))
        if links == "never" or not Path(src).name.endswith(".moving"):
            raise OSError(errno.EXDEV if links == "across disks" else errno.EPERM, "no link")
        real_link(src, dst)

    monkeypatch.setattr(os, "link", link)
    report = move_legacy_data(legacy_data_dir(), new)
    assert {o for o, _ in report.moved} == {files["anna"], files["lexicon"]}
    assert [i.old for i in report.left_behind] == [files["bob"]]
    assert (new / "voices" / "anna.cosyvoice").read_bytes() == b"old anna"
    assert (new / "voices" / "bob.cosyvoice").read_bytes() == b"new bob" and files["bob"].read_bytes() == b"old bob"
    assert not files["anna"].exists() and files["note"].exists()
    assert not [p for p in new.rglob("*") if p.name.endswith(".moving")]  # no copy left half-way
    assert calls


def test_a_copy_that_differs_is_not_placed_and_the_old_file_stays(
        folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _write(legacy_data_dir() / "lexicon.csv", b"term,replacement\nA,B\n")
    monkeypatch.setattr(os, "link", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.EXDEV, "no link")))
    monkeypatch.setattr(legacy.shutil, "copy2", lambda src, dst: Path(dst).write_bytes(b"torn"))
    report = move_legacy_data(legacy_data_dir(), platform_data_dir())
    assert report.moved == () and len(report.problems) == 1 and str(old) in report.problems[0]
    assert old.read_bytes() == b"term,replacement\nA,B\n"
    assert not (platform_data_dir() / "lexicon.csv").exists()
    assert not list(platform_data_dir().rglob("*.moving"))


def test_two_processes_at_once_move_every_file_exactly_once(tmp_path: Path) -> None:
    old, new = tmp_path / "CosyStudio", tmp_path / "Cosy Studio"
    for i in range(40):
        _write(old / "voices" / f"v{i:02d}.cosyvoice", f"voice {i}".encode())
    _write(old / "lexicon.csv", b"term,replacement\n")
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from cosycore.paths import move_legacy_data
        r = move_legacy_data(Path({str(old)!r}), Path({str(new)!r}))
        print(len(r.moved), len(r.left_behind), len(r.problems))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(int(r[0]) for r in results) in ([0, 41], [41, 0])  # the lock: one process did it all
    assert all(r[1:] == ["0", "0"] for r in results)
    assert sorted(p.name for p in (new / "voices").iterdir()) == [f"v{i:02d}.cosyvoice" for i in range(40)]
    assert all((new / "voices" / f"v{i:02d}.cosyvoice").read_bytes() == f"voice {i}".encode() for i in range(40))
    assert not old.exists()


def test_ensure_runs_once_per_process(folders: Path) -> None:
    first = legacy.ensure_legacy_moved()
    assert first is not None and first.empty
    _write(legacy_data_dir() / "voices" / "late.cosyvoice", b"late")
    assert legacy.ensure_legacy_moved() is None  # the next process moves it
    assert (legacy_data_dir() / "voices" / "late.cosyvoice").exists()


def test_the_app_moves_the_old_files_even_when_both_overrides_point_elsewhere(
        folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.config.settings import AppPaths

    monkeypatch.setenv("COSY_VOICES_DIR", str(folders / "my voices"))
    monkeypatch.setenv("COSY_LEXICON", str(folders / "words.csv"))
    old = _write(legacy_data_dir() / "voices" / "anna.cosyvoice", b"old anna")
    assert AppPaths.default().voices == folders / "my voices"
    assert not old.exists()
    assert (platform_data_dir() / "voices" / "anna.cosyvoice").read_bytes() == b"old anna"
