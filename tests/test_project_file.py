"""The project file (issue 25, item 3): versioned JSON, written atomically, read back whole; a file from a
newer app, a damaged or a missing one is a typed error and is left as it is; the Untitled session's two
files (as the app has always written them) read as a project state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.project import (
    PROJECT_VERSION,
    Project,
    ProjectDamagedError,
    ProjectError,
    ProjectNotFoundError,
    ProjectState,
    ProjectTooNewError,
    SaveCancelledError,
    TakeRef,
    VoiceRef,
    copy_folders,
    file_sha256,
    load_project,
    project_paths,
    read_session_state,
    save_project,
)


def _project(tmp_path: Path) -> Project:
    state = ProjectState(mode="script", texts={"script": "[Anna] Hi.\n[Ben] Hello.", "zero_shot": "Clone text 你好"},
                         instruction="Speak slowly.", cast=[{"name": "Anna", "voice": "Tester", "instruction": ""}],
                         voice="Tester")
    return Project(path=tmp_path / "Book" / "Book.cosyproj", state=state,
                   voices=[VoiceRef("Tester", "Tester.cosyvoice", "ab" * 32)], takes=[TakeRef("u1", 1, "Best")])


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    project = _project(tmp_path)
    save_project(project)
    raw = json.loads(project.path.read_text(encoding="utf-8"))
    assert raw["format"] == "cosy-studio-project" and raw["version"] == PROJECT_VERSION
    assert raw["texts"]["zero_shot"] == "Clone text 你好"  # not escaped: readable in any editor
    assert sorted(p.name for p in project.path.parent.iterdir()) == ["Book.cosyproj"]  # no temporary file left
    back = load_project(project.path)
    assert back.state == project.state and back.voices == project.voices and back.takes == project.takes
    assert back.name == "Book" and back.takes_folder == tmp_path / "Book" / "takes"
    assert back.saved == pytest.approx(project.saved)


def test_state_equality_ignores_empty_texts() -> None:
    a = ProjectState(mode="instruct", texts={"instruct": "Hi", "script": ""})
    assert a.same_as(ProjectState(mode="instruct", texts={"instruct": "Hi"}))
    assert not a.same_as(ProjectState(mode="instruct", texts={"instruct": "Hi!"}))
    assert not a.same_as(ProjectState(mode="script", texts={"instruct": "Hi"}))


def test_a_failed_save_leaves_the_previous_file_whole(tmp_path: Path) -> None:
    project = _project(tmp_path)
    save_project(project)
    before = project.path.read_bytes()
    blocker = tmp_path / "Book" / "takes"
    blocker.write_text("a file where a folder would be", encoding="utf-8")
    bad = Project(path=blocker / "x.cosyproj")
    with pytest.raises(ProjectError, match="not saved"):
        save_project(bad)
    assert project.path.read_bytes() == before


def test_a_newer_project_says_to_update_and_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "New.cosyproj"
    text = json.dumps({"format": "cosy-studio-project", "version": PROJECT_VERSION + 1, "texts": {"x": 1}})
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectTooNewError, match=r"newer Cosy Studio.*Update Cosy Studio"):
        load_project(path)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("content", [
    '{"format": "cosy-studio-project", "version": 1, "texts": {"zero_shot": "cut sh',  # cut short
    "[1, 2]",
    '{"format": "something-else", "version": 1}',
    '{"format": "cosy-studio-project", "version": "1"}',
    '{"format": "cosy-studio-project", "version": 1, "texts": {"zero_shot": 3}}',
    '{"format": "cosy-studio-project", "version": 1, "takes": {"a": 1}}',
    '{"format": "cosy-studio-project", "version": 1, "takes": [{"uid": "a", "number": "x"}]}',
    '{"format": "cosy-studio-project", "version": 1, "saved": NaN}',  # strict JSON: no NaN
])
def test_a_damaged_project_is_a_typed_error_and_left_as_it_is(tmp_path: Path, content: str) -> None:
    path = tmp_path / "Damaged.cosyproj"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ProjectDamagedError, match="left as it is"):
        load_project(path)
    assert path.read_text(encoding="utf-8") == content


def test_a_missing_project_says_where_to_look(tmp_path: Path) -> None:
    with pytest.raises(ProjectNotFoundError, match="moved or renamed"):
        load_project(tmp_path / "Gone.cosyproj")


def test_unknown_mode_and_cast_rows_without_a_name_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "P.cosyproj"
    path.write_text(json.dumps({"format": "cosy-studio-project", "version": 1, "mode": "karaoke",
                                "cast": [{"name": " Anna "}, {"name": ""}, "Ben"], "voice": 5}), encoding="utf-8")
    state = load_project(path).state
    assert state.mode == "zero_shot" and state.voice == ""
    assert state.cast == [{"name": "Anna", "voice": "", "instruction": ""}]


def test_project_paths_give_each_project_a_folder(tmp_path: Path) -> None:
    assert project_paths(tmp_path / "Book") == tmp_path / "Book" / "Book.cosyproj"
    assert project_paths(tmp_path / "Book.cosyproj") == tmp_path / "Book" / "Book.cosyproj"
    assert project_paths(tmp_path / "v1.2") == tmp_path / "v1.2" / "v1.2.cosyproj"
    with pytest.raises(ProjectError, match="type a name"):
        project_paths(tmp_path / ".cosyproj")


def test_the_untitled_session_files_read_as_a_state(tmp_path: Path) -> None:
    assert read_session_state(tmp_path) is None
    # What the app wrote before projects: session.json holds the current mode's text, mode_texts.json the rest.
    (tmp_path / "session.json").write_text(json.dumps({
        "text": "[Anna] Hi.", "instruction": "Calm.", "cast": [{"name": "Anna", "voice": "Tester"}]}),
        encoding="utf-8")
    (tmp_path / "mode_texts.json").write_text(json.dumps({
        "version": 1, "mode": "script", "texts": {"zero_shot": "Clone me.", "instruct": "Instruct me."}}),
        encoding="utf-8")
    state = read_session_state(tmp_path)
    assert state is not None
    assert state.mode == "script" and state.instruction == "Calm."
    assert state.texts == {"script": "[Anna] Hi.", "zero_shot": "Clone me.", "instruct": "Instruct me."}
    assert state.cast == [{"name": "Anna", "voice": "Tester", "instruction": ""}]
    # A damaged mode_texts.json: what session.json holds is still read (in the default mode).
    (tmp_path / "mode_texts.json").write_text("{not json", encoding="utf-8")
    state = read_session_state(tmp_path)
    assert state is not None and state.texts == {"zero_shot": "[Anna] Hi."}


def test_file_sha256(tmp_path: Path) -> None:
    path = tmp_path / "v.bin"
    path.write_bytes(b"abc")
    assert file_sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert file_sha256(tmp_path / "missing") == ""


def _take_folder(root: Path, size: int) -> Path:
    (root / "versions").mkdir(parents=True)
    (root / "audio.f32").write_bytes(bytes(range(256)) * (size // 256))
    (root / "take.json").write_text('{"uid": "t"}', encoding="utf-8")
    (root / "versions" / "1.f32").write_bytes(b"v1")
    (root / "link").symlink_to("take.json")  # a link stays a link (never followed)
    return root


def test_copy_folders_copies_in_blocks_and_reports_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.project

    monkeypatch.setattr(app.project, "COPY_BLOCK", 1000)
    a, b = _take_folder(tmp_path / "src" / "a", 5120), _take_folder(tmp_path / "src" / "b", 256)
    seen: list[tuple[int, int]] = []
    (tmp_path / "dst").mkdir()
    copy_folders([(a, tmp_path / "dst" / "a"), (b, tmp_path / "dst" / "b")], lambda d, t: seen.append((d, t)))
    for name, source in (("a", a), ("b", b)):
        target = tmp_path / "dst" / name
        for rel in ("audio.f32", "take.json", "versions/1.f32"):
            assert (target / rel).read_bytes() == (source / rel).read_bytes()
        assert (target / "link").is_symlink() and str((target / "link").readlink()) == "take.json"
    total = 5120 + 256 + 2 * (len('{"uid": "t"}') + 2)
    assert seen[-1] == (total, total) and all(t == total for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) > 6  # block by block
    with pytest.raises(FileExistsError):  # never into a folder that is there
        copy_folders([(a, tmp_path / "dst" / "a")])


def test_copy_folders_stops_when_cancelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.project

    monkeypatch.setattr(app.project, "COPY_BLOCK", 1000)
    a = _take_folder(tmp_path / "src" / "a", 10_240)
    blocks: list[int] = []
    (tmp_path / "dst").mkdir()
    with pytest.raises(SaveCancelledError, match="cancelled"):
        copy_folders([(a, tmp_path / "dst" / "a")], lambda d, t: blocks.append(d), lambda: len(blocks) >= 3)
    assert len(blocks) == 3  # stopped at the block after the answer changed
    assert (a / "audio.f32").stat().st_size == 10_240  # the source is untouched
