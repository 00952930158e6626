"""Takes and export: the session list (replay, A/B, remove), WAV/FLAC/SRT files, atomic writes,
a full disk, and exporting a take that is still being made."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import SR, played_offset, played_samples, speechlike
from PySide6.QtCore import QPoint, Qt

from app.audio.playback import PlayState
from app.main_window import MainWindow
from app.takes.export import encode_audio, export_take, format_for_path, srt_text
from app.takes.take import SentenceSpan, Take, TakeList, TakeState
from cosycore.engine import AudioChunk
from cosycore.errors import StorageError


def _chunk(samples: np.ndarray, index: int, sentence: int, text: str, final: bool = False) -> AudioChunk:
    return AudioChunk(samples=samples, sample_rate=SR, index=index, is_final=final, timing=0.1, tokens=(),
                      tokens_so_far=0, sentence_index=sentence, sentence_text=text, sentence_final=final,
                      start_time=0.0)


def test_take_collects_chunks_seams_and_sentences() -> None:
    take = Take(1, "One. Two.", mode="zero_shot", voice_name="v", sample_rate=SR)
    parts = [speechlike(0.5, seed=i) for i in range(3)]
    take.add_chunk(_chunk(parts[0], 0, 0, "One."))
    take.add_chunk(_chunk(parts[1], 1, 0, "One."))
    take.add_chunk(_chunk(parts[2], 2, 1, "Two.", final=True))
    assert take.seams == [0.5, 1.0] and take.duration == pytest.approx(1.5)
    assert take.sentences() == [SentenceSpan(0, "One.", 0.0, 1.0), SentenceSpan(1, "Two.", 1.0, 1.5)]
    assert np.array_equal(take.audio(), np.concatenate(parts)) and not take.audio().flags.writeable
    take.finish(TakeState.DONE, wall_seconds=0.75)
    assert take.complete and take.rtf == pytest.approx(0.5)
    with pytest.raises(RuntimeError):
        take.add_chunk(_chunk(parts[0], 3, 2, "Three."))
    takes = TakeList()
    takes.add(take)
    second = Take(2, "x", mode="instruct", voice_name="v", sample_rate=SR)
    takes.add(second)
    assert (take.number, second.number) == (1, 2) and takes.by_request(2) is second


def test_encodings_read_back() -> None:
    audio = speechlike(1.0)
    audio[5] = 1.7  # out of range: the integer formats clip, float keeps it
    for fmt, subtype in (("wav16", "PCM_16"), ("wav_float", "FLOAT"), ("flac", "PCM_24")):
        path_bytes = encode_audio(audio, SR, fmt)
        import io

        data, rate = sf.read(io.BytesIO(path_bytes), dtype="float32")
        assert rate == SR and sf.info(io.BytesIO(path_bytes)).subtype == subtype
        if fmt == "wav_float":
            assert np.array_equal(data, audio)
        else:
            step = 1 / 32767 if fmt == "wav16" else 1 / 2 ** 23
            assert np.max(np.abs(data - np.clip(audio, -1, 1))) <= step
    assert format_for_path(Path("a.flac")) == "flac" and format_for_path(Path("a.srt")) == "srt"
    assert format_for_path(Path("a.wav"), "wav_float") == "wav_float"
    assert format_for_path(Path("a.wav"), "flac") == "wav16"
    assert format_for_path(Path("a"), "flac") == "flac"


def test_srt_text() -> None:
    srt = srt_text([SentenceSpan(0, "Hello  there.", 0.0, 1.25), SentenceSpan(1, "Bye.", 1.25, 3661.5),
                    SentenceSpan(2, "empty", 4000.0, 4000.0)])
    assert srt == ("1\n00:00:00,000 --> 00:00:01,250\nHello there.\n\n"
                   "2\n00:00:01,250 --> 01:01:01,500\nBye.\n")


def test_full_disk_keeps_the_old_file_and_leaves_no_debris(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "take.wav"
    target.write_bytes(b"previous export")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StorageError, match="disk is full") as info:
        export_take(target, "wav16", speechlike(1.0), SR)
    assert "previous file is intact" in str(info.value)
    assert target.read_bytes() == b"previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["take.wav"]


@pytest.fixture
def window(window: MainWindow) -> MainWindow:
    """The conftest's window, in cross-lingual mode."""
    window.controls.set_mode("cross_lingual")
    return window


def _make_take(qtbot, w: MainWindow, text: str = "Hello there.") -> Take:
    w.editor.set_text(text)
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    return w.session.takes[-1]


