"""Cancel inside a call (issue 14, problem 4): Engine.cancel stops a request inside the flow's Euler loop,
between the vocoder's blocks and at the next speech token, not only between chunks."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cosycore.cancel import Cancelled, cancel_point, cancel_scope, scoped
from cosycore.engine import Engine, SynthesisRequest

pytestmark = pytest.mark.usefixtures("single_thread")


def _speechlike(seconds: float, sr: int = 24000) -> np.ndarray:
    t = np.arange(int(seconds * sr)) / sr
    f0 = 120 + 20 * np.sin(2 * math.pi * 0.7 * t)
    x = sum(np.sin(k * 2 * math.pi * np.cumsum(f0) / sr) / k for k in range(1, 8))
    return (0.3 * x * (0.5 + 0.5 * np.sin(2 * math.pi * 4 * t)) / np.max(np.abs(x))).astype(np.float32)


@pytest.fixture(scope="module")
def engine(tiny_cv2_model: Path) -> Engine:
    return Engine(tiny_cv2_model, device="cpu")


@pytest.fixture(scope="module")
def voice(engine: Engine):
    return engine.create_voice(_speechlike(3.0), 24000, name="Tester", transcript="")


def _request(voice, stream: bool = False) -> SynthesisRequest:
    return SynthesisRequest("Hello there, this is a test.", mode="cross_lingual", voice=voice, seed=1,
                            stream=stream, min_tokens=40, max_tokens=40)


def test_cancel_lands_inside_a_flow_call(engine: Engine, voice, monkeypatch: pytest.MonkeyPatch) -> None:
    estimator = engine.model.flow.decoder.estimator
    calls: list[int] = []
    forward = estimator.forward

    def counting(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            engine.cancel()  # from "another thread", in the middle of the Euler loop
        return forward(*args, **kwargs)

    monkeypatch.setattr(estimator, "forward", counting)
    chunks = list(engine.synthesize(_request(voice)))
    assert chunks == []  # the request ended quietly as cancelled, without its audio
    assert len(calls) == 3  # the 4th of the 10 Euler steps never ran
    monkeypatch.undo()
    assert list(engine.synthesize(_request(voice)))  # the engine is usable again


def test_cancel_lands_inside_one_estimator_call(engine: Engine, voice, monkeypatch: pytest.MonkeyPatch) -> None:
    """One U-Net call over a long prefix takes tenths of a second on a CPU: a cancel in its first middle
    stage stops the call there (the up stage never runs)."""
    estimator = engine.model.flow.decoder.estimator
    reached: list[str] = []
    mid, up = estimator.mid_blocks[0], estimator.up_blocks[0]
    mid_run, up_run = mid.run, up.run

    def in_mid(*args, **kwargs):
        reached.append("mid")
        engine.cancel()
        return mid_run(*args, **kwargs)

    def in_up(*args, **kwargs):
        reached.append("up")
        return up_run(*args, **kwargs)

    monkeypatch.setattr(mid, "run", in_mid)
    monkeypatch.setattr(up, "run", in_up)
    assert list(engine.synthesize(_request(voice))) == []
    assert reached == ["mid"]
    monkeypatch.undo()
    assert list(engine.synthesize(_request(voice)))  # the engine is usable again


def test_cancel_lands_between_dit_blocks(cv3_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fun-CosyVoice3's DiT estimator checks for cancel before each transformer block."""
    blocks = cv3_engine.model.flow.decoder.estimator.transformer_blocks
    assert len(blocks) >= 2
    reached: list[int] = []
    for i, block in enumerate(blocks):
        original = block.forward

        def spy(*args, _i=i, _original=original, **kwargs):
            reached.append(_i)
            if _i == 0:
                cv3_engine.cancel()
            return _original(*args, **kwargs)

        monkeypatch.setattr(block, "forward", spy)
    cv3_voice = cv3_engine.create_voice(_speechlike(3.0), 24000, name="Tester3", transcript="")
    assert list(cv3_engine.synthesize(_request(cv3_voice))) == []
    assert reached == [0]  # block 1 never started


def test_cancel_lands_between_vocoder_blocks(engine: Engine, voice, monkeypatch: pytest.MonkeyPatch) -> None:
    ups = engine.model.hift.ups
    reached: list[int] = []
    for i, layer in enumerate(ups):
        original = layer.forward

        def spy(x, _i=i, _original=original):
            reached.append(_i)
            if _i == 0:
                engine.cancel()
            return _original(x)

        monkeypatch.setattr(layer, "forward", spy)
    assert list(engine.synthesize(_request(voice))) == []
    assert reached == [0]  # the next upsampling block never started


def test_cancel_points_only_act_inside_a_scope() -> None:
    cancel_point()  # no scope: nothing happens
    flag = {"on": False}
    with cancel_scope(lambda: flag["on"]):
        cancel_point()
        flag["on"] = True
        with pytest.raises(Cancelled):
            cancel_point()
    cancel_point()

    def items():
        yield 1
        cancel_point()
        yield 2

    seen = []
    for item in scoped(items(), lambda: bool(seen)):
        seen.append(item)
        cancel_point()  # the consumer's own code is never interrupted
    assert seen == [1]
