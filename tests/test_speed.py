"""Speed change: the streaming mel stretch against F.interpolate, and real streamed audio on both tiny models."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import soundfile as sf
import torch
import torch.nn.functional as F

from cosycore.engine import AudioChunk, Engine, SynthesisRequest
from cosycore.speed import MelStretchStream, check_speed
from cosycore.voices import Voice

pytestmark = pytest.mark.usefixtures("single_thread")

TEXT = "Speech synthesis turns written text into natural sounding audio."


def _random_cuts(total: int, seed: int) -> list[int]:
    gen = torch.Generator().manual_seed(seed)
    cuts = [0]
    while cuts[-1] < total:
        cuts.append(min(total, cuts[-1] + int(torch.randint(1, 60, (1,), generator=gen))))
    return cuts


@pytest.mark.parametrize("speed", [0.5, 0.8, 1.0, 1.37, 1.5, 2.0])
@pytest.mark.parametrize("frames", [17, 120, 401])
def test_streamed_stretch_equals_whole_mel_interpolation(speed: float, frames: int) -> None:
    torch.manual_seed(frames)
    mel = torch.randn(1, 80, frames)
    cuts = _random_cuts(frames, seed=frames + int(speed * 100))
    stretch = MelStretchStream(speed)
    parts = [stretch.push(mel[:, :, a:b]) for a, b in itertools.pairwise(cuts[:-1])]
    parts.append(stretch.finish(mel[:, :, cuts[-2] : cuts[-1]]))
    out = torch.cat(parts, dim=2)
    # The same half-frame grid as F.interpolate with scale 1/speed (torch rounds it in float32).
    ref = F.interpolate(mel, scale_factor=1 / speed, mode="linear", recompute_scale_factor=False)
    assert out.shape[2] == int(frames / speed)
    n = min(out.shape[2], ref.shape[2])
    torch.testing.assert_close(out[:, :, :n], ref[:, :, :n], atol=1e-3, rtol=1e-4)


def test_stretch_keeps_little_state_and_rejects_use_after_finish() -> None:
    stretch = MelStretchStream(1.5)
    for _ in range(50):
        stretch.push(torch.randn(1, 80, 10))
        assert stretch._frames is not None and stretch._frames.shape[2] <= 2  # bounded, not the whole mel
    stretch.finish()
    with pytest.raises(RuntimeError):
        stretch.push(torch.randn(1, 80, 4))


@pytest.mark.parametrize("bad", [0.49, 2.01, float("nan"), 0.0, -1.0])
def test_speed_range(bad: float) -> None:
    with pytest.raises(ValueError, match=r"between 0\.5 and 2\.0"):
        check_speed(bad)


# ---- on the tiny models ------------------------------------------------------------------


TOKENS = 100  # held to exactly this many, so every run has two streamed hops and a tail


def _run(engine: Engine, voice: Voice, *, speed: float, stream: bool) -> list[AudioChunk]:
    request = SynthesisRequest(TEXT, mode="cross_lingual", voice=voice, speed=speed, stream=stream, seed=5,
                               min_tokens=TOKENS, max_tokens=TOKENS)
    return list(engine.synthesize(request))


def _seam_check(chunks: list[AudioChunk]) -> None:
    """No jump at a chunk boundary larger than the largest sample-to-sample step inside the audio."""
    audio = np.concatenate([c.samples for c in chunks]).astype(np.float64)
    seams = np.cumsum([c.samples.size for c in chunks])[:-1]
    steps = np.abs(np.diff(audio))
    inner = np.delete(steps, seams - 1)
    assert steps[seams - 1].max() <= inner.max(), (steps[seams - 1], inner.max())


@pytest.fixture(scope="module", params=["cv2", "cv3"])
def engine_and_voice(request, cv2_engine: Engine, cv3_engine: Engine, espeak_wav) -> tuple[Engine, Voice]:
    engine = cv2_engine if request.param == "cv2" else cv3_engine
    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    return engine, engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox")  # a short prompt keeps it quick


@pytest.fixture(scope="module")
def normal_speed(engine_and_voice) -> list[AudioChunk]:
    engine, voice = engine_and_voice
    return _run(engine, voice, speed=1.0, stream=True)


@pytest.mark.parametrize("speed", [0.6, 2.0])
def test_streaming_speed_duration_and_seams(engine_and_voice, normal_speed, speed: float) -> None:
    engine, voice = engine_and_voice
    normal = normal_speed
    fast = _run(engine, voice, speed=speed, stream=True)
    tokens = [t for c in fast for t in c.tokens]
    assert tokens == [t for c in normal for t in c.tokens] and len(tokens) == TOKENS
    assert len(fast) >= 3  # really streamed: several hops, then the tail
    n_normal = sum(c.samples.size for c in normal)
    n_fast = sum(c.samples.size for c in fast)
    assert abs(n_fast / (n_normal / speed) - 1) < 0.03
    _seam_check(fast)
    audio = np.concatenate([c.samples for c in fast])
    assert np.isfinite(audio).all() and np.abs(audio).max() <= 1.0


def test_streaming_speed_matches_offline_speed_length(engine_and_voice) -> None:
    engine, voice = engine_and_voice
    offline = _run(engine, voice, speed=1.5, stream=False)
    streamed = _run(engine, voice, speed=1.5, stream=True)
    assert len(offline) == 1
    n_off, n_str = offline[0].samples.size, sum(c.samples.size for c in streamed)
    assert abs(n_str - n_off) <= 2 * 480  # the two grids differ by at most a frame or two in total
