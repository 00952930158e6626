"""Live conversion without a GUI (issue 26): cutting the input, joining the output, the latency accounting,
and converting pieces with the tiny engine."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cosycore.errors import InputError
from cosycore.studio.live_convert import (
    CONTEXT_SECONDS,
    MAX_PIECE_SECONDS,
    MIN_PIECE_SECONDS,
    ConvertedPiece,
    LatencyMeter,
    LiveFeed,
    PieceCutter,
    Stitcher,
    convert_pieces,
    same_device,
)

SR = 48000


def speech_with_pauses(seconds: float, pauses: tuple[float, ...], sr: int = SR, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    x = 0.3 * np.sin(2 * np.pi * (140 + 40 * np.sin(2 * np.pi * 0.5 * t)) * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    x += 0.005 * rng.standard_normal(t.shape)
    for p in pauses:
        x[int(p * sr) : int((p + 0.25) * sr)] = 0.0
    return x.astype(np.float32)


def feed_blocks(cutter: PieceCutter, audio: np.ndarray, block: int = 1024, t0: float = 100.0):
    pieces = []
    for i in range(0, audio.shape[0], block):
        end = min(audio.shape[0], i + block)
        pieces += cutter.push(audio[i:end], t0 + end / cutter.sample_rate)
    last = cutter.flush()
    return pieces + ([last] if last is not None else [])


def test_pieces_cover_the_input_within_bounds_and_cut_at_pauses() -> None:
    audio = speech_with_pauses(9.0, pauses=(1.4, 3.0, 6.1))
    cutter = PieceCutter(SR)
    pieces = feed_blocks(cutter, audio)
    new = np.concatenate([p.samples[p.context:] for p in pieces])
    assert np.array_equal(new, audio)  # nothing lost, nothing doubled
    assert [p.index for p in pieces] == list(range(len(pieces)))
    assert pieces[-1].is_last and not any(p.is_last for p in pieces[:-1])
    for p in pieces[:-1]:
        assert MIN_PIECE_SECONDS - 1e-9 <= p.seconds <= MAX_PIECE_SECONDS + 1e-9
    assert pieces[0].context == 0
    for before, p in itertools.pairwise(pieces):
        assert p.context == round(CONTEXT_SECONDS * SR)
        assert np.array_equal(p.samples[: p.context], before.samples[-p.context:])
    # The first pause (1.4-1.65 s) ends the first piece inside it, not at the 2 s limit.
    assert 1.4 <= pieces[0].seconds <= 1.65
    # When a piece's first sample was spoken: blocks arrive in real time from t0.
    for p in pieces:
        assert p.spoken_at == pytest.approx(100.0 + p.start, abs=1e-6)


def test_the_limits_are_the_engines_and_no_torch_is_imported() -> None:
    import subprocess
    import sys

    from cosycore.engine.convert import source
    from cosycore.studio import live_convert

    assert live_convert.MIN_SAMPLE_RATE == source.MIN_SAMPLE_RATE
    assert live_convert.MIN_SOURCE_SECONDS == source.MIN_SOURCE_SECONDS
    code = "import sys, cosycore.studio.live_convert; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_a_low_rate_microphone_is_refused() -> None:
    with pytest.raises(InputError, match="16 kHz"):
        PieceCutter(8000)


def test_stitcher_keeps_the_length_and_crossfades() -> None:
    st = Stitcher(24000, crossfade_seconds=0.02)
    a = np.ones(24000, np.float32)
    b = np.full(12000, 0.5, np.float32)
    out = [st.add(a), st.add(b, lead_in=np.full(4800, 0.25, np.float32)), st.flush()]
    assert sum(o.shape[0] for o in out) == 36000
    joined = np.concatenate(out)
    fade = joined[24000 - 480 : 24000]
    assert fade[0] == pytest.approx(1.0) and fade[-1] == pytest.approx(0.25)  # from the old tail into the lead-in


def _piece(i: int, spoken: float, ready: float, seconds: float = 1.0, compute: float = 0.5) -> ConvertedPiece:
    return ConvertedPiece(i, np.zeros(int(seconds * 24000), np.float32), seconds, spoken, ready, compute, False)


def test_latency_follows_the_playback_queue() -> None:
    meter = LatencyMeter(output_delay=0.1)
    # Pieces of 1 s spoken back to back from t=0; each ready 0.5 s after it was complete.
    for i in range(4):
        meter.add(_piece(i, spoken=float(i), ready=i + 1.0 + 0.5))
    assert meter.latencies == pytest.approx([1.6] * 4)  # 1 s piece + 0.5 s compute + 0.1 s device
    assert meter.rtf == pytest.approx(0.5) and not meter.falling_behind
    slow = LatencyMeter()
    for i in range(4):  # each piece takes 1.5 s to convert: the queue grows
        slow.add(_piece(i, spoken=float(i), ready=1.0 + 1.5 * (i + 1), compute=1.5))
    assert slow.latencies == pytest.approx([2.5, 3.0, 3.5, 4.0])  # grows by 0.5 s a piece
    assert slow.falling_behind and slow.rtf == pytest.approx(1.5)


def test_same_device() -> None:
    assert same_device("default", "default")
    assert same_device("HDA Intel PCH: ALC257 Analog (hw:0,0)", "HDA Intel PCH: HDMI 0 (hw:0,3)")
    assert not same_device("USB Headset: Audio (hw:2,0)", "HDA Intel PCH: ALC257 Analog (hw:0,0)")
    assert not same_device("", "default")


def test_feed_ends_when_closed_or_cancelled() -> None:
    feed = LiveFeed()
    cutter = PieceCutter(SR)
    for p in feed_blocks(cutter, speech_with_pauses(3.0, ())):
        feed.put(p)
    assert feed.waiting_seconds == pytest.approx(3.0)
    feed.close()
    assert sum(p.seconds for p in feed.pieces()) == pytest.approx(3.0)
    assert feed.waiting_seconds == pytest.approx(0.0, abs=1e-9)
    assert list(LiveFeed().pieces(cancelled=lambda: True)) == []


@pytest.mark.usefixtures("single_thread")
def test_convert_pieces_with_the_tiny_engine(cv2_engine) -> None:
    target = speech_with_pauses(2.5, (), sr=24000, seed=3)
    voice = cv2_engine.create_voice(target, 24000, name="Live")
    audio = speech_with_pauses(4.0, (1.3,))
    audio[int(2.2 * SR) : int(3.6 * SR)] = 0.0  # a silent stretch: a piece converted without the model
    pieces = feed_blocks(PieceCutter(SR), audio)
    out = list(convert_pieces(cv2_engine, iter(pieces), voice=voice, seed=1))
    assert [o.index for o in out] == [p.index for p in pieces]
    total = sum(o.samples.shape[0] for o in out)
    assert total == sum(round(p.new_samples * 24000 / SR) for p in pieces)  # the speaker's timing, no drift
    assert any(o.silent and o.compute_seconds == 0.0 for o in out)
    assert all(np.isfinite(o.samples).all() for o in out)
    assert any(np.abs(o.samples).max() > 0 for o in out if not o.silent)
