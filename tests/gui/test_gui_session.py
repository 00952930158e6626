"""The studio session: the state the controllers share, and a signal for each change of it."""

from __future__ import annotations

import numpy as np
from conftest import SR, FakeEngine, engine_info

from app.session import StudioSession
from app.takes.take import Take, TakeState
from cosycore.engine import AudioChunk


def _chunk(index: int, seconds: float = 0.5) -> AudioChunk:
    samples = np.full(int(seconds * SR), 0.1, np.float32)
    return AudioChunk(samples, SR, index, False, 0.1 * (index + 1), (), 0, 0, "Hello.", False, index * seconds)


def _session(qtbot, settings) -> StudioSession:
    session = StudioSession(settings, engine=FakeEngine([]))
    return session


def test_a_take_is_told_from_start_to_end(qtbot, settings) -> None:
    s = _session(qtbot, settings)
    events: list[tuple] = []
    s.current_take_changed.connect(lambda t: events.append(("current", t.number if t else None)))
    s.take_started.connect(lambda t: events.append(("started", t.number)))
    s.take_grew.connect(lambda t, c, first: events.append(("grew", c.index, first)))
    s.take_ended.connect(lambda t: events.append(("ended", t.state)))
    take = Take(7, "Hello.", mode="cross_lingual", voice_name="v", sample_rate=SR)
    s.begin_take(take)
    assert s.current_take is take and s.making() and list(s.takes) == [take]
    s.add_chunk(take, _chunk(0))
    s.add_chunk(take, _chunk(1))
    s.end_take(take, TakeState.DONE, wall_seconds=2.0, first_audio=0.1)
    assert events == [("current", 1), ("started", 1), ("grew", 0, True), ("grew", 1, False),
                      ("ended", TakeState.DONE)]
    assert not s.making() and take.duration == 1.0 and take.wall_seconds == 2.0
    assert s.store.folder(take).is_dir()  # the store follows the session's takes


def test_an_older_take_grows_and_ends_without_telling_the_view(qtbot, settings) -> None:
    s = _session(qtbot, settings)
    old = Take(1, "One.", mode="cross_lingual", voice_name="v", sample_rate=SR)
    new = Take(2, "Two.", mode="cross_lingual", voice_name="v", sample_rate=SR)
    s.begin_take(old)
    s.begin_take(new)
    told: list[object] = []
    s.take_grew.connect(lambda t, c, first: told.append(t))
    s.take_ended.connect(told.append)
    s.add_chunk(old, _chunk(0))  # a late chunk of the take that was overtaken: kept, not shown
    s.end_take(old, TakeState.CANCELLED)
    assert told == [] and old.chunk_count == 1 and old.state is TakeState.CANCELLED and s.current_take is new


def test_a_take_without_audio_leaves_the_list(qtbot, settings) -> None:
    s = _session(qtbot, settings)
    dropped: list[Take] = []
    current: list[object] = []
    s.take_dropped.connect(dropped.append)
    s.current_take_changed.connect(current.append)
    take = Take(1, "Hello.", mode="cross_lingual", voice_name="v", sample_rate=SR)
    s.begin_take(take)
    s.drop_take(take, TakeState.CANCELLED)
    assert dropped == [take] and current == [take, None] and s.current_take is None and len(s.takes) == 0
    assert not s.making()


def test_model_voice_shown_and_playing_are_signals(qtbot, settings) -> None:
    s = _session(qtbot, settings)
    seen: list[tuple] = []
    s.model_changed.connect(lambda info: seen.append(("model", info)))
    s.voice_changed.connect(lambda v: seen.append(("voice", v.name if v else None)))
    s.shown_take_changed.connect(lambda t: seen.append(("shown", t)))
    s.playing_take_changed.connect(lambda t: seen.append(("playing", t)))
    s.activity_changed.connect(lambda: seen.append(("activity", s.regenerating)))
    info = engine_info(settings.paths.data / "model", quality="fast")
    s.set_model_info(info)
    s.set_voice(None)  # the voice panel has none
    take = Take(1, "Hello.", mode="cross_lingual", voice_name="v", sample_rate=SR)
    s.set_shown_take(take)
    s.set_shown_take(take)  # shown again (its audio changed): said again
    s.set_playing_take(take)
    s.set_playing_take(take)  # no change: nothing said
    s.set_regenerating(True)
    assert seen == [("model", info), ("voice", None), ("shown", take), ("shown", take), ("playing", take),
                    ("activity", True)]
    assert s.rtf_key() == f"{info.model_dir}|cpu|fast" and s.measured_rtf() is None
    settings.set_measured_rtf(s.rtf_key(), 0.8)
    assert s.measured_rtf() == 0.8


def test_messages_go_out_as_signals(qtbot, settings) -> None:
    s = _session(qtbot, settings)
    errors: list[tuple[str, str]] = []
    statuses: list[tuple[str, int]] = []
    s.error_shown.connect(lambda title, text: errors.append((title, text)))
    s.status_shown.connect(lambda text, ms: statuses.append((text, ms)))
    s.show_error("Title", "Text")
    s.show_status("Working…")
    s.show_status("Done.", 5000)
    assert errors == [("Title", "Text")] and statuses == [("Working…", 0), ("Done.", 5000)]


def test_closing_keeps_a_take_being_made_as_stopped(qtbot, settings) -> None:
    s = _session(qtbot, settings)
    take = Take(1, "Hello.", mode="cross_lingual", voice_name="v", sample_rate=SR)
    s.begin_take(take)
    s.add_chunk(take, _chunk(0))
    s.close()
    assert take.state is TakeState.CANCELLED and list(s.takes) == [take]
    again = StudioSession(settings, engine=FakeEngine([]))
    restored = list(again.takes)
    assert [t.text for t in restored] == ["Hello."] and restored[0].state is TakeState.CANCELLED
    again.close()
