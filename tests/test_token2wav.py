"""token2wav scheduling rules that need no model: hops, look-ahead, the CV3 silent-run rule."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cosycore.frontend.text_checks import japanese_note
from cosycore.token2wav import CV3_SILENT_TOKENS, StreamSchedule, Token2WavStream, stretch_mel, token_audio


class _FakeFlow:
    """Returns 2 frames per token whose value is the token id, so kept frames can be traced."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, bool, bool]] = []

    def inference(self, token, prompt_token, prompt_feat, embedding, *, streaming, finalize, **_):
        n = token.shape[1] - (0 if finalize else 3)
        self.calls.append((token.shape[1], streaming, finalize))
        ids = token[0, :n].float().repeat_interleave(2)  # [2n]
        return ids.reshape(1, 1, -1).expand(1, 80, -1).clone()


class _Collect:
    def __init__(self) -> None:
        self.frames: list[float] = []

    def push(self, mel: torch.Tensor, *, finalize: bool) -> np.ndarray:
        self.frames.extend(mel[0, 0].tolist())
        return np.zeros(mel.shape[2], dtype=np.float32)


def _stream(prompt_len: int, *, drop: bool = False, speed: float = 1.0,
            streaming: bool = True) -> tuple[Token2WavStream, _FakeFlow, _Collect]:
    flow, voc = _FakeFlow(), _Collect()
    s = Token2WavStream(flow=flow, vocoder=voc, prompt_token=torch.zeros(1, prompt_len, dtype=torch.int32),
                        prompt_feat=torch.zeros(1, 2 * prompt_len, 80), embedding=torch.zeros(1, 192),
                        drop_silent_runs=drop, speed=speed, streaming=streaming)
    return s, flow, voc


@pytest.mark.parametrize("prompt_len", [0, 10, 25, 37])
def test_release_hops_and_every_frame_once(prompt_len: int) -> None:
    s, flow, voc = _stream(prompt_len)
    tokens = [100 + i for i in range(400)]
    for t in tokens:
        list(s.push(t))
    s.finish()
    pad = StreamSchedule().prompt_pad(prompt_len)
    assert (prompt_len + pad) % 25 == 0
    ends = [c[0] for c in flow.calls]
    first = 25 + pad
    assert ends[:4] == [first + 3, first + 50 + 3, first + 150 + 3, first + 250 + 3]
    assert flow.calls[-1] == (400, False, True)
    assert all(c[1] and not c[2] for c in flow.calls[:-1])
    # Every generated token reaches the vocoder exactly once, in order (2 frames each).
    assert voc.frames == [float(t) for t in tokens for _ in range(2)]


def test_cv3_silent_runs_longer_than_five_are_dropped() -> None:
    silent = sorted(CV3_SILENT_TOKENS)[0]
    s, _, _ = _stream(0, drop=True)
    seq = [7] + [silent] * 9 + [8, silent, silent, 9]
    kept = [s.accept(t) for t in seq]
    assert kept == [True] + [True] * 5 + [False] * 4 + [True, True, True, True]
    assert s.tokens == [7] + [silent] * 5 + [8, silent, silent, 9]
    s2, _, _ = _stream(0, drop=False)
    assert all(s2.accept(t) for t in seq)


def test_speed_stretch_length_and_limits() -> None:
    mel = torch.randn(1, 80, 100)
    assert stretch_mel(mel, 2.0).shape[2] == 50
    assert stretch_mel(mel, 0.5).shape[2] == 200
    with pytest.raises(ValueError, match=r"between 0\.5 and 2\.0"):
        stretch_mel(mel, 3.0)


@pytest.mark.parametrize("streaming", [True, False])
@pytest.mark.parametrize("speed", [1.0, 2.0, 0.5])
def test_one_driver_owns_the_speed(streaming: bool, speed: float) -> None:
    """token_audio: per hop when streaming, once at the end offline; the stream's speed applied once."""
    s, flow, voc = _stream(10, speed=speed, streaming=streaming)
    out = list(token_audio(range(100, 400), s))
    assert [end for _, end in out] == [False] * (len(out) - 1) + [True]
    assert (len(out) > 1) == streaming and len(flow.calls) == (len(out) if streaming else 1)
    assert sum(a.shape[0] for a, _ in out) == len(voc.frames) == int(600 / speed)  # 2 frames a token


def test_the_driver_skips_the_final_call_when_cancelled() -> None:
    s, flow, _ = _stream(0)
    out = list(token_audio(range(100, 200), s, cancelled=lambda: True))
    assert all(not end for _, end in out) and not s.finished and all(c[1] for c in flow.calls)
    with pytest.raises(ValueError, match="speed must be between"):
        _stream(0, speed=2.5)


def test_japanese_note() -> None:
    assert japanese_note("こんにちは、世界") is not None
    assert "katakana" in (japanese_note("今日はいい天気です") or "")
    assert japanese_note("今天天气很好") is None and japanese_note("Hello") is None