def test_full_disk_in_the_window_loses_nothing(qtbot, window: MainWindow, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    take = _make_take(qtbot, window)
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
    assert not window.export_ctl.export(take, tmp_path / "out.wav")
    assert window.last_message[0] == "Export failed" and "disk is full" in window.last_message[1]
    assert list(tmp_path.glob("*.tmp")) == [] and not (tmp_path / "out.wav").exists()
    assert take in list(window.session.takes) and take.samples > 0  # the take is still there to retry
    monkeypatch.undo()
    assert window.export_ctl.export(take, tmp_path / "out.wav")  # with space again, the same take exports
    assert sf.info(tmp_path / "out.wav").frames == take.samples


def test_export_while_streaming_marks_the_take_partial(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.session.engine.interval_ms = 300
    w.editor.set_text("Hello there. How are you today?")
    w.speaking_ctl.speak()
    take = w.session.takes[-1]
    qtbot.waitUntil(lambda: take.chunk_count >= 1, timeout=5000)
    assert w.export_ctl.export(take, tmp_path / "early.wav", "wav_float")
    assert take.exported_partial and "partial" in w.takes_view.list.item(0).text()
    assert "partial" in w.statusBar().currentMessage()
    data, _ = sf.read(tmp_path / "early.wav", dtype="float32")
    assert 0 < data.shape[0] < sum(c.samples.shape[0] for c in w.session.engine.chunks)
    assert np.array_equal(data, take.audio()[: data.shape[0]])
    w.speaking_ctl.stop()


def test_export_dialog_uses_the_chosen_type(qtbot, window: MainWindow, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    take = _make_take(qtbot, window)
    from PySide6.QtWidgets import QFileDialog

    answers = [(str(tmp_path / "x"), "FLAC (*.flac)"), (str(tmp_path / "subs.srt"), "WAV, 16-bit PCM (*.wav)")]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: answers.pop(0))
    with qtbot.waitSignal(window.export_ctl.finished, timeout=10_000):  # written on a worker thread
        window.export_ctl.export_dialog(take)
    assert sf.info(tmp_path / "x.flac").format == "FLAC"
    with qtbot.waitSignal(window.export_ctl.finished, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)  # Ctrl+E exports the shown take
    assert (tmp_path / "subs.srt").read_text(encoding="utf-8").startswith("1\n")
    assert window.settings.last_export_folder == tmp_path


def test_takes_list_replay_compare_and_remove(qtbot, window: MainWindow, null_audio: Path) -> None:
    w = window
    first = _make_take(qtbot, w, "First take.")
    second = _make_take(qtbot, w, "Second take.")
    if w.session.player.state is not PlayState.STOPPED:
        with qtbot.waitSignal(w.session.player.playback_finished, timeout=20_000):
            pass
    view = w.takes_view
    assert view.list.count() == 2
    view.list.setCurrentRow(0)  # selecting shows the take
    assert w.waveform.duration == pytest.approx(first.duration) and w.waveform.is_finished
    with qtbot.waitSignal(w.session.player.playback_finished, timeout=20_000):
        qtbot.mouseClick(view.play_button, Qt.MouseButton.LeftButton)
    played = played_samples(null_audio)
    audio = first.audio()
    start = played_offset(played, audio)
    assert np.array_equal(played[start:start + audio.shape[0]], audio)

    view.list.selectAll()
    assert view.compare_button.isEnabled() and not view.export_button.isEnabled()
    compared = []
    view.compare_requested.connect(lambda a, b: compared.append((a, b)))
    view.compare_button.click()
    view.compare_button.click()
    assert compared == [(first, second), (second, first)]
    w.session.player.stop()

    view.list.clearSelection()
    view.list.item(0).setSelected(True)
    view.remove_button.click()
    assert list(w.session.takes) == [second] and view.list.count() == 1


def test_click_on_the_waveform_plays_from_there(qtbot, window: MainWindow, null_audio: Path) -> None:
    w = window
    take = _make_take(qtbot, w)
    w.session.player.stop()
    w.waveform.redraw()
    vp = w.waveform.plot.viewport()
    x = int(vp.width() * 0.6)
    t = w.waveform.time_at(x)
    with qtbot.waitSignal(w.session.player.playback_finished, timeout=20_000):
        qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=QPoint(x, vp.height() // 2))
    tail = take.audio()[int(t * SR):]
    played = played_samples(null_audio)
    start = played_offset(played, tail)
    assert np.array_equal(played[start:start + tail.shape[0]], tail)
    assert w.waveform.playhead == pytest.approx(take.duration, abs=0.05)


def test_the_export_dialog_writes_off_the_gui_thread(qtbot, window: MainWindow, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from PySide6.QtWidgets import QFileDialog

    from app.controllers import export as export_ctl

    take = _make_take(qtbot, window)
    threads = []
    original = export_ctl.export_take

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(export_ctl, "export_take", spy)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "bg.wav"), ""))
    with qtbot.waitSignal(window.export_ctl.finished, timeout=10_000) as done:
        window.export_ctl.export_dialog(take)
    assert done.args == [True] and threads and threads[0] is not threading.main_thread()
    assert sf.info(tmp_path / "bg.wav").frames == take.samples and "Exported bg.wav" in \
        window.statusBar().currentMessage()
