"""Playback: the ring buffer, the pre-roll rule, the callback's feed logic and the real device path
(the null ALSA device records what it was given)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import played_offset, played_samples, speechlike

from app.audio import playback
from app.audio.playback import (
    MIN_PREROLL,
    PREROLL_MARGIN,
    UNMEASURED_RTF,
    AudioDevice,
    Player,
    PlayState,
    RingBuffer,
    _Feed,
    hop_growth_need,
    list_devices,
    preroll_seconds,
)


def test_ring_buffer_wraps_and_refuses_overflow() -> None:
    ring = RingBuffer(8)
    assert ring.write(np.arange(6, dtype=np.float32)) == 6
    out = np.zeros(4, np.float32)
    assert ring.read_into(out) == 4 and out.tolist() == [0, 1, 2, 3]
    assert ring.write(np.arange(10, 20, dtype=np.float32)) == 6  # only 6 fit: 2 still buffered
    assert ring.available == 8 and ring.free == 0
    out = np.zeros(10, np.float32)
    assert ring.read_into(out) == 8
    assert out[:8].tolist() == [4, 5, 10, 11, 12, 13, 14, 15]
    assert ring.read_into(out) == 0
    ring.write(np.ones(3, np.float32))
    ring.clear()
    assert ring.available == 0


def test_preroll_follows_the_real_time_factor() -> None:
    # nothing measured yet: sized as for real time, so every mode the app picks as live is covered
    assert preroll_seconds(None, 10.0) == preroll_seconds(UNMEASURED_RTF, 10.0) > MIN_PREROLL
    assert preroll_seconds(0.3, 10.0) == MIN_PREROLL  # faster than real time
    # 10 s at RTF 2 in chunks of 1, 2, 4, 3 s: the last is ready 2 * 9 s after the first, which with
    # the 7 s before it plays must start 11 s late; sized for 2 * 1.15 it is 13.7 s (+ 0.15 s).
    assert hop_growth_need(2.0, 10.0) == pytest.approx(11.0)
    assert preroll_seconds(2.0, 10.0) == pytest.approx(hop_growth_need(2.0 * PREROLL_MARGIN, 10.0) + MIN_PREROLL)
    assert preroll_seconds(2.0, 10.0) == pytest.approx(13.85)
    # Below real time the growing chunks still need a pre-roll: at 0.9 the 4 s chunk is ready 5.4 s
    # after the first, when 1 + 2 s have played; below 0.5 / 1.15 never.
    assert hop_growth_need(0.9, 20.0) == pytest.approx(2.4)
    assert preroll_seconds(0.9, 20.0) > 2.4 and preroll_seconds(0.4, 20.0) == MIN_PREROLL
    assert preroll_seconds(0.5, 20.0) > MIN_PREROLL  # 15 % slower than 0.5 needs a little
    assert preroll_seconds(0.9, 1.0) == MIN_PREROLL  # one chunk: nothing to wait for
    assert preroll_seconds(2.0, 20.0) > preroll_seconds(2.0, 10.0)
    assert preroll_seconds(100.0, 3600.0) == 20.0  # capped


def test_feed_waits_for_preroll_counts_underruns_and_drains() -> None:
    feed = _Feed(capacity=1000, preroll=100)
    out = np.full(64, 9.0, np.float32)
    feed.ring.write(np.ones(50, np.float32))
    assert feed.fill(out) and not feed.started and np.all(out == 0)  # still below the pre-roll
    feed.ring.write(np.ones(60, np.float32))
    assert feed.fill(out) and feed.started and np.all(out == 1)  # 110 buffered: plays
    assert feed.fill(out)  # 46 left: a short block, then silence
    assert np.all(out[:46] == 1) and np.all(out[46:] == 0)
    assert feed.underruns == 1 and not feed.started  # waits for the pre-roll again
    feed.ring.write(np.full(10, 2.0, np.float32))
    feed.end_of_input = True  # the end releases the pre-roll
    assert not feed.fill(out)
    assert np.all(out[:10] == 2) and feed.drained and feed.frames_played == 120
    assert feed.underruns == 1  # the end of the take is not an underrun


def test_device_list_on_the_null_device(null_audio) -> None:
    devices = list_devices("output")
    assert devices and all(isinstance(d, AudioDevice) for d in devices)
    assert any(d.name == "default" for d in devices)
    assert list_devices("input")


def test_chunks_reach_the_device_gaplessly(qtbot, null_audio) -> None:
    player = Player()
    assert player.state is PlayState.STOPPED and player.available
    audio = speechlike(1.5)
    chunks = np.array_split(audio, [7000, 13000, 29000])
    states = []
    player.state_changed.connect(states.append)
    assert player.begin(24000, preroll=0.2)
    for chunk in chunks:
        player.feed(chunk)
    player.end_input()
    with qtbot.waitSignal(player.playback_finished, timeout=10000):
        pass
    assert PlayState.PLAYING in states and player.state is PlayState.STOPPED
    assert player.underruns == 0
    played = played_samples(null_audio)
    start = played_offset(played, audio)
    assert start >= 0
    assert np.array_equal(played[start:start + audio.shape[0]], audio)  # bit-exact, no gap at the seams
    assert not np.any(played[:start])
    assert player.position == pytest.approx(1.5, abs=1e-3)


def test_play_from_a_position_and_stop(qtbot, null_audio) -> None:
    player = Player()
    audio = speechlike(2.0)
    assert player.play(audio, 24000, start=1.0)
    with qtbot.waitSignal(player.playback_finished, timeout=10000):
        pass
    played = played_samples(null_audio)
    tail = audio[24000:]
    start = played_offset(played, tail)
    assert np.array_equal(played[start:start + tail.shape[0]], tail)
    assert player.play(audio, 24000)
    player.stop()
    assert player.state is PlayState.STOPPED and player.buffered_seconds == 0.0


def test_small_ring_underruns_are_silence_and_lose_nothing(qtbot, null_audio,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # A 0.5 s ring holds a sixth of the take; the rest waits in the pending queue. The null device
    # has no clock and empties the ring faster than the 30 Hz top-up refills it, so it underruns:
    # each underrun must play silence, be counted, and drop no sample.
    monkeypatch.setattr("app.audio.playback.RING_SECONDS", 0.5)
    player = Player()
    audio = speechlike(3.0, seed=4)
    assert player.play(audio, 24000)
    assert player.buffered_seconds == pytest.approx(3.0, abs=0.05)
    with qtbot.waitSignal(player.playback_finished, timeout=20000):
        pass
    played = played_samples(null_audio)
    assert player.underruns > 0
    assert np.array_equal(played[played != 0], audio[audio != 0])


def test_no_audio_device_is_a_state_not_an_error(qtbot, no_audio_device) -> None:
    player = Player()
    assert player.state is PlayState.NO_DEVICE and not player.available
    assert not player.begin(24000)
    assert not player.play(np.zeros(100, np.float32), 24000)
    player.feed(np.zeros(10, np.float32))  # ignored, no exception
    player.end_input()
    assert player.refresh_devices() == []


def test_a_player_told_to_wait_finds_its_device_when_first_needed(qtbot, monkeypatch: pytest.MonkeyPatch,
                                                                  null_audio) -> None:
    """The studio's player loads PortAudio after the window's first frame (issue 25), or sooner if asked."""
    loads: list[int] = []
    real = playback.load_sounddevice
    monkeypatch.setattr(playback, "load_sounddevice", lambda: loads.append(1) or real())
    player = Player(find_now=False)
    assert not player.found and loads == []
    states: list[PlayState] = []
    player.state_changed.connect(states.append)
    assert player.device is not None and player.found and loads
    assert player.state is PlayState.STOPPED and states == []  # it was stopped all along
    seen = len(loads)
    player.find_device()  # once only
    assert player.device is not None and len(loads) == seen
    waiting = Player(find_now=False)
    assert waiting.play(speechlike(0.2), 24000)  # playing finds the device first
    waiting.stop()


def test_a_waiting_player_without_a_device_says_so_when_it_looks(qtbot, no_audio_device) -> None:
    player = Player(find_now=False)
    with qtbot.waitSignal(player.state_changed, timeout=1000) as blocker:
        player.find_device()
    assert blocker.args == [PlayState.NO_DEVICE] and not player.available


def test_missing_portaudio(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.audio.playback.load_sounddevice", lambda: None)
    player = Player()
    assert player.state is PlayState.NO_DEVICE
    assert list_devices("output") == []
